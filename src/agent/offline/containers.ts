/**
 * Reading a pod's containers: the one in trouble, how its last run ended, and how often it
 * restarts. Gathering reads it to choose whose log to read, the rules to choose what to
 * judge; it reads no tool.
 */
import type { ContainerStateData, ContainerStatusData } from '../../tools/format/pod-status.ts';
import type { Case } from './case.ts';
import { secondsAgo } from './evidence.ts';

/** The container in trouble: a failing init container first, then a waiting, crashed or unready one. */
export function troubledContainer(containers: readonly ContainerStatusData[]): ContainerStatusData | undefined {
  // An init container that waits, failed, restarts, or still runs while the app waits for it, holds the pod back.
  const regularWaiting = containers.some((container) => !container.init && container.state.state === 'waiting' && container.state.reason === 'PodInitializing');
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
    regular.find((container) => container.lastState?.state === 'terminated' || container.state.state === 'terminated') ??
    regular.find((container) => !container.ready && container.state.state === 'running') ??
    regular.find((container) => container.restartCount > 0)
  );
}

export function lastTermination(container: ContainerStatusData): ContainerStateData | undefined {
  if (container.state.state === 'terminated') return container.state;
  return container.lastState?.state === 'terminated' ? container.lastState : undefined;
}

/**
 * How often a container restarts: its restarts spread over the pod's life give the pace,
 * and a current run shorter than twice that interval is no recovery ("crashed 5 times in
 * 4 hours, up for 40 minutes" will crash again; "5 times in its first 10 minutes, up for
 * 3 hours since" has recovered).
 */
export function restartPace(container: ContainerStatusData, gathered: Case): { intervalSeconds: number; uptimeSeconds: number; recurring: boolean } | undefined {
  const age = gathered.pod?.ageSeconds;
  const started = container.state.state === 'running' && container.state.startedAt ? secondsAgo(container.state.startedAt, gathered) : undefined;
  if (container.restartCount < RECURRING_RESTARTS || age === undefined || started === undefined) return undefined;
  const intervalSeconds = age / (container.restartCount + 1);
  // A handful of restarts over weeks (a database restart once) sets no pace.
  return { intervalSeconds, uptimeSeconds: started, recurring: intervalSeconds <= MAX_RECURRING_INTERVAL_SECONDS && started < 2 * intervalSeconds };
}

const RECURRING_RESTARTS = 4;

const MAX_RECURRING_INTERVAL_SECONDS = 6 * 3600;
