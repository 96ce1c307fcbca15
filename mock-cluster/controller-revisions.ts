/**
 * The history StatefulSets and DaemonSets keep, as their controllers keep it: one
 * ControllerRevision per distinct pod template, owned by the workload, labelled with the
 * template's labels and `controller.kubernetes.io/hash`, its `data` the strategic merge
 * patch that restores the template (`{spec:{template:{$patch:replace,...}}}`, what
 * `kubectl rollout undo` sends back) and `revision` its number.
 * - A loaded scenario whose workload has no revision gets one for its current template.
 * - A write that changes the template makes the equal revision the newest (max + 1), or
 *   records a new one; a StatefulSet's status.updateRevision then names it.
 */
import { createHash, randomUUID } from 'node:crypto';
import { safeEncode, save, timestamp, type ClusterState } from './state.ts';
import type { KubeObject } from './types.ts';
import { deepClone, isRecord, jsonEqual, readPath, withoutEmpty } from './types.ts';

const HASH_LABEL = 'controller.kubernetes.io/hash';
const HISTORY_KINDS = new Set(['StatefulSet', 'DaemonSet']);

/** True for the kinds whose history is kept in ControllerRevisions. */
export function keepsControllerRevisions(object: KubeObject): boolean {
  return object.apiVersion === 'apps/v1' && HISTORY_KINDS.has(object.kind);
}

function revisionNumber(revision: KubeObject): number {
  return Number(revision['revision'] ?? 0) || 0;
}

/** The template a workload or a ControllerRevision holds, without the zero values clients add. */
function comparableTemplate(object: KubeObject): unknown {
  const template = deepClone(
    readPath(object, object.kind === 'ControllerRevision' ? 'data.spec.template' : 'spec.template'),
  );
  if (isRecord(template)) delete template['$patch'];
  return withoutEmpty(template);
}

function revisionHash(workload: KubeObject): string {
  const digest = createHash('sha256')
    .update(JSON.stringify(comparableTemplate(workload)))
    .digest();
  return safeEncode(digest.readUInt32BE(0));
}

function isControlledBy(revision: KubeObject, workload: KubeObject): boolean {
  return (revision.metadata.ownerReferences ?? []).some(
    (owner) =>
      owner.controller === true &&
      owner.kind === workload.kind &&
      (owner.uid ? owner.uid === workload.metadata.uid : owner.name === workload.metadata.name),
  );
}

function buildRevision(
  workload: KubeObject,
  options: { revision: number; name?: string; uid: string; created: string },
): KubeObject {
  const name = options.name ?? `${workload.metadata.name}-${revisionHash(workload)}`;
  const hash = name.startsWith(`${workload.metadata.name}-`)
    ? name.slice(workload.metadata.name.length + 1)
    : revisionHash(workload);
  const template = deepClone(readPath(workload, 'spec.template') ?? {}) as {
    metadata?: { labels?: Record<string, string> };
  };
  const annotations = { ...(workload.metadata.annotations ?? {}) };
  delete annotations['kubectl.kubernetes.io/last-applied-configuration'];
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name,
      namespace: workload.metadata.namespace,
      uid: options.uid,
      creationTimestamp: options.created,
      labels: { ...(template.metadata?.labels ?? {}), [HASH_LABEL]: hash },
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: workload.kind,
          name: workload.metadata.name,
          uid: workload.metadata.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    data: { spec: { template: { $patch: 'replace', ...template } } },
    revision: options.revision,
  };
}

/**
 * Adds, for each StatefulSet and DaemonSet of a snapshot (uids filled in) that owns no
 * ControllerRevision, revision 1 of its current template, named after
 * status.updateRevision (or currentRevision) when the snapshot gives one.
 */
export function addMissingControllerRevisions(
  objects: KubeObject[],
  context: { uidFor(identity: string): string },
): void {
  const revisions = objects.filter((object) => object.kind === 'ControllerRevision');
  for (const workload of objects.filter(keepsControllerRevisions)) {
    if (
      revisions.some(
        (revision) => revision.metadata.namespace === workload.metadata.namespace && isControlledBy(revision, workload),
      )
    )
      continue;
    const named = readPath(workload, 'status.updateRevision') ?? readPath(workload, 'status.currentRevision');
    const name = typeof named === 'string' && named !== '' ? named : undefined;
    const revision = buildRevision(workload, {
      revision: 1,
      ...(name ? { name } : {}),
      uid: context.uidFor(
        `apps/v1/ControllerRevision/${workload.metadata.namespace ?? ''}/${workload.kind}/${workload.metadata.name}`,
      ),
      created: workload.metadata.creationTimestamp ?? timestamp(Date.now()),
    });
    if (
      objects.some(
        (object) =>
          object.kind === 'ControllerRevision' &&
          object.metadata.namespace === workload.metadata.namespace &&
          object.metadata.name === revision.metadata.name,
      )
    )
      continue;
    objects.push(revision);
  }
}

/** The ControllerRevisions a workload controls, oldest revision first. */
export function ownedControllerRevisions(state: ClusterState, workload: KubeObject): KubeObject[] {
  const type = state.registry.forKind('apps/v1', 'ControllerRevision');
  if (!type) return [];
  return state.store
    .list(type, workload.metadata.namespace)
    .filter((revision) => isControlledBy(revision, workload))
    .sort((left, right) => revisionNumber(left) - revisionNumber(right));
}

/**
 * Brings a StatefulSet's or DaemonSet's history in line with it, before it is stored.
 * `previous` is the stored workload (absent on create): an unchanged template changes nothing.
 */
export function reconcileControllerRevisions(state: ClusterState, workload: KubeObject, previous?: KubeObject): void {
  const type = state.registry.forKind('apps/v1', 'ControllerRevision');
  if (!type) return;
  const wanted = comparableTemplate(workload);
  const owned = ownedControllerRevisions(state, workload);
  if (previous && owned.length > 0 && jsonEqual(comparableTemplate(previous), wanted)) return;
  const newest = owned.at(-1);
  const newestNumber = newest ? revisionNumber(newest) : 0;
  const equal = owned.filter((revision) => jsonEqual(comparableTemplate(revision), wanted)).at(-1);
  let current: KubeObject;
  if (equal && equal === newest) {
    current = equal;
  } else if (equal) {
    // The controllers roll back by renumbering the equal revision, not by copying it.
    equal['revision'] = newestNumber + 1;
    current = save(state, type, equal);
  } else {
    current = save(
      state,
      type,
      buildRevision(workload, { revision: newestNumber + 1, uid: randomUUID(), created: timestamp(state.now()) }),
    );
  }
  if (workload.kind === 'StatefulSet') {
    const status = isRecord(workload['status']) ? workload['status'] : {};
    workload['status'] = {
      ...status,
      updateRevision: current.metadata.name,
      ...(status['currentRevision'] ? {} : { currentRevision: current.metadata.name }),
    };
  }
}
