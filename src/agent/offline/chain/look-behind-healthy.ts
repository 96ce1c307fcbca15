/**
 * The hop behind a healthy look: a workload (or a namespace) someone alerted on whose pods
 * all run ready. One running pod's current log is read, and the first that says its
 * dependency fails now is followed on.
 */
import type { PodSummaryData } from '../../../tools/format/pod-status.ts';
import type { Case, Conclusion, Gathered } from '../case.ts';
import { classifyCase } from '../classify.ts';
import { createGathering } from '../gather/gather-case.ts';
import { mentionScore } from '../mentions.ts';
import { namespacePods } from '../narrow.ts';
import { workloadOfPod } from '../pods.ts';
import type { Query } from '../query.ts';
import type { FollowChain, HopInput } from './hop.ts';

/**
 * Every pod of the workload is running and ready, yet someone alerted on it: what one of
 * its pods logs now may say that every request fails on a dependency.
 */
export function lookBehindHealthy(input: HopInput): Conclusion {
  const { gathered, finding, query, hops } = input;
  const running = (gathered.workloadPods ?? []).filter((pod) => pod.phase === 'Running');
  const pod = [...running].sort((left, right) => right.restarts - left.restarts)[0];
  if (!pod) return { gathered, finding };
  const { clusterNow, ...known } = gathered;
  const failing = readPodThatLooksHealthy({ pod, known, clusterNow, query });
  return failing ? input.follow(failing.gathered, failing.finding, query, hops) : { gathered, finding };
}

/**
 * A namespace reported as failing where no pod, workload or Service visibly fails: one
 * running pod per workload (the ones the words name first) has its current log read, and
 * the first whose log says its dependency fails now is followed. At most MAX_PODS_READ.
 */
export function lookAcrossHealthyNamespace(input: {
  gathered: Case;
  query: Query;
  follow: FollowChain;
}): Conclusion | undefined {
  const { gathered, query } = input;
  const focus = gathered.focus;
  if (focus.kind !== 'namespace') return undefined;
  const pods = namespacePods(focus.namespace, query)?.pods ?? [];
  const byWorkload = new Map<string, PodSummaryData>();
  for (const pod of pods) {
    const workload = workloadOfPod(pod)?.name ?? pod.name;
    if (pod.phase === 'Running' && !byWorkload.has(workload)) byWorkload.set(workload, pod);
  }
  const ranked = [...byWorkload.entries()]
    .sort(([left], [right]) => mentionScore(right, focus.hint ?? '') - mentionScore(left, focus.hint ?? ''))
    .slice(0, MAX_PODS_READ);
  for (const [, pod] of ranked) {
    const failing = readPodThatLooksHealthy({ pod, known: { focus }, clusterNow: gathered.clusterNow, query });
    if (failing) return input.follow(failing.gathered, failing.finding, query, 1);
  }
  return undefined;
}

const MAX_PODS_READ = 4;

/**
 * A running pod that looks healthy, with its current log read: its case and finding when
 * that log says a dependency fails now. An old restart of a ready pod is history, not this.
 */
function readPodThatLooksHealthy(input: {
  pod: PodSummaryData;
  known: Gathered;
  clusterNow: Date;
  query: Query;
}): Conclusion | undefined {
  const { pod, query } = input;
  const podCase: Case = {
    clusterNow: input.clusterNow,
    ...createGathering(query).pod({ namespace: pod.namespace, name: pod.name }, input.known, { readHealthyLogs: true }),
  };
  const podFinding = classifyCase(podCase);
  return podFinding?.rule === 'ready-but-failing-dependency' ? { gathered: podCase, finding: podFinding } : undefined;
}
