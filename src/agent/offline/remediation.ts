/**
 * The remediation a careful SRE would propose. Today that is one move: roll a Deployment
 * back when its newest revision broke it, the failing pods run that revision, and the
 * change between it and the one before touches what failed. Anything else (a node, a
 * quota, a missing object that never existed) needs a person, not a rollback.
 */
import type { DeploymentDetailsData } from '../../tools/describe-deployment.ts';
import { formatDiffEntry, type TemplateDiffEntry } from '../../tools/format/template-diff.ts';
import type { Category } from '../diagnosis.ts';
import type { Case } from './gather.ts';

/** Which changed fields can explain each category. */
const RELEVANT_FIELDS: Partial<Record<Category, RegExp>> = {
  'image-pull': /^(image|container|imagePullSecrets)/,
  'missing-secret': /^(env |envFrom secretRef|volume |mount |container)/,
  'missing-configmap': /^(env |envFrom configMapRef|volume |mount |container)/,
  'bad-credentials': /^(env |envFrom |volume |mount |image|container)/,
  'app-crash': /^(env |envFrom |image|command|args|volume |mount |container|resources)/,
  'probe-failure': /^(probe |ports|image|container)/,
  'init-failure': /^(image|command|args|env |envFrom |container|volume )/,
  'oom-killed': /^(resources limits\.memory|resources requests\.memory|image|env |args|command)/,
  // Only a change to where the app connects explains an unreachable dependency.
  // A new revision that asks for more than a ResourceQuota or LimitRange allows, or than any node has.
  'quota-exceeded': /^resources /,
  'unschedulable-resources': /^resources requests\./,
  'unschedulable-placement': /^(nodeSelector|affinity|tolerations)/,
  'dependency-unreachable': /^(env \S*(HOST|URL|ADDR|ADDRESS|ENDPOINT|DSN|URI|SERVER|BROKER|PORT)\S*$|envFrom configMapRef|dnsPolicy|dnsConfig)/i,
};

export interface RevisionChange {
  deployment: DeploymentDetailsData;
  fromRevision: number;
  toRevision: number;
  changes: TemplateDiffEntry[];
  changeCause?: string;
}

/** The change that produced the Deployment's current revision, if history holds one. */
export function latestChange(deployment: DeploymentDetailsData | undefined): RevisionChange | undefined {
  if (!deployment || deployment.currentRevision === undefined) return undefined;
  const change = deployment.changes.find((candidate) => candidate.toRevision === deployment.currentRevision);
  if (!change || change.changes.length === 0) return undefined;
  const revision = deployment.revisions.find((candidate) => candidate.revision === change.toRevision);
  return { deployment, fromRevision: change.fromRevision, toRevision: change.toRevision, changes: change.changes, ...(revision?.changeCause ? { changeCause: revision.changeCause } : {}) };
}

/** The changed fields that can explain the category; empty when the rollout is unrelated. */
export function relevantChanges(category: Category, change: RevisionChange): TemplateDiffEntry[] {
  const pattern = RELEVANT_FIELDS[category];
  return pattern ? change.changes.filter((entry) => pattern.test(entry.field)) : [];
}

/** Whether the pod under investigation runs the Deployment's newest revision. */
function podRunsRevision(gathered: Case, revision: number): boolean {
  const replicaSet = gathered.pod?.owners.find((owner) => owner.kind === 'ReplicaSet');
  return replicaSet?.revision === undefined || replicaSet.revision === revision;
}

/** A rollout still in progress, or finished recently, can be the cause; one from weeks ago is history. */
function isRecentRollout(change: RevisionChange): boolean {
  const revision = change.deployment.revisions.find((candidate) => candidate.revision === change.toRevision);
  if (!revision) return false;
  const incomplete = revision.readyReplicas < change.deployment.summary.desired;
  return incomplete || (revision.ageSeconds !== undefined && revision.ageSeconds < RECENT_ROLLOUT_SECONDS);
}

const RECENT_ROLLOUT_SECONDS = 3 * 24 * 3600;

export interface Rollback {
  tool: 'rollout_undo';
  args: { namespace: string; name: string };
  /** The revision the undo returns to (the one before the current). */
  toRevision: number;
  reason: string;
}

export function proposeRollback(gathered: Case, category: Category): Rollback | undefined {
  if (gathered.workload?.kind !== 'Deployment') return undefined;
  const change = latestChange(gathered.deployment);
  if (!change || !podRunsRevision(gathered, change.toRevision) || !isRecentRollout(change)) return undefined;
  const relevant = relevantChanges(category, change);
  if (relevant.length === 0) return undefined;
  return {
    tool: 'rollout_undo',
    args: { namespace: gathered.workload.namespace, name: gathered.workload.name },
    toRevision: change.fromRevision,
    reason: `roll back to revision ${change.fromRevision}, before ${relevant.map(formatDiffEntry).join('; ')}`,
  };
}
