/**
 * The pod row of `kubectl get pods`, computed as the API server's printer does
 * (`printPod` in pkg/printers/internalversion): READY counts ready containers (and started
 * restartable init containers), STATUS walks init containers then containers from the last
 * (`Init:0/1`, `Init:CrashLoopBackOff`, `CrashLoopBackOff`, `Completed`, `Terminating`, ...),
 * RESTARTS carries "(N ago)" of the last termination.
 */
import { humanDuration } from './duration.ts';
import type { KubeObject } from './types.ts';

interface ContainerState {
  waiting?: { reason?: string; message?: string };
  running?: { startedAt?: string };
  terminated?: {
    reason?: string;
    exitCode?: number;
    signal?: number;
    startedAt?: string;
    finishedAt?: string;
    message?: string;
  };
}

export interface ContainerStatus {
  name: string;
  ready?: boolean;
  started?: boolean;
  restartCount?: number;
  image?: string;
  state?: ContainerState;
  lastState?: ContainerState;
}

interface Condition {
  type: string;
  status: string;
  reason?: string;
}

export interface PodShape extends KubeObject {
  spec?: {
    nodeName?: string;
    containers?: { name: string; image?: string }[];
    initContainers?: { name: string; image?: string; restartPolicy?: string }[];
    readinessGates?: { conditionType: string }[];
  };
  status?: {
    phase?: string;
    reason?: string;
    podIP?: string;
    podIPs?: { ip: string }[];
    nominatedNodeName?: string;
    conditions?: Condition[];
    containerStatuses?: ContainerStatus[];
    initContainerStatuses?: ContainerStatus[];
  };
}

export interface PodSummary {
  name: string;
  ready: string;
  status: string;
  restarts: string;
  age: string;
  ip: string;
  node: string;
  nominatedNode: string;
  readinessGates: string;
  /** Set for Succeeded and Failed pods, as the server's row conditions. */
  completed?: 'Succeeded' | 'Failed';
}

function timeOf(value: string | undefined): number {
  const parsed = value ? Date.parse(value) : NaN;
  return Number.isNaN(parsed) ? 0 : parsed;
}

function since(value: string | undefined, now: number): string {
  const time = timeOf(value);
  return time === 0 ? '<unknown>' : humanDuration(now - time);
}

export function summarizePod(pod: PodShape, now: number): PodSummary {
  const spec = pod.spec ?? {};
  const status = pod.status ?? {};
  const phase = status.phase ?? '';
  let reason = status.reason || phase;
  for (const condition of status.conditions ?? []) {
    if (condition.type === 'PodScheduled' && condition.reason === 'SchedulingGated') reason = 'SchedulingGated';
  }
  const initSpecs = new Map((spec.initContainers ?? []).map((container) => [container.name, container]));
  const isRestartable = (name: string): boolean => initSpecs.get(name)?.restartPolicy === 'Always';
  const totalContainers =
    (spec.containers ?? []).length +
    (spec.initContainers ?? []).filter((container) => container.restartPolicy === 'Always').length;
  let readyContainers = 0;
  let restarts = 0;
  let restartableRestarts = 0;
  let lastRestart = 0;
  let lastRestartableRestart = 0;

  let initializing = false;
  const initStatuses = status.initContainerStatuses ?? [];
  for (let index = 0; index < initStatuses.length; index++) {
    const container = initStatuses[index];
    if (!container) continue;
    restarts += container.restartCount ?? 0;
    const finished = timeOf(container.lastState?.terminated?.finishedAt);
    if (finished > lastRestart) lastRestart = finished;
    if (isRestartable(container.name)) {
      restartableRestarts += container.restartCount ?? 0;
      if (finished > lastRestartableRestart) lastRestartableRestart = finished;
    }
    const terminated = container.state?.terminated;
    const waiting = container.state?.waiting;
    if (terminated && (terminated.exitCode ?? 0) === 0) continue;
    if (isRestartable(container.name) && container.started) {
      if (container.ready) readyContainers++;
      continue;
    }
    if (terminated) {
      if (!terminated.reason)
        reason = terminated.signal ? `Init:Signal:${terminated.signal}` : `Init:ExitCode:${terminated.exitCode ?? 0}`;
      else reason = `Init:${terminated.reason}`;
    } else if (waiting?.reason && waiting.reason !== 'PodInitializing') {
      reason = `Init:${waiting.reason}`;
    } else {
      reason = `Init:${index}/${(spec.initContainers ?? []).length}`;
    }
    initializing = true;
    break;
  }

  const initialized = (status.conditions ?? []).some(
    (condition) => condition.type === 'Initialized' && condition.status === 'True',
  );
  if (!initializing || initialized) {
    restarts = restartableRestarts;
    lastRestart = lastRestartableRestart;
    let hasRunning = false;
    const statuses = status.containerStatuses ?? [];
    for (let index = statuses.length - 1; index >= 0; index--) {
      const container = statuses[index];
      if (!container) continue;
      restarts += container.restartCount ?? 0;
      const finished = timeOf(container.lastState?.terminated?.finishedAt);
      if (finished > lastRestart) lastRestart = finished;
      const state = container.state ?? {};
      if (state.waiting?.reason) reason = state.waiting.reason;
      else if (state.terminated?.reason) reason = state.terminated.reason;
      else if (state.terminated)
        reason = state.terminated.signal
          ? `Signal:${state.terminated.signal}`
          : `ExitCode:${state.terminated.exitCode ?? 0}`;
      else if (container.ready && state.running) {
        hasRunning = true;
        readyContainers++;
      }
    }
    if (reason === 'Completed' && hasRunning) {
      const podReady = (status.conditions ?? []).some(
        (condition) => condition.type === 'Ready' && condition.status === 'True',
      );
      reason = podReady ? 'Running' : 'NotReady';
    }
  }

  if (pod.metadata.deletionTimestamp && status.reason === 'NodeLost') reason = 'Unknown';
  else if (pod.metadata.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';

  const restartText =
    restarts !== 0 && lastRestart !== 0 ? `${restarts} (${humanDuration(now - lastRestart)} ago)` : String(restarts);
  let readinessGates = '<none>';
  if ((spec.readinessGates ?? []).length > 0) {
    const gates = spec.readinessGates ?? [];
    const passed = gates.filter(
      (gate) => (status.conditions ?? []).find((condition) => condition.type === gate.conditionType)?.status === 'True',
    ).length;
    readinessGates = `${passed}/${gates.length}`;
  }
  return {
    name: pod.metadata.name,
    ready: `${readyContainers}/${totalContainers}`,
    status: reason,
    restarts: restartText,
    age: since(pod.metadata.creationTimestamp, now),
    ip: status.podIPs?.[0]?.ip || status.podIP || '<none>',
    node: spec.nodeName || '<none>',
    nominatedNode: status.nominatedNodeName || '<none>',
    readinessGates,
    ...(phase === 'Succeeded' || phase === 'Failed' ? { completed: phase } : {}),
  };
}
