/**
 * A Deployment's rollout history as Kubernetes keeps it: the ReplicaSets it owns, each
 * with its revision annotation, change-cause and pod template, and what changed from
 * each revision to the next.
 */
import type { V1Deployment, V1ReplicaSet } from '@kubernetes/client-node';
import type { ReadCluster, ClusterResult } from '../../cluster/cluster.ts';
import { ageSeconds, toIso } from './age.ts';
import { readRevision } from './owners.ts';
import { summarizePodSpec, templateAnnotations, type PodTemplateData } from './pod-template.ts';
import { formatLabelSelector } from './selectors.ts';
import { diffPodTemplates, type TemplateDiffEntry } from './template-diff.ts';

export interface RevisionData {
  revision: number;
  /** Where a Deployment keeps this revision. */
  replicaSet?: string;
  /** Where a StatefulSet or DaemonSet keeps this revision. */
  controllerRevision?: string;
  changeCause?: string;
  createdAt?: string;
  ageSeconds?: number;
  images: string[];
  replicas: number;
  readyReplicas: number;
  /** The revision the Deployment runs now. */
  current: boolean;
  template: PodTemplateData;
}

export interface RevisionChangeData {
  fromRevision: number;
  toRevision: number;
  changes: TemplateDiffEntry[];
}

export interface RolloutHistory {
  /** Oldest first. */
  revisions: RevisionData[];
  /** One entry per consecutive pair, oldest first. */
  changes: RevisionChangeData[];
  currentRevision?: number;
}

export function isOwnedBy(replicaSet: V1ReplicaSet, deployment: V1Deployment): boolean {
  return (replicaSet.metadata?.ownerReferences ?? []).some(
    (reference) =>
      reference.kind === 'Deployment' &&
      (reference.uid === deployment.metadata?.uid || reference.name === deployment.metadata?.name),
  );
}

export function buildRolloutHistory(
  deployment: V1Deployment,
  replicaSets: readonly V1ReplicaSet[],
  now: Date,
): RolloutHistory {
  const currentRevision = readRevision(deployment.metadata);
  const revisions = replicaSets
    .filter((replicaSet) => isOwnedBy(replicaSet, deployment))
    .flatMap((replicaSet): RevisionData[] => {
      const revision = readRevision(replicaSet.metadata);
      if (revision === undefined) return [];
      const annotations = templateAnnotations(replicaSet.spec?.template?.metadata?.annotations);
      const template = {
        ...summarizePodSpec(replicaSet.spec?.template?.spec),
        ...(annotations ? { annotations } : {}),
      };
      const createdAt = toIso(replicaSet.metadata?.creationTimestamp);
      const age = ageSeconds(replicaSet.metadata?.creationTimestamp, now);
      const changeCause = replicaSet.metadata?.annotations?.['kubernetes.io/change-cause'];
      return [
        {
          revision,
          replicaSet: replicaSet.metadata?.name ?? '',
          ...(changeCause ? { changeCause } : {}),
          ...(createdAt ? { createdAt } : {}),
          ...(age !== undefined ? { ageSeconds: age } : {}),
          images: template.containers.filter((container) => !container.init).map((container) => container.image),
          replicas: replicaSet.status?.replicas ?? 0,
          readyReplicas: replicaSet.status?.readyReplicas ?? 0,
          current: false,
          template,
        },
      ];
    })
    .sort((left, right) => left.revision - right.revision);
  const current = currentRevision ?? revisions.at(-1)?.revision;
  for (const revision of revisions) revision.current = revision.revision === current;
  return {
    revisions,
    changes: consecutiveChanges(revisions),
    ...(current !== undefined ? { currentRevision: current } : {}),
  };
}

/** What changed in the pod template from each revision (oldest first) to the next. */
export function consecutiveChanges(revisions: readonly RevisionData[]): RevisionChangeData[] {
  const changes: RevisionChangeData[] = [];
  for (let index = 1; index < revisions.length; index += 1) {
    const before = revisions[index - 1];
    const after = revisions[index];
    if (before && after)
      changes.push({
        fromRevision: before.revision,
        toRevision: after.revision,
        changes: diffPodTemplates(before.template, after.template),
      });
  }
  return changes;
}

/** Reads the Deployment's ReplicaSets (by its selector) and builds the history. */
export async function readRolloutHistory(input: {
  cluster: ReadCluster;
  deployment: V1Deployment;
  signal: AbortSignal;
}): Promise<ClusterResult<RolloutHistory>> {
  const selector = formatLabelSelector(input.deployment.spec?.selector);
  const listed = await input.cluster.list('ReplicaSet', {
    namespace: input.deployment.metadata?.namespace ?? 'default',
    ...(selector ? { labelSelector: selector } : {}),
    maxItems: 1000,
    signal: input.signal,
  });
  if (!listed.ok) return listed;
  return { ok: true, value: buildRolloutHistory(input.deployment, listed.value.items, input.cluster.now()) };
}
