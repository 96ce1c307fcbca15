/**
 * Which pods of a capture are in trouble, and why, read from their status the way
 * `kubectl get pods` shows it: a waiting reason (CrashLoopBackOff, ImagePullBackOff,
 * CreateContainerConfigError...), a last termination (OOMKilled, Error), a pod that is
 * Pending (Unschedulable), Failed (Evicted) or Unknown, a container that is not ready.
 * Their logs are captured, and the incident text is written from them.
 */
import type { CapturedObject } from './captured-object.ts';
import { isRecord, readPath } from './captured-object.ts';

export interface ContainerLogPlan {
  container: string;
  /** The container has started at least once: it may have a current log. */
  current: boolean;
  /** It restarted or terminated before: the previous container's log. */
  previous: boolean;
}

export interface PodTrouble {
  pod: CapturedObject;
  /** Short reasons, most telling first: `CrashLoopBackOff`, `OOMKilled`, `Unschedulable`, `not ready`. */
  reasons: string[];
  containers: ContainerLogPlan[];
}

type ContainerStatus = {
  name?: string;
  ready?: boolean;
  restartCount?: number;
  state?: Record<string, unknown>;
  lastState?: Record<string, unknown>;
};

function statuses(pod: CapturedObject, field: 'initContainerStatuses' | 'containerStatuses'): ContainerStatus[] {
  const list = readPath(pod, `status.${field}`);
  return Array.isArray(list) ? list.filter(isRecord) : [];
}

function reasonOf(state: Record<string, unknown> | undefined, which: 'waiting' | 'terminated'): string | undefined {
  const entry = state?.[which];
  return isRecord(entry) && typeof entry['reason'] === 'string' && entry['reason'] !== '' ? entry['reason'] : undefined;
}

/** When the capture was taken, and how far back a past termination still counts. */
export interface TroubleWindow {
  now: number;
  sinceMs: number;
}

function finishedWithin(state: Record<string, unknown> | undefined, window: TroubleWindow): boolean {
  const finished = Date.parse(String(readPath(state, 'terminated.finishedAt') ?? ''));
  return Number.isNaN(finished) || finished >= window.now - window.sinceMs;
}

/**
 * Why this pod is in trouble now (empty when it is not). A past termination counts while
 * the container is not ready, or when it ended inside the window: a restart days ago of a
 * container that has run fine since is history, not the incident.
 */
export function podReasons(pod: CapturedObject, window: TroubleWindow): string[] {
  const reasons: string[] = [];
  const phase = readPath(pod, 'status.phase');
  const podReason = readPath(pod, 'status.reason');
  if (typeof podReason === 'string' && podReason !== '') reasons.push(podReason);
  const init = statuses(pod, 'initContainerStatuses');
  const main = statuses(pod, 'containerStatuses');
  for (const status of [...init, ...main]) {
    const waiting = reasonOf(status.state, 'waiting');
    if (waiting && waiting !== 'PodInitializing') reasons.push(waiting);
    const terminated = reasonOf(status.state, 'terminated');
    const isInit = init.includes(status);
    if (terminated && terminated !== 'Completed' && phase !== 'Succeeded')
      reasons.push(isInit ? `init ${terminated}` : terminated);
    const last = reasonOf(status.lastState, 'terminated');
    const recent = status.ready === false || finishedWithin(status.lastState, window);
    if (last && last !== 'Completed' && (status.restartCount ?? 0) > 0 && recent) reasons.push(last);
  }
  if (phase === 'Pending' && main.length === 0) {
    const conditions = readPath(pod, 'status.conditions');
    const scheduled = Array.isArray(conditions)
      ? conditions.find((condition) => isRecord(condition) && condition['type'] === 'PodScheduled')
      : undefined;
    reasons.push(
      isRecord(scheduled) && scheduled['status'] === 'False'
        ? String(scheduled['reason'] ?? 'Unschedulable')
        : 'Pending',
    );
  }
  if (phase === 'Failed' || phase === 'Unknown') reasons.push(String(phase));
  if (phase === 'Running' && reasons.length === 0 && main.some((status) => status.ready === false))
    reasons.push('not ready');
  return [...new Set(reasons)];
}

/** The pods in trouble, with the logs worth reading; pods that completed or run healthy are left out. */
export function findFailingPods(pods: readonly CapturedObject[], window: TroubleWindow): PodTrouble[] {
  const troubles: PodTrouble[] = [];
  for (const pod of pods) {
    if (pod.kind !== 'Pod') continue;
    const reasons = podReasons(pod, window);
    if (reasons.length === 0) continue;
    const containers = [...statuses(pod, 'initContainerStatuses'), ...statuses(pod, 'containerStatuses')]
      .filter((status) => typeof status.name === 'string')
      .map((status) => ({
        container: status.name as string,
        current:
          status.state?.['running'] !== undefined ||
          status.state?.['terminated'] !== undefined ||
          (status.restartCount ?? 0) > 0,
        previous: (status.restartCount ?? 0) > 0 || isRecord(status.lastState?.['terminated']),
      }));
    troubles.push({ pod, reasons, containers });
  }
  return troubles;
}
