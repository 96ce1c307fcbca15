/**
 * Reading pod summaries: the workload a pod (or its controller) belongs to, read from
 * names the way controllers make them, and the pod most worth a look.
 */
import type { PodSummaryData } from '../../tools/format/pod-status.ts';
import type { WorkloadKind } from './case.ts';

/**
 * The workload behind a controller, read from its name the way controllers name things:
 * a ReplicaSet `<deployment>-<hash>` is its Deployment's; a Job stays a Job (a CronJob
 * above it is read from the Job itself); the others are their own workload.
 */
export function workloadOfController(controller: { kind: string; name: string }): { workloadKind: WorkloadKind; name: string } | undefined {
  if (controller.kind === 'ReplicaSet') {
    const match = /^(.+)-[a-z0-9]{5,10}$/.exec(controller.name);
    return match ? { workloadKind: 'Deployment', name: match[1]! } : undefined;
  }
  if (['Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob'].includes(controller.kind)) return { workloadKind: controller.kind as WorkloadKind, name: controller.name };
  return undefined;
}

/** The workload a pod summary points at; a Job named `<cronjob>-<schedule time>` is taken for its CronJob's. */
export function workloadOfPod(pod: PodSummaryData): { workloadKind: WorkloadKind; name: string } | undefined {
  if (!pod.owner) return undefined;
  const cronJob = pod.owner.kind === 'Job' ? /^(.+)-\d{6,}$/.exec(pod.owner.name) : null;
  return cronJob ? { workloadKind: 'CronJob', name: cronJob[1]! } : workloadOfController(pod.owner);
}

/** The pod most worth a look: unhealthy first, then with a named problem, more restarts, younger. */
export function pickWorstPod(pods: readonly PodSummaryData[]): PodSummaryData | undefined {
  const rank = (pod: PodSummaryData): number[] => [
    pod.healthy ? 1 : 0,
    pod.problem ? 0 : 1,
    pod.status === 'Terminating' ? 1 : 0,
    -pod.restarts,
    pod.ageSeconds ?? Number.MAX_SAFE_INTEGER,
  ];
  return [...pods].sort((left, right) => compareRanks(rank(left), rank(right)))[0];
}

function compareRanks(left: number[], right: number[]): number {
  for (let index = 0; index < left.length; index++) {
    const difference = (left[index] ?? 0) - (right[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}
