/**
 * Reading a pod's containers: the one in trouble, how its last run ended, and how often it
 * restarts. Gathering reads it to choose whose log to read, the rules to choose what to
 * judge; it reads no tool.
 */
import type { ContainerStateData, ContainerStatusData } from '../../tools/format/pod-status.ts';
import type { Case } from './case.ts';
import { secondsAgo } from './evidence.ts';
import { readRestartHistory, type RestartHistory } from './history/restart-history.ts';

/** The container in trouble: a failing init container first, then a waiting, crashed or unready one. */
export function troubledContainer(containers: readonly ContainerStatusData[]): ContainerStatusData | undefined {
  // An init container that waits, failed, restarts, or still runs while the app waits for it, holds the pod back.
  const regularWaiting = containers.some(
    (container) =>
      !container.init && container.state.state === 'waiting' && container.state.reason === 'PodInitializing',
  );
  const failingInit = containers.find(
    (container) =>
      container.init &&
      (container.state.state === 'waiting' ||
        (container.state.state === 'terminated' && container.state.exitCode !== 0) ||
        (container.restartCount > 0 && container.state.state !== 'terminated') ||
        (container.state.state === 'running' && regularWaiting)),
  );
  if (failingInit) return failingInit;
  const regular = containers.filter((container) => !container.init);
  return (
    regular.find((container) => container.state.state === 'waiting' && container.state.reason !== 'PodInitializing') ??
    regular.find(
      (container) => container.lastState?.state === 'terminated' || container.state.state === 'terminated',
    ) ??
    regular.find((container) => !container.ready && container.state.state === 'running') ??
    regular.find((container) => container.restartCount > 0)
  );
}

export function lastTermination(container: ContainerStatusData): ContainerStateData | undefined {
  if (container.state.state === 'terminated') return container.state;
  return container.lastState?.state === 'terminated' ? container.lastState : undefined;
}

/**
 * How often a container restarts, read through history/restart-history.ts: the pace of its
 * restarts up to the last one, and whether the run now has outlived it ("crashed 14 times
 * in 56 hours, up for 3 hours" will crash again; "3 times in its first hours, up for 2 days
 * since" has recovered).
 */
export function restartHistoryOf(container: ContainerStatusData, gathered: Case): RestartHistory | undefined {
  const age = gathered.pod?.ageSeconds;
  const started =
    container.state.state === 'running' && container.state.startedAt
      ? secondsAgo(container.state.startedAt, gathered)
      : undefined;
  if (age === undefined || started === undefined) return undefined;
  const last = container.lastState?.state === 'terminated' ? container.lastState : undefined;
  return readRestartHistory({
    restartCount: container.restartCount,
    podAgeSeconds: age,
    runningForSeconds: started,
    ...(last?.reason ? { lastReason: last.reason } : {}),
    ...(last?.exitCode !== undefined ? { lastExitCode: last.exitCode } : {}),
  });
}
