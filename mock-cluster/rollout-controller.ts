/**
 * The controllers' part of a write, so the state after kubectl's client-side operations is
 * what a real cluster would show:
 * - a Deployment whose pod template changed gets the ReplicaSet with an equal template
 *   (pod-template-hash aside) as its newest revision, or a new ReplicaSet, and the new
 *   revision number (max + 1), so `rollout undo` and `rollout restart` show up in
 *   `rollout history`; its replicas follow the Deployment's, and a ReplicaSet whose count
 *   changed gets that many pods, the Deployment's status following (replica-controller.ts);
 * - a deleted pod owned by a ReplicaSet that still wants it is replaced by a new pending pod.
 */
import { createHash, randomUUID } from 'node:crypto';
import { deploymentStatus, podsOf, reconcileReplicaSetPods } from './replica-controller.ts';
import { save, randomSuffix, safeEncode, timestamp, type ClusterState } from './state.ts';
import type { KubeObject, OwnerReference } from './types.ts';
import { deepClone, isRecord, jsonEqual, readPath, withoutEmpty } from './types.ts';

const REVISION = 'deployment.kubernetes.io/revision';
const REVISION_HISTORY = 'deployment.kubernetes.io/revision-history';
const HASH_LABEL = 'pod-template-hash';
const CHANGE_CAUSE = 'kubernetes.io/change-cause';

export function revisionOf(object: KubeObject): number {
  return Number(object.metadata.annotations?.[REVISION] ?? 0) || 0;
}

function templateWithoutHash(object: KubeObject): unknown {
  const template = deepClone(readPath(object, 'spec.template'));
  const labels = readPath(template, 'metadata.labels');
  if (isRecord(labels)) delete labels[HASH_LABEL];
  // Templates sent back by clients carry Go's zero values (creationTimestamp: null, resources: {}).
  return withoutEmpty(template);
}

function controllerOf(object: KubeObject): OwnerReference | undefined {
  return object.metadata.ownerReferences?.find((owner) => owner.controller);
}

/** The ReplicaSets a Deployment controls, newest revision first. */
export function ownedReplicaSets(state: ClusterState, deployment: KubeObject): KubeObject[] {
  const type = state.registry.forKind('apps/v1', 'ReplicaSet');
  if (!type) return [];
  return state.store
    .list(type, deployment.metadata.namespace)
    .filter((replicaSet) => controllerOf(replicaSet)?.uid === deployment.metadata.uid)
    .sort((left, right) => revisionOf(right) - revisionOf(left));
}

function templateHash(template: unknown): string {
  const digest = createHash('sha256').update(JSON.stringify(template)).digest();
  return safeEncode(digest.readUInt32BE(0));
}

function newReplicaSet(state: ClusterState, deployment: KubeObject, revision: number): KubeObject {
  const hash = templateHash(templateWithoutHash(deployment));
  const template = deepClone(readPath(deployment, 'spec.template') ?? {}) as {
    metadata?: { labels?: Record<string, string> };
  };
  template.metadata = {
    ...(template.metadata ?? {}),
    labels: { ...(template.metadata?.labels ?? {}), [HASH_LABEL]: hash },
  };
  const selector = deepClone(readPath(deployment, 'spec.selector')) as
    { matchLabels?: Record<string, string> } | undefined;
  const annotations: Record<string, string> = { [REVISION]: String(revision) };
  const changeCause = deployment.metadata.annotations?.[CHANGE_CAUSE];
  if (changeCause) annotations[CHANGE_CAUSE] = changeCause;
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `${deployment.metadata.name}-${hash}`,
      namespace: deployment.metadata.namespace,
      uid: randomUUID(),
      generation: 1,
      creationTimestamp: timestamp(state.now()),
      labels: { ...(template.metadata.labels ?? {}) },
      annotations,
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          name: deployment.metadata.name,
          uid: deployment.metadata.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      replicas: 0,
      selector: { ...(selector ?? {}), matchLabels: { ...(selector?.matchLabels ?? {}), [HASH_LABEL]: hash } },
      template,
    },
    status: { replicas: 0, observedGeneration: 1 },
  };
}

/**
 * Brings a Deployment's ReplicaSets in line with it, before it is stored. `previous` is the
 * stored Deployment (absent on create): only a changed template makes or promotes a revision;
 * otherwise the current ReplicaSet just follows the replica count.
 */
export function reconcileDeployment(state: ClusterState, deployment: KubeObject, previous?: KubeObject): void {
  const type = state.registry.forKind('apps/v1', 'ReplicaSet');
  if (!type) return;
  const owned = ownedReplicaSets(state, deployment);
  const newest = owned[0] ? revisionOf(owned[0]) : 0;
  const wanted = templateWithoutHash(deployment);
  const templateChanged = !previous || !jsonEqual(templateWithoutHash(previous), wanted);
  let current = owned.find((replicaSet) => jsonEqual(templateWithoutHash(replicaSet), wanted));
  const modified = new Set<KubeObject>();
  if (!templateChanged) {
    current ??= owned[0];
    if (!current) return;
  } else if (!current) {
    current = newReplicaSet(state, deployment, newest + 1);
    modified.add(current);
  } else if (revisionOf(current) !== newest) {
    const history = [current.metadata.annotations?.[REVISION_HISTORY], String(revisionOf(current))]
      .filter(Boolean)
      .join(',');
    current.metadata.annotations = {
      ...(current.metadata.annotations ?? {}),
      [REVISION]: String(newest + 1),
      [REVISION_HISTORY]: history,
    };
    const changeCause = deployment.metadata.annotations?.[CHANGE_CAUSE];
    if (changeCause) current.metadata.annotations[CHANGE_CAUSE] = changeCause;
    modified.add(current);
  }
  const replicas = Number(readPath(deployment, 'spec.replicas') ?? 1);
  for (const replicaSet of owned.includes(current) ? owned : [current, ...owned]) {
    const desired = replicaSet === current ? replicas : 0;
    const spec = isRecord(replicaSet['spec']) ? replicaSet['spec'] : {};
    if (spec['replicas'] !== desired) {
      replicaSet['spec'] = { ...spec, replicas: desired };
      modified.add(replicaSet);
    }
  }
  const scaled = [...modified].filter(
    (replicaSet) => replicaSet['spec'] && readPath(replicaSet, 'spec.replicas') !== podsOf(state, replicaSet).length,
  );
  for (const replicaSet of scaled) reconcileReplicaSetPods(state, replicaSet);
  for (const replicaSet of modified) save(state, type, replicaSet);
  deployment.metadata.annotations = {
    ...(deployment.metadata.annotations ?? {}),
    [REVISION]: String(revisionOf(current)),
  };
  deployment['status'] =
    scaled.length > 0
      ? deploymentStatus(state, deployment, { current, all: owned.includes(current) ? owned : [current, ...owned] })
      : {
          ...(isRecord(deployment['status']) ? deployment['status'] : {}),
          observedGeneration: deployment.metadata.generation ?? 1,
        };
}

/** After a pod is deleted: its ReplicaSet, if it still wants more pods, creates a replacement. */
export function replaceDeletedPod(state: ClusterState, pod: KubeObject): void {
  const owner = controllerOf(pod);
  const replicaSetType = state.registry.forKind('apps/v1', 'ReplicaSet');
  const podType = state.registry.forKind('v1', 'Pod');
  if (!owner || owner.kind !== 'ReplicaSet' || !replicaSetType || !podType) return;
  const replicaSet = state.store.get(replicaSetType, pod.metadata.namespace, owner.name);
  if (!replicaSet || replicaSet.metadata.uid !== owner.uid) return;
  const remaining = state.store
    .list(podType, pod.metadata.namespace)
    .filter((candidate) => controllerOf(candidate)?.uid === replicaSet.metadata.uid).length;
  if (remaining >= Number(readPath(replicaSet, 'spec.replicas') ?? 1)) return;
  const template = (readPath(replicaSet, 'spec.template') ?? {}) as {
    metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
    spec?: Record<string, unknown>;
  };
  const containers = Array.isArray(template.spec?.['containers'])
    ? (template.spec['containers'] as { name: string; image?: string }[])
    : [];
  const created = timestamp(state.now());
  const replacement: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `${replicaSet.metadata.name}-${randomSuffix()}`,
      generateName: `${replicaSet.metadata.name}-`,
      namespace: pod.metadata.namespace,
      uid: randomUUID(),
      creationTimestamp: created,
      labels: { ...(template.metadata?.labels ?? {}) },
      ...(template.metadata?.annotations ? { annotations: { ...template.metadata.annotations } } : {}),
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: replicaSet.metadata.name,
          uid: replicaSet.metadata.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      ...deepClone(template.spec ?? {}),
      ...(readPath(pod, 'spec.nodeName') ? { nodeName: readPath(pod, 'spec.nodeName') } : {}),
    },
    status: {
      phase: 'Pending',
      conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: created }],
      startTime: created,
      containerStatuses: containers.map((container) => ({
        name: container.name,
        image: container.image ?? '',
        ready: false,
        started: false,
        restartCount: 0,
        state: { waiting: { reason: 'ContainerCreating' } },
      })),
    },
  };
  save(state, podType, replacement);
}
