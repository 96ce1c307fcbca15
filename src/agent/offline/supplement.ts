/**
 * Evidence that completes a finding once its category is known: the claim and class
 * behind an unbound volume, the quota that refused a pod, the NetworkPolicy in the way of
 * a dependency, and any text in the cluster's data that tried to instruct the agent.
 */
import type { NodesData } from '../../tools/list-nodes.ts';
import { formatQuantity, parseQuantity } from '../../tools/format/quantity.ts';
import type { Case, Finding } from './case.ts';
import type { Investigation } from './investigation.ts';
import type { Query } from './query.ts';
import { missingObjectOf } from './rules/missing-reference.ts';
import { viewCase } from './rules/view.ts';
import { findInjectionLines } from './signals/injection.ts';

export function supplementEvidence(finding: Finding, gathered: Case, query: Query): string[] {
  const namespace = gathered.pod?.namespace ?? gathered.workload?.namespace;
  if (!namespace) return [];
  switch (finding.category) {
    case 'pvc-unbound': {
      const claims = query.data('list_persistent_volume_claims', { namespace });
      query.barrier();
      const wanted = new Set(
        gathered.pod?.spec.volumes
          .filter((volume) => volume.kind === 'persistentVolumeClaim')
          .map((volume) => volume.sourceName),
      );
      return (claims?.claims ?? [])
        .filter((claim) => claim.phase !== 'Bound' && (wanted.size === 0 || wanted.has(claim.name)))
        .slice(0, 3)
        .map((claim) => {
          const existing = claim.existingStorageClasses?.length
            ? `; the cluster has ${claim.existingStorageClasses.slice(0, 4).join(', ')}`
            : '';
          const storageClass = claim.storageClassName
            ? `storageClass ${claim.storageClassName}${claim.storageClassExists === false ? ` (does not exist${existing})` : ''}`
            : claim.staticOnly
              ? 'storageClassName "" (binds only a pre-made volume without a class)'
              : claim.noDefaultStorageClass
                ? 'no storageClass and no default class'
                : 'default storageClass';
          const selector = claim.selector ? `, selector ${claim.selector}` : '';
          const near = (claim.nearVolumes ?? [])
            .slice(0, 2)
            .map((volume) => `; PersistentVolume ${volume.name} does not fit it: ${volume.misfits.join('; ')}`);
          return `PersistentVolumeClaim ${namespace}/${claim.name} is ${claim.phase}, ${storageClass}${selector}${claim.warnings.length ? `: ${claim.warnings[0]}` : ''}${near.join('')}`;
        });
    }
    case 'quota-exceeded': {
      const quotas = query.data('list_resource_quotas', { namespace });
      query.barrier();
      return (quotas?.quotas ?? []).flatMap((quota) => {
        const tight = quota.resources.filter((resource) => resource.exhausted || (resource.ratio ?? 0) >= 0.75);
        return tight.length
          ? [
              `ResourceQuota ${namespace}/${quota.name}: ${tight.map((resource) => `${resource.resource} used ${resource.used} of ${resource.hard}`).join(', ')}`,
            ]
          : [];
      });
    }
    case 'dependency-unreachable': {
      // Where the host the log names leads is the chain's business (chain/); a policy in the way is this namespace's.
      const policies = query.data('list_network_policies', { namespace });
      query.barrier();
      return (policies?.policies ?? [])
        .filter((policy) => policy.policyTypes.includes('Egress'))
        .map(
          (policy) =>
            `NetworkPolicy ${namespace}/${policy.name} restricts egress of ${policy.podSelector}: ${policy.egress.length ? policy.egress.join('; ') : 'deny all'}`,
        );
    }
    case 'unschedulable-placement': {
      // A claim bound to a volume pinned to a zone (or node) no schedulable node is in: name the volume.
      if (!/volume node affinity conflict/i.test(finding.evidence.join(' '))) return [];
      const claims = query.data('list_persistent_volume_claims', { namespace });
      query.barrier();
      const used = new Set(
        gathered.pod?.spec.volumes
          .filter((volume) => volume.kind === 'persistentVolumeClaim')
          .map((volume) => volume.sourceName),
      );
      return (claims?.claims ?? [])
        .filter((claim) => used.has(claim.name) && claim.volumeName)
        .map(
          (claim) =>
            `PersistentVolumeClaim ${namespace}/${claim.name} is bound to PersistentVolume ${claim.volumeName}, whose node affinity (its zone or node) no schedulable node satisfies: the pod can run only where its volume is`,
        );
    }
    case 'unschedulable-resources': {
      const pods = query.data('list_pods', { namespace, fieldSelector: 'status.phase=Pending' });
      const nodes = query.data('list_nodes', {});
      query.barrier();
      return [
        ...(pods && pods.total > 1 ? [`${pods.total} pod(s) Pending in ${namespace}`] : []),
        ...nodeRoomEvidence(gathered, finding, nodes),
      ];
    }
    case 'missing-configmap':
    case 'missing-secret':
      return presentKeys(gathered, namespace, query);
    default:
      return [];
  }
}

/** A key the pod wants that its ConfigMap or Secret lacks: the keys it has, the likeliest rename first. */
function presentKeys(gathered: Case, namespace: string, query: Query): string[] {
  const missing = missingObjectOf(viewCase(gathered));
  const key = missing?.key;
  if (!missing || !key) return [];
  const { object: kind, name } = missing;
  const keys =
    kind === 'ConfigMap'
      ? query.data('list_config_maps', { namespace, name })?.configMaps[0]?.keys
      : query.data('list_secrets', { namespace, name })?.secrets[0]?.keys;
  query.barrier();
  if (!keys) return [];
  const shared = (candidate: string): number =>
    candidate.split(/[_.-]/).filter((part) => key.split(/[_.-]/).includes(part)).length;
  const ordered = [...keys]
    .sort((left, right) => shared(right) - shared(left) || left.localeCompare(right))
    .slice(0, 12);
  return [`${kind} ${namespace}/${name} has no key "${key}"; its keys are: ${ordered.join(', ') || '(none)'}`];
}

/**
 * What the objects above the pod say, whatever the category: a Job that failed for good
 * (and why: its backoff limit, its deadline), and the autoscaler an HPA alert named.
 */
export function surroundingEvidence(gathered: Case): string[] {
  const lines: string[] = [];
  if (gathered.replacedPod)
    lines.push(`pod ${gathered.replacedPod}, which the alert names, no longer exists: its workload replaced it`);
  const job = gathered.job?.jobs[0];
  const failed = job?.conditions.find((condition) => condition.type === 'Failed' && condition.status === 'True');
  if (job && failed) {
    lines.push(
      `Job ${job.namespace}/${job.name} failed for good: ${failed.reason ?? 'Failed'}${failed.message ? `: ${failed.message}` : ''} (${job.failed} failed pod(s), ${job.succeeded} succeeded)`,
    );
    // Out of time: the deadline it had, what it used, and how long each unit of its work took (its log's elapsed times).
    if (failed.reason === 'DeadlineExceeded') lines.push(...deadlineEvidence(job, gathered));
  }
  const autoscaler = gathered.autoscaler;
  if (autoscaler) {
    const limited = autoscaler.conditions.filter(
      (condition) =>
        (condition.status === 'True' && condition.type === 'ScalingLimited') ||
        (condition.status === 'False' && condition.type !== 'ScalingLimited'),
    );
    lines.push(
      `HorizontalPodAutoscaler ${autoscaler.namespace}/${autoscaler.name} scales ${autoscaler.target.kind} ${autoscaler.target.name}: current ${autoscaler.currentReplicas}, desired ${autoscaler.desiredReplicas}, min ${autoscaler.minReplicas}, max ${autoscaler.maxReplicas}${autoscaler.atMax ? ' (at its maximum)' : ''}` +
        `${autoscaler.metrics.length ? `; ${autoscaler.metrics.join(', ')}` : ''}${limited.length ? `; ${limited.map((condition) => `${condition.type}=${condition.status}${condition.reason ? ` (${condition.reason})` : ''}`).join(', ')}` : ''}`,
    );
  }
  return lines;
}

/**
 * For each resource the scheduler found short: what the pod asks for against what each
 * schedulable node has left (allocatable less the requests already placed there), the
 * roomiest nodes first. This names the nodes and the resource, and by how much it misses.
 */
function nodeRoomEvidence(gathered: Case, finding: Finding, nodes: NodesData | undefined): string[] {
  const containers = gathered.pod?.spec.containers.filter((container) => !container.init) ?? [];
  const resources = [
    ...new Set([...finding.evidence.join(' ').matchAll(/Insufficient ([\w./-]+)/g)].map((match) => match[1]!)),
  ];
  const lines: string[] = [];
  for (const resource of resources) {
    const wanted = containers.reduce(
      (sum, container) =>
        sum + (parseQuantity(container.resources.requests?.[resource] ?? container.resources.limits?.[resource]) || 0),
      0,
    );
    const room = (nodes?.nodes ?? [])
      .filter((node) => node.healthy && !node.unschedulable && node.allocatable[resource] !== undefined)
      .map((node) => ({
        node,
        free: parseQuantity(node.allocatable[resource]) - (parseQuantity(node.requested?.[resource]) || 0),
      }))
      .sort((left, right) => right.free - left.free);
    if (room.length === 0 || !(wanted > 0)) continue;
    const shown = room
      .slice(0, 4)
      .map(
        ({ node, free }) =>
          `${node.name} has ${formatQuantity(resource, Math.max(free, 0))} free of ${node.allocatable[resource]} allocatable`,
      );
    lines.push(
      `the pod requests ${formatQuantity(resource, wanted)} ${resource}; no schedulable node has that much free: ${shown.join('; ')}${room.length > 4 ? `; ${room.length - 4} more node(s) have less` : ''}`,
    );
  }
  return lines;
}

/** Lines in tool output that address an automated agent: reported, never followed. */
export function findInjectionAttempts(investigation: Investigation): string[] {
  const found = new Set<string>();
  for (const observation of investigation.observations) {
    for (const line of findInjectionLines(observation.result.content)) found.add(line);
  }
  return [...found].slice(0, 2);
}

/** A log's own measure of how long one step took: `elapsed=28.91s`, `took 30012ms`, `duration: 2.5 s`. */
const STEP_TIME = /\b(elapsed|took|duration|latency|in)[=: ]+(\d+(?:\.\d+)?) ?(ms|s)\b/i;

/** A Job past its activeDeadlineSeconds: the deadline, how long it ran, and the slowest step its log timed. */
function deadlineEvidence(job: NonNullable<Case['job']>['jobs'][number], gathered: Case): string[] {
  const lines: string[] = [];
  if (job.activeDeadlineSeconds !== undefined) {
    lines.push(
      `Job ${job.namespace}/${job.name} may run ${job.activeDeadlineSeconds} s in all (activeDeadlineSeconds ${job.activeDeadlineSeconds})${job.durationSeconds !== undefined ? `; it ran ${job.durationSeconds} s` : ''}`,
    );
  }
  const timed = (gathered.logs?.lines ?? [])
    .map((line) => ({ line, match: STEP_TIME.exec(line) }))
    .filter((entry): entry is { line: string; match: RegExpExecArray } => entry.match !== null)
    .map((entry) => ({
      line: entry.line,
      seconds: Number(entry.match[2]) / (entry.match[3]?.toLowerCase() === 'ms' ? 1000 : 1),
    }));
  const slowest = timed.sort((left, right) => right.seconds - left.seconds)[0];
  if (slowest)
    lines.push(
      `its log times each step at up to ${Math.round(slowest.seconds * 10) / 10} s (${timed.length} timed line(s)): ${slowest.line.trim().slice(0, 200)}`,
    );
  return lines;
}
