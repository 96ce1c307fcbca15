/**
 * A pod's state as an SRE reads it: the STATUS column kubectl would print, each
 * container's current and last state with reasons, messages and exit codes, and whether
 * the pod is healthy, so lists can put trouble first.
 */
import type { V1ContainerState, V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import { ageSeconds, formatAge, toIso } from './age.ts';

export interface ContainerStateData {
  state: 'waiting' | 'running' | 'terminated' | 'unknown';
  reason?: string;
  message?: string;
  exitCode?: number;
  signal?: number;
  startedAt?: string;
  finishedAt?: string;
}

export interface ContainerStatusData {
  name: string;
  init: boolean;
  image: string;
  ready: boolean;
  restartCount: number;
  state: ContainerStateData;
  /** The previous run, when the container has restarted (where OOMKilled shows once the container is back). */
  lastState?: ContainerStateData;
}

export interface PodSummaryData {
  namespace: string;
  name: string;
  /** What kubectl prints in STATUS: `Running`, `CrashLoopBackOff`, `Init:Error`, `Pending`, `OOMKilled`... */
  status: string;
  phase: string;
  /** Ready containers over containers, e.g. `0/1`. */
  ready: string;
  restarts: number;
  /** The most telling container problem: a waiting reason, or the last termination. */
  problem?: { container: string; state: ContainerStateData; last: boolean };
  /** The previous run's end when `problem` is a current state (a CrashLoopBackOff's `Error exit 1` or `OOMKilled exit 137`). */
  lastTermination?: { container: string; state: ContainerStateData };
  /** The scheduler's message while the pod cannot be placed (PodScheduled False). */
  unschedulable?: string;
  /** Why the kubelet evicted the pod (`status.reason` Evicted): its message, e.g. `The node was low on resource: ephemeral-storage. ...`. */
  evicted?: string;
  node?: string;
  ageSeconds?: number;
  owner?: { kind: string; name: string };
  healthy: boolean;
}

export function readContainerState(state: V1ContainerState | undefined): ContainerStateData | undefined {
  if (!state) return undefined;
  if (state.waiting) {
    return {
      state: 'waiting',
      ...(state.waiting.reason ? { reason: state.waiting.reason } : {}),
      ...(state.waiting.message ? { message: state.waiting.message } : {}),
    };
  }
  if (state.terminated) {
    const terminated = state.terminated;
    const startedAt = toIso(terminated.startedAt);
    const finishedAt = toIso(terminated.finishedAt);
    return {
      state: 'terminated',
      ...(terminated.reason ? { reason: terminated.reason } : {}),
      ...(terminated.message ? { message: terminated.message } : {}),
      exitCode: terminated.exitCode,
      ...(terminated.signal !== undefined ? { signal: terminated.signal } : {}),
      ...(startedAt ? { startedAt } : {}),
      ...(finishedAt ? { finishedAt } : {}),
    };
  }
  if (state.running) {
    const startedAt = toIso(state.running.startedAt);
    return { state: 'running', ...(startedAt ? { startedAt } : {}) };
  }
  return undefined;
}

function readStatus(status: V1ContainerStatus, init: boolean): ContainerStatusData {
  const lastState = readContainerState(status.lastState);
  return {
    name: status.name,
    init,
    image: status.image,
    ready: status.ready,
    restartCount: status.restartCount,
    state: readContainerState(status.state) ?? { state: 'unknown' },
    ...(lastState ? { lastState } : {}),
  };
}

/** Init containers first, then the others; containers the kubelet has not reported yet are `unknown`. */
export function readContainerStatuses(pod: V1Pod): ContainerStatusData[] {
  const reported = [
    ...(pod.status?.initContainerStatuses ?? []).map((status) => readStatus(status, true)),
    ...(pod.status?.containerStatuses ?? []).map((status) => readStatus(status, false)),
  ];
  const known = new Set(reported.map((status) => `${status.init}/${status.name}`));
  const missing = [
    ...(pod.spec?.initContainers ?? []).map((container) => ({ container, init: true })),
    ...(pod.spec?.containers ?? []).map((container) => ({ container, init: false })),
  ]
    .filter(({ container, init }) => !known.has(`${init}/${container.name}`))
    .map(({ container, init }): ContainerStatusData => ({
      name: container.name,
      init,
      image: container.image ?? '',
      ready: false,
      restartCount: 0,
      state: { state: 'unknown' },
    }));
  return [...reported, ...missing];
}

/** kubectl's STATUS column (printers.go `printPod`), reduced to the cases incidents produce. */
export function describePodStatus(pod: V1Pod): string {
  if (pod.metadata?.deletionTimestamp) return 'Terminating';
  let status = pod.status?.reason ?? pod.status?.phase ?? 'Unknown';
  const initStatuses = pod.status?.initContainerStatuses ?? [];
  const initTotal = pod.spec?.initContainers?.length ?? 0;
  for (const [index, container] of initStatuses.entries()) {
    const terminated = container.state?.terminated;
    const waiting = container.state?.waiting;
    if (terminated && terminated.exitCode === 0) continue;
    if (terminated)
      return `Init:${terminated.reason || (terminated.signal ? `Signal:${terminated.signal}` : `ExitCode:${terminated.exitCode}`)}`;
    if (waiting?.reason && waiting.reason !== 'PodInitializing') return `Init:${waiting.reason}`;
    return `Init:${index}/${initTotal}`;
  }
  let running = false;
  for (const container of [...(pod.status?.containerStatuses ?? [])].reverse()) {
    if (container.state?.waiting?.reason) status = container.state.waiting.reason;
    else if (container.state?.terminated) {
      const terminated = container.state.terminated;
      status =
        terminated.reason || (terminated.signal ? `Signal:${terminated.signal}` : `ExitCode:${terminated.exitCode}`);
    } else if (container.ready && container.state?.running) running = true;
  }
  if (status === 'Completed' && running) status = 'Running';
  return status;
}

function isPodHealthy(pod: V1Pod, containers: ContainerStatusData[]): boolean {
  const phase = pod.status?.phase;
  if (phase === 'Succeeded') return true;
  if (phase !== 'Running' || pod.metadata?.deletionTimestamp) return false;
  return containers
    .filter((container) => !container.init)
    .every((container) => container.ready && container.state.state === 'running');
}

/** The container problem worth naming first: a waiting reason beats a termination, current beats last. */
function findProblem(containers: ContainerStatusData[]): PodSummaryData['problem'] {
  const waiting = containers.find(
    (container) =>
      container.state.state === 'waiting' && container.state.reason && container.state.reason !== 'PodInitializing',
  );
  if (waiting) return { container: waiting.name, state: waiting.state, last: false };
  const terminated = containers.find(
    (container) => container.state.state === 'terminated' && container.state.exitCode !== 0,
  );
  if (terminated) return { container: terminated.name, state: terminated.state, last: false };
  const restarted = [...containers]
    .filter((container) => container.lastState?.state === 'terminated')
    .sort((left, right) => right.restartCount - left.restartCount)[0];
  if (restarted?.lastState) return { container: restarted.name, state: restarted.lastState, last: true };
  return undefined;
}

/** The problem container's previous termination, else the most restarted container's; none when `problem` already is one. */
function findLastTermination(
  containers: ContainerStatusData[],
  problem: PodSummaryData['problem'],
): PodSummaryData['lastTermination'] {
  if (!problem || problem.last) return undefined;
  const own = containers.find(
    (container) => container.name === problem.container && container.lastState?.state === 'terminated',
  );
  const restarted =
    own ??
    [...containers]
      .filter((container) => container.lastState?.state === 'terminated')
      .sort((left, right) => right.restartCount - left.restartCount)[0];
  return restarted?.lastState ? { container: restarted.name, state: restarted.lastState } : undefined;
}

function findUnschedulable(pod: V1Pod): string | undefined {
  const condition = pod.status?.conditions?.find((entry) => entry.type === 'PodScheduled' && entry.status === 'False');
  return condition ? (condition.message ?? condition.reason ?? 'not scheduled') : undefined;
}

export function summarizePod(pod: V1Pod, now: Date): PodSummaryData {
  const containers = readContainerStatuses(pod);
  const regular = containers.filter((container) => !container.init);
  const owner =
    pod.metadata?.ownerReferences?.find((reference) => reference.controller) ?? pod.metadata?.ownerReferences?.[0];
  const problem = findProblem(containers);
  const lastTermination = findLastTermination(containers, problem);
  const unschedulable = findUnschedulable(pod);
  const age = ageSeconds(pod.metadata?.creationTimestamp, now);
  return {
    namespace: pod.metadata?.namespace ?? '',
    name: pod.metadata?.name ?? '',
    status: describePodStatus(pod),
    phase: pod.status?.phase ?? 'Unknown',
    ready: `${regular.filter((container) => container.ready).length}/${regular.length}`,
    restarts: regular.reduce((total, container) => total + container.restartCount, 0),
    ...(problem ? { problem } : {}),
    ...(lastTermination ? { lastTermination } : {}),
    ...(unschedulable ? { unschedulable } : {}),
    ...(pod.status?.reason === 'Evicted' ? { evicted: (pod.status.message ?? 'evicted').slice(0, 300) } : {}),
    ...(pod.spec?.nodeName ? { node: pod.spec.nodeName } : {}),
    ...(age !== undefined ? { ageSeconds: age } : {}),
    ...(owner ? { owner: { kind: owner.kind, name: owner.name } } : {}),
    healthy: isPodHealthy(pod, containers),
  };
}

/** `waiting CrashLoopBackOff (back-off 5m0s ...)`, `terminated OOMKilled exit 137, 3m ago`, `running since 2h`. */
export function formatContainerState(
  state: ContainerStateData,
  now: Date,
  options: { messageLimit?: number } = {},
): string {
  const limit = options.messageLimit ?? 300;
  const message = state.message ? `: ${oneLine(shortenKubeletMessage(state.message), limit)}` : '';
  switch (state.state) {
    case 'waiting':
      return `waiting ${state.reason ?? ''}${message}`.trim();
    case 'terminated': {
      const when = state.finishedAt ? `, ${formatAge(state.finishedAt, now)} ago` : '';
      const signal = state.signal ? ` signal ${state.signal}` : '';
      return `terminated ${state.reason ?? ''} exit ${state.exitCode ?? '?'}${signal}${when}${message}`.replace(
        'terminated  ',
        'terminated ',
      );
    }
    case 'running':
      return state.startedAt ? `running for ${formatAge(state.startedAt, now)}` : 'running';
    default:
      return 'not reported yet';
  }
}

/**
 * Kubelet boilerplate that repeats what the line already says: `back-off 5m0s restarting failed
 * container=app pod=app-1_ns(uid)` → `back-off 5m0s`; a long quoted string repeated → `(same)`.
 */
export function shortenKubeletMessage(message: string): string {
  const seen = new Set<string>();
  return (
    message
      .replace(/^(back-off \S+) restarting failed container=\S+ pod=\S+$/, '$1')
      .replace(/ in pod [^\s_]+_[^\s(]+\([0-9a-f-]{36}\)/, '')
      // Image pull errors quote the same image three times: keep the first.
      .replace(/"[^"]{20,}"/g, (quoted) => {
        if (seen.has(quoted)) return '(same)';
        seen.add(quoted);
        return quoted;
      })
  );
}

/** Folds whitespace and cuts a message to `limit` characters, marking the cut. */
export function oneLine(text: string, limit: number): string {
  const folded = text.replace(/\s+/g, ' ').trim();
  return folded.length > limit ? `${folded.slice(0, limit)}…` : folded;
}
