/**
 * A StatefulSet's or DaemonSet's rollout history as Kubernetes keeps it: the
 * ControllerRevisions it controls, each with its `revision` number and, in `data`, the
 * patch that restores its pod template (`{spec:{template:{$patch:replace,...}}}`). Read into
 * the same shape as a Deployment's history (rollout.ts).
 */
import type { V1ControllerRevision, V1DaemonSet, V1PodTemplateSpec, V1StatefulSet } from '@kubernetes/client-node';
import type { ReadCluster, ClusterResult } from '../../cluster/cluster.ts';
import { ageSeconds, toIso } from './age.ts';
import { summarizePodSpec, templateAnnotations } from './pod-template.ts';
import { consecutiveChanges, type RevisionData, type RolloutHistory } from './rollout.ts';
import { formatLabelSelector } from './selectors.ts';

export type RevisionedWorkload =
  { kind: 'StatefulSet'; object: V1StatefulSet } | { kind: 'DaemonSet'; object: V1DaemonSet };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The pod template a ControllerRevision restores, without the `$patch` directive. */
export function templateOfRevision(revision: V1ControllerRevision): V1PodTemplateSpec | undefined {
  const data: unknown = revision.data;
  const spec = isRecord(data) ? data['spec'] : undefined;
  const template = isRecord(spec) ? spec['template'] : undefined;
  if (!isRecord(template)) return undefined;
  const { $patch: _directive, ...rest } = template;
  return rest as V1PodTemplateSpec;
}

/**
 * Whether the workload keeps this revision: its controller reference names the workload
 * (by uid when both have one), or it has no controller and the selector matched it, as the
 * controllers adopt such orphans.
 */
export function isRevisionOf(revision: V1ControllerRevision, workload: RevisionedWorkload): boolean {
  const owner = revision.metadata?.ownerReferences?.find((reference) => reference.controller);
  if (!owner) return true;
  const uid = workload.object.metadata?.uid;
  return (
    owner.kind === workload.kind &&
    (owner.uid && uid ? owner.uid === uid : owner.name === workload.object.metadata?.name)
  );
}

/** Pods of the current revision, as far as the workload's status tells. */
function currentPods(workload: RevisionedWorkload): { replicas: number; readyReplicas: number } {
  if (workload.kind === 'StatefulSet') {
    const status = workload.object.status;
    return { replicas: status?.replicas ?? 0, readyReplicas: status?.readyReplicas ?? 0 };
  }
  const status = workload.object.status;
  return {
    replicas: status?.currentNumberScheduled ?? status?.desiredNumberScheduled ?? 0,
    readyReplicas: status?.numberReady ?? 0,
  };
}

/**
 * The history from already-read ControllerRevisions. The current revision is the one a
 * StatefulSet's status.updateRevision names (the newest when it names none kept), a
 * DaemonSet's newest.
 */
export function buildControllerRevisionHistory(
  workload: RevisionedWorkload,
  controllerRevisions: readonly V1ControllerRevision[],
  now: Date,
): RolloutHistory {
  const revisions = controllerRevisions
    .filter((revision) => isRevisionOf(revision, workload))
    .map((revision): RevisionData => {
      const annotations = templateAnnotations(templateOfRevision(revision)?.metadata?.annotations);
      const template = {
        ...summarizePodSpec(templateOfRevision(revision)?.spec),
        ...(annotations ? { annotations } : {}),
      };
      const createdAt = toIso(revision.metadata?.creationTimestamp);
      const age = ageSeconds(revision.metadata?.creationTimestamp, now);
      const changeCause = revision.metadata?.annotations?.['kubernetes.io/change-cause'];
      return {
        revision: Number(revision.revision),
        controllerRevision: revision.metadata?.name ?? '',
        ...(changeCause ? { changeCause } : {}),
        ...(createdAt ? { createdAt } : {}),
        ...(age !== undefined ? { ageSeconds: age } : {}),
        images: template.containers.filter((container) => !container.init).map((container) => container.image),
        replicas: 0,
        readyReplicas: 0,
        current: false,
        template,
      };
    })
    .filter((revision) => Number.isInteger(revision.revision))
    .sort((left, right) => left.revision - right.revision);
  const updateRevision = workload.kind === 'StatefulSet' ? workload.object.status?.updateRevision : undefined;
  const current =
    revisions.find((revision) => updateRevision !== undefined && revision.controllerRevision === updateRevision) ??
    revisions.at(-1);
  if (current) Object.assign(current, { current: true, ...currentPods(workload) });
  return {
    revisions,
    changes: consecutiveChanges(revisions),
    ...(current ? { currentRevision: current.revision } : {}),
  };
}

/** Reads the ControllerRevisions a StatefulSet or DaemonSet keeps (by its selector) and builds the history. */
export async function readControllerRevisionHistory(input: {
  cluster: ReadCluster;
  workload: RevisionedWorkload;
  signal: AbortSignal;
}): Promise<ClusterResult<RolloutHistory>> {
  const { metadata, spec } = input.workload.object;
  const selector = formatLabelSelector(spec?.selector);
  const listed = await input.cluster.list('ControllerRevision', {
    namespace: metadata?.namespace ?? 'default',
    ...(selector ? { labelSelector: selector } : {}),
    maxItems: 1000,
    signal: input.signal,
  });
  if (!listed.ok) return listed;
  return { ok: true, value: buildControllerRevisionHistory(input.workload, listed.value.items, input.cluster.now()) };
}
