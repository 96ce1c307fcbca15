/**
 * From a workload's pods to the one most worth a look: in trouble now, or crashed within
 * the last half hour; a pod stranded on a lost node hands over to that node.
 */
import type { PodSummaryData } from '../../../tools/format/pod-status.ts';
import type { Gathered } from '../case.ts';
import { readRestartHistory } from '../history/restart-history.ts';
import { pickWorstPod } from '../pods.ts';
import type { Gathering } from './gathering.ts';

/**
 * Follows the pod most worth a look, when one is in trouble now or crashed within the last
 * half hour; for a workload `wellNow` (every replica there and ready), the one that restarted last.
 */
export function followWorstPod(
  known: Gathered,
  pods: readonly PodSummaryData[],
  gathering: Gathering,
  wellNow = false,
): Gathered {
  const { query } = gathering;
  // Pods stranded on a node (Terminating or Unknown there): if that node is lost, it is why the others are missing or Pending.
  const stranded = pods.find((pod) => pod.node && STRANDED_STATUSES.has(pod.status));
  if (stranded?.node) {
    const node = query.data('list_nodes', { name: stranded.node })?.nodes[0];
    query.barrier();
    if (node && !node.ready) return gathering.node({ kind: 'node', name: node.name });
  }
  const now = query.clusterNow().getTime();
  const recentlyFailed = (pod: PodSummaryData): boolean => {
    const finished = pod.problem?.state.finishedAt ? Date.parse(pod.problem.state.finishedAt) : Number.NaN;
    return !Number.isNaN(finished) && now - finished < RECENT_FAILURE_MS;
  };
  const worst =
    pickWorstPod(pods.filter((pod) => !pod.healthy || recentlyFailed(pod) || restartsAtPace(pod, now))) ??
    (wellNow ? lastRestarted(pods) : undefined);
  if (!worst) return known;
  return gathering.pod({ namespace: worst.namespace, name: worst.name }, known);
}

const RECENT_FAILURE_MS = 30 * 60 * 1000;

/** With every pod well, the one that restarted last: its earlier run's log says what the workload went through (the dependency it lost). */
function lastRestarted(pods: readonly PodSummaryData[]): PodSummaryData | undefined {
  const finished = (pod: PodSummaryData): number =>
    Date.parse(pod.lastTermination?.state.finishedAt ?? pod.problem?.state.finishedAt ?? '') || 0;
  return pods
    .filter((pod) => pod.restarts > 0 && finished(pod) > 0)
    .sort((left, right) => finished(right) - finished(left))[0];
}

const STRANDED_STATUSES = new Set(['Terminating', 'Unknown', 'NodeLost']);

/** A pod that runs now but restarts at a steady pace (a slow leak) is in trouble however quiet it looks. */
export function restartsAtPace(pod: PodSummaryData, now: number): boolean {
  const finished = pod.problem?.state.finishedAt ?? pod.lastTermination?.state.finishedAt;
  if (!finished || pod.ageSeconds === undefined) return false;
  const history = readRestartHistory({
    restartCount: pod.restarts,
    podAgeSeconds: pod.ageSeconds,
    runningForSeconds: Math.max(0, (now - Date.parse(finished)) / 1000),
  });
  return history?.ongoing === true;
}
