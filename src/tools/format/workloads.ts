/**
 * Workload status in one shape for Deployments, StatefulSets, DaemonSets and ReplicaSets:
 * desired against ready, the conditions that are not as they should be (with the
 * controller's message, where quota and admission errors show), images and selector.
 */
import type { V1DaemonSet, V1Deployment, V1ReplicaSet, V1StatefulSet } from '@kubernetes/client-node';
import { ageSeconds, formatAge } from './age.ts';
import { readRevision } from './owners.ts';
import { oneLine } from './pod-status.ts';
import { formatLabelSelector } from './selectors.ts';
import { formatNotes, readNotes } from './notes.ts';

export interface WorkloadConditionData {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface WorkloadSummaryData {
  kind: 'Deployment' | 'StatefulSet' | 'DaemonSet' | 'ReplicaSet';
  namespace: string;
  name: string;
  desired: number;
  ready: number;
  /** Pods on the newest template (Deployment, StatefulSet, DaemonSet). */
  updated?: number;
  available?: number;
  images: string[];
  selector: string;
  /** Every condition the controller reports. */
  conditions: WorkloadConditionData[];
  /** Deployment and ReplicaSet revision. */
  revision?: number;
  paused?: boolean;
  /** StatefulSet `spec.updateStrategy.rollingUpdate.partition` above 0: pods below that ordinal keep the old revision (a staged rollout). */
  partition?: number;
  /** Annotations a person wrote (why it is at 0, a change ticket), redacted; see readNotes. */
  notes?: Record<string, string>;
  ageSeconds?: number;
  /** The controller: a ReplicaSet's Deployment. */
  owner?: { kind: string; name: string };
  healthy: boolean;
}

type Workload = V1Deployment | V1StatefulSet | V1DaemonSet | V1ReplicaSet;

/** Conditions that mean trouble when they hold: `Progressing=False`, `Available=False`, `ReplicaFailure=True`. */
export function isBadCondition(condition: WorkloadConditionData): boolean {
  if (condition.type === 'ReplicaFailure') return condition.status === 'True';
  if (condition.type === 'Available' || condition.type === 'Progressing') return condition.status === 'False';
  return false;
}

function readConditions(
  conditions: Array<{ type: string; status: string; reason?: string; message?: string }> | undefined,
): WorkloadConditionData[] {
  return (conditions ?? []).map((condition) => ({
    type: condition.type,
    status: condition.status,
    ...(condition.reason ? { reason: condition.reason } : {}),
    ...(condition.message ? { message: condition.message } : {}),
  }));
}

function counts(
  kind: WorkloadSummaryData['kind'],
  workload: Workload,
): Pick<WorkloadSummaryData, 'desired' | 'ready' | 'updated' | 'available'> {
  if (kind === 'DaemonSet') {
    const status = (workload as V1DaemonSet).status;
    return {
      desired: status?.desiredNumberScheduled ?? 0,
      ready: status?.numberReady ?? 0,
      updated: status?.updatedNumberScheduled ?? 0,
      available: status?.numberAvailable ?? 0,
    };
  }
  const status = (workload as V1Deployment).status;
  const desired = (workload as V1Deployment).spec?.replicas ?? 1;
  return {
    desired,
    ready: status?.readyReplicas ?? 0,
    ...(kind !== 'ReplicaSet' ? { updated: status?.updatedReplicas ?? 0 } : {}),
    ...(kind !== 'StatefulSet' ? { available: status?.availableReplicas ?? 0 } : {}),
  };
}

export function summarizeWorkload(
  kind: WorkloadSummaryData['kind'],
  workload: Workload,
  now: Date,
): WorkloadSummaryData {
  const numbers = counts(kind, workload);
  const conditions = readConditions(workload.status?.conditions);
  const owner = workload.metadata?.ownerReferences?.find((reference) => reference.controller);
  const revision = kind === 'Deployment' || kind === 'ReplicaSet' ? readRevision(workload.metadata) : undefined;
  const age = ageSeconds(workload.metadata?.creationTimestamp, now);
  const paused = kind === 'Deployment' && (workload as V1Deployment).spec?.paused === true;
  const notes = kind === 'ReplicaSet' ? undefined : readNotes(workload.metadata);
  const partition =
    kind === 'StatefulSet' ? (workload as V1StatefulSet).spec?.updateStrategy?.rollingUpdate?.partition : undefined;
  return {
    kind,
    namespace: workload.metadata?.namespace ?? '',
    name: workload.metadata?.name ?? '',
    ...numbers,
    images: (workload.spec?.template?.spec?.containers ?? []).map((container) => container.image ?? ''),
    selector: formatLabelSelector(workload.spec?.selector),
    conditions,
    ...(revision !== undefined ? { revision } : {}),
    ...(paused ? { paused } : {}),
    ...(partition ? { partition } : {}),
    ...(notes ? { notes } : {}),
    ...(age !== undefined ? { ageSeconds: age } : {}),
    ...(owner ? { owner: { kind: owner.kind, name: owner.name } } : {}),
    healthy: numbers.ready >= numbers.desired && !conditions.some(isBadCondition),
  };
}

/** `checkout-api ready 0/3, updated 3, available 0, revision 4, age 2d, image x` and the bad conditions. */
export function formatWorkloadLine(
  summary: WorkloadSummaryData,
  now: Date,
  options: { withNamespace: boolean },
): string {
  const name = options.withNamespace ? `${summary.namespace}/${summary.name}` : summary.name;
  const parts = [`${name}: ready ${summary.ready}/${summary.desired}`];
  if (summary.updated !== undefined) parts.push(`updated ${summary.updated}`);
  if (summary.available !== undefined) parts.push(`available ${summary.available}`);
  if (summary.revision !== undefined) parts.push(`revision ${summary.revision}`);
  if (summary.paused) parts.push('PAUSED');
  if (summary.partition) parts.push(`rollout partition ${summary.partition} (ordinals below it keep the old revision)`);
  if (summary.ageSeconds !== undefined)
    parts.push(`age ${formatAge(new Date(now.getTime() - summary.ageSeconds * 1000), now)}`);
  parts.push(`image ${summary.images.join(' ')}`);
  // Why a workload runs nothing is what a person wrote on it; elsewhere the notes stay in the data.
  if (summary.desired === 0 || summary.paused || summary.partition) parts.push(...formatNotes(summary.notes));
  const bad = summary.conditions.filter(isBadCondition);
  const conditions = bad.length
    ? `\n  ${bad.map((condition) => `${condition.type}=${condition.status} ${condition.reason ?? ''}: ${oneLine(condition.message ?? '', 300)}`).join('\n  ')}`
    : '';
  return parts.join(', ') + conditions;
}
