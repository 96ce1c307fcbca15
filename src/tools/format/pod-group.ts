/**
 * The pods behind a selector, as a workload or Service description shows them: counts by
 * status and the unhealthy ones named, so one call says whether the workload's pods run.
 */
import type { V1Pod } from '@kubernetes/client-node';
import type { ReadCluster, ClusterError } from '../../cluster/cluster.ts';
import { formatAge } from './age.ts';
import {
  formatContainerState,
  oneLine,
  shortenKubeletMessage,
  summarizePod,
  type PodSummaryData,
} from './pod-status.ts';

export interface PodGroupData {
  total: number;
  countsByStatus: Record<string, number>;
  /** Unhealthy first, at most 20. */
  pods: PodSummaryData[];
  error?: ClusterError;
}

export async function readPodGroup(input: {
  cluster: ReadCluster;
  namespace: string;
  labelSelector: string;
  signal: AbortSignal;
  filter?: (pod: V1Pod) => boolean;
}): Promise<PodGroupData & { items: V1Pod[] }> {
  if (!input.labelSelector) return { total: 0, countsByStatus: {}, pods: [], items: [] };
  const listed = await input.cluster.list('Pod', {
    namespace: input.namespace,
    labelSelector: input.labelSelector,
    maxItems: 2000,
    signal: input.signal,
  });
  if (!listed.ok) return { total: 0, countsByStatus: {}, pods: [], items: [], error: listed.error };
  const items = input.filter ? listed.value.items.filter(input.filter) : listed.value.items;
  const now = input.cluster.now();
  const summaries = items
    .map((pod) => summarizePod(pod, now))
    .sort(
      (left, right) =>
        Number(left.healthy) - Number(right.healthy) ||
        right.restarts - left.restarts ||
        (left.ageSeconds ?? 0) - (right.ageSeconds ?? 0),
    );
  const countsByStatus: Record<string, number> = {};
  for (const pod of summaries) countsByStatus[pod.status] = (countsByStatus[pod.status] ?? 0) + 1;
  return { total: summaries.length, countsByStatus, pods: summaries.slice(0, 20), items };
}

/**
 * `pods: 3 (CrashLoopBackOff 2, Running 1)` then up to `limit` unhealthy pods, one line each;
 * pods in the same state for the same reason as one already written are named after it, not repeated.
 */
export function formatPodGroup(group: PodGroupData, now: Date, limit = 5): string[] {
  if (group.error) return [`pods: could not be listed (${group.error.kind}: ${group.error.message})`];
  const counts = Object.entries(group.countsByStatus)
    .map(([status, count]) => `${status} ${count}`)
    .join(', ');
  const lines = [`pods: ${group.total}${counts ? ` (${counts})` : ''}`];
  const unhealthy = group.pods.filter((pod) => !pod.healthy || pod.restarts > 0).slice(0, limit);
  const alike = new Map<string, { line: number; names: string[] }>();
  for (const pod of unhealthy) {
    const key = storyOf(pod);
    const seen = alike.get(key);
    if (seen) {
      seen.names.push(pod.name);
      continue;
    }
    const problem = pod.problem
      ? `, ${pod.problem.last ? 'last ' : ''}${pod.problem.container} ${formatContainerState(pod.problem.state, now, { messageLimit: 160 })}`
      : '';
    const previous = pod.lastTermination
      ? `; previous run ${formatContainerState(pod.lastTermination.state, now, { messageLimit: 120 })}`
      : '';
    const unschedulable = pod.unschedulable ? `, unschedulable: ${oneLine(pod.unschedulable, 240)}` : '';
    const age = pod.ageSeconds !== undefined ? formatAge(new Date(now.getTime() - pod.ageSeconds * 1000), now) : '?';
    lines.push(
      `  ${pod.name}: ${pod.status}, ready ${pod.ready}, restarts ${pod.restarts}, age ${age}${pod.node ? `, node ${pod.node}` : ''}${problem}${previous}${unschedulable}`,
    );
    alike.set(key, { line: lines.length - 1, names: [] });
  }
  for (const { line, names } of alike.values()) {
    if (names.length > 0) lines[line] += `; likewise ${names.join(', ')}`;
  }
  return lines;
}

/** What a pod's line says apart from its name, age, node and times: pods with the same story read as one. */
function storyOf(pod: PodSummaryData): string {
  const state = (data: PodSummaryData['problem'] | PodSummaryData['lastTermination']): string =>
    data
      ? `${data.container} ${data.state.state} ${data.state.reason ?? ''} ${data.state.exitCode ?? ''} ${shortenKubeletMessage(data.state.message ?? '').replaceAll(pod.name, '')}`
      : '';
  return [
    pod.status,
    pod.ready,
    pod.problem?.last ?? '',
    state(pod.problem),
    state(pod.lastTermination),
    pod.unschedulable ?? '',
  ].join('|');
}
