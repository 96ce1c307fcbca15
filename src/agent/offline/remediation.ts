/**
 * The remediation a careful SRE would propose. Today that is one move: roll a Deployment
 * back when its newest revision broke it, the failing pods run that revision, and the
 * change between it and the one before touches what failed. Anything else (a node, a
 * quota, a missing object that never existed) needs a person, not a rollback.
 */
import type { ToolResult } from '../../tools/tool.ts';
import { formatDiffEntry, type TemplateDiffEntry } from '../../tools/format/template-diff.ts';
import type { Category } from '../diagnosis.ts';
import type { Case, WorkloadHistory } from './case.ts';

/** Which changed fields can explain each category. */
const RELEVANT_FIELDS: Partial<Record<Category, RegExp>> = {
  'image-pull': /^(image|container|imagePullSecrets)/,
  'missing-secret': /^(env |envFrom secretRef|volume |mount |container)/,
  'missing-configmap': /^(env |envFrom configMapRef|volume |mount |container)/,
  'bad-credentials': /^(env |envFrom |volume |mount |image|container)/,
  'app-crash': /^(env |envFrom |image|command|args|volume |mount |container|resources|annotation )/,
  'probe-failure': /^(probe |ports|image|container|annotation )/,
  'init-failure': /^(image|command|args|env |envFrom |container|volume |annotation )/,
  // Annotations size injected sidecars (a mesh proxy's memory limit, an agent's).
  'oom-killed': /^(resources limits\.memory|resources requests\.memory|image|env |args|command|annotation )/,
  // Only a change to where the app connects explains an unreachable dependency.
  // A new revision that asks for more than a ResourceQuota or LimitRange allows, or than any node has.
  'quota-exceeded': /^resources /,
  'unschedulable-resources': /^resources requests\./,
  'unschedulable-placement': /^(nodeSelector|affinity|tolerations)/,
  // A mounted configuration (a proxy's upstreams) names where to connect as much as an env var does.
  'dependency-unreachable':
    /^(env \S*(HOST|URL|ADDR|ADDRESS|ENDPOINT|DSN|URI|SERVER|BROKER|PORT)\S*$|envFrom configMapRef|volume |dnsPolicy|dnsConfig)/i,
};

export interface RevisionChange {
  history: WorkloadHistory;
  fromRevision: number;
  toRevision: number;
  changes: TemplateDiffEntry[];
  changeCause?: string;
}

/** The history the case holds: the Deployment's details, or a StatefulSet's or DaemonSet's rollout history. */
export function historyOf(gathered: Case): WorkloadHistory | undefined {
  const deployment = gathered.deployment;
  if (deployment) {
    const { namespace, name, desired } = deployment.summary;
    return {
      kind: 'Deployment',
      namespace,
      name,
      desired,
      ...(deployment.currentRevision !== undefined ? { currentRevision: deployment.currentRevision } : {}),
      revisions: deployment.revisions,
      changes: deployment.changes,
    };
  }
  return gathered.history;
}

/** The change that produced the workload's current revision, if history holds one. */
export function latestChange(history: WorkloadHistory | undefined): RevisionChange | undefined {
  if (!history || history.currentRevision === undefined) return undefined;
  const change = history.changes.find((candidate) => candidate.toRevision === history.currentRevision);
  if (!change || change.changes.length === 0) return undefined;
  const revision = history.revisions.find((candidate) => candidate.revision === change.toRevision);
  return {
    history,
    fromRevision: change.fromRevision,
    toRevision: change.toRevision,
    changes: change.changes,
    ...(revision?.changeCause ? { changeCause: revision.changeCause } : {}),
  };
}

/** The changed fields that can explain the category; empty when the rollout is unrelated. */
export function relevantChanges(
  category: Category,
  change: RevisionChange,
  through: ReadonlySet<string> = new Set(),
): TemplateDiffEntry[] {
  const pattern = RELEVANT_FIELDS[category];
  // An app that reaches its dependency through a sidecar (a database proxy): how that sidecar runs is where it connects.
  const viaSidecar = through.size > 0 && THROUGH_SIDECAR.has(category);
  return pattern
    ? change.changes.filter(
        (entry) =>
          pattern.test(entry.field) ||
          (viaSidecar &&
            SIDECAR_FIELDS.test(entry.field) &&
            (entry.field === 'container' || through.has(entry.container ?? ''))),
      )
    : [];
}

const THROUGH_SIDECAR = new Set<Category>(['dependency-unreachable', 'bad-credentials']);
const SIDECAR_FIELDS = /^(container|image|command|args|env )/;

/** Whether the pod under investigation runs the workload's newest revision (unknown counts as yes). */
function podRunsRevision(gathered: Case, change: RevisionChange): boolean {
  const replicaSet = gathered.pod?.owners.find((owner) => owner.kind === 'ReplicaSet');
  if (change.history.kind === 'Deployment')
    return replicaSet?.revision === undefined || replicaSet.revision === change.toRevision;
  // A StatefulSet's pods carry the revision's name; a DaemonSet's its hash.
  const hash = gathered.pod?.labels['controller-revision-hash'];
  const keeper = change.history.revisions.find(
    (revision) => revision.revision === change.toRevision,
  )?.controllerRevision;
  return !hash || !keeper || keeper === hash || keeper.endsWith(`-${hash}`);
}

/** A rollout still in progress, or finished recently, can be the cause; one from weeks ago is history. */
function isRecentRollout(change: RevisionChange): boolean {
  const revision = change.history.revisions.find((candidate) => candidate.revision === change.toRevision);
  if (!revision) return false;
  const incomplete = revision.readyReplicas < change.history.desired;
  return incomplete || (revision.ageSeconds !== undefined && revision.ageSeconds < RECENT_ROLLOUT_SECONDS);
}

const RECENT_ROLLOUT_SECONDS = 3 * 24 * 3600;

export interface Rollback {
  tool: 'rollout_undo';
  /** `kind` only for StatefulSets and DaemonSets: a Deployment is rollout_undo's default. */
  args: { namespace: string; name: string; kind?: 'StatefulSet' | 'DaemonSet' };
  /** The revision the undo returns to (the one before the current). */
  toRevision: number;
  reason: string;
}

export function proposeRollback(
  gathered: Case,
  category: Category,
  through?: ReadonlySet<string>,
): Rollback | undefined {
  const workload = gathered.workload;
  const history = historyOf(gathered);
  if (!workload || !history || workload.kind !== history.kind || workload.name !== history.name) return undefined;
  const change = latestChange(history);
  if (!change || !podRunsRevision(gathered, change) || !isRecentRollout(change)) return undefined;
  const relevant = relevantChanges(category, change, through);
  if (relevant.length === 0) return undefined;
  return {
    tool: 'rollout_undo',
    args: {
      namespace: workload.namespace,
      name: workload.name,
      ...(history.kind === 'Deployment' ? {} : { kind: history.kind }),
    },
    toRevision: change.fromRevision,
    reason: `roll back to revision ${change.fromRevision}, before ${relevant.map(formatDiffEntry).join('; ')}`,
  };
}

/**
 * The summary's sentence about the rollback: a proposal for a person to review when the
 * gate recorded it as one (OBSERVE), and nothing when it was held for a person's
 * approval: the loop then adds what became of it (awaiting, done, rejected, expired).
 */
export function rollbackSentence(input: {
  label: string;
  rollback: Rollback;
  result: ToolResult | undefined;
}): string | undefined {
  const data = input.result?.ok ? (input.result.data as { action?: { status?: string } } | undefined) : undefined;
  const status = data?.action?.status;
  if (status !== undefined && status !== 'proposed') return undefined;
  return `Proposed remediation: roll ${input.label} back with rollout_undo to revision ${input.rollback.toRevision}, before that change.`;
}
