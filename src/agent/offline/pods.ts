/**
 * Reading pod summaries: the workload a pod (or its controller) belongs to, read from
 * names the way controllers make them, and the pod most worth a look.
 */
import type { PodSummaryData } from '../../tools/format/pod-status.ts';
import type { WorkloadKind } from './case.ts';
import type { FailingState } from './report-words.ts';

/**
 * The workload behind a controller, read from its name the way controllers name things:
 * a ReplicaSet `<deployment>-<hash>` is its Deployment's; a Job stays a Job (a CronJob
 * above it is read from the Job itself); the others are their own workload.
 */
export function workloadOfController(controller: {
  kind: string;
  name: string;
}): { workloadKind: WorkloadKind; name: string } | undefined {
  if (controller.kind === 'ReplicaSet') {
    const match = /^(.+)-[a-z0-9]{5,10}$/.exec(controller.name);
    return match ? { workloadKind: 'Deployment', name: match[1]! } : undefined;
  }
  if (['Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob'].includes(controller.kind))
    return { workloadKind: controller.kind as WorkloadKind, name: controller.name };
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

/** How a failing pod shows its trouble, in the terms a report's symptom words use; undefined for a healthy pod. */
export function failingStateOf(pod: PodSummaryData): FailingState | undefined {
  if (pod.healthy) return undefined;
  const status = pod.status;
  if (/ImagePull|ErrImage|InvalidImageName/.test(status)) return 'image-pull';
  if (pod.unschedulable || status === 'Pending' || (pod.phase === 'Pending' && !pod.problem)) return 'pending';
  if (
    /CrashLoop|Error|OOMKilled|ContainerCannotRun|StartError|RunContainerError/.test(status) ||
    (pod.restarts > 0 && pod.lastTermination)
  )
    return 'crashing';
  if (pod.phase === 'Failed') return 'failed-run';
  return pod.phase === 'Running' ? 'not-ready' : undefined;
}

/** A failed attempt of a Job that a later attempt completed: history, not trouble. */
export function retriedToSuccess(pod: PodSummaryData, pods: readonly PodSummaryData[]): boolean {
  if (pod.phase !== 'Failed' || pod.owner?.kind !== 'Job') return false;
  const job = pod.owner.name;
  return pods.some(
    (other) =>
      other.namespace === pod.namespace &&
      other.owner?.kind === 'Job' &&
      other.owner.name === job &&
      other.phase === 'Succeeded',
  );
}

/**
 * Of the pods in trouble, those whose workload has no healthy pod left (an outage), when
 * there are such; otherwise all of them (a stuck rollout beside healthy replicas is the lesser story).
 */
export function podsOfWorkloadsDown(
  troubled: readonly PodSummaryData[],
  pods: readonly PodSummaryData[],
): readonly PodSummaryData[] {
  const key = (pod: PodSummaryData): string => `${pod.namespace}/${workloadOfPod(pod)?.name ?? pod.name}`;
  const serving = new Set(pods.filter((pod) => pod.healthy && pod.phase === 'Running').map(key));
  // Only what runs to serve can be down: a Job's pod ends by design.
  const servesLongRunning = (pod: PodSummaryData): boolean => LONG_RUNNING.has(workloadOfPod(pod)?.workloadKind ?? '');
  const down = troubled.filter((pod) => servesLongRunning(pod) && !serving.has(key(pod)));
  return down.length > 0 ? down : troubled;
}

const LONG_RUNNING: ReadonlySet<string> = new Set(['Deployment', 'StatefulSet', 'DaemonSet']);
