/**
 * Small readers and formatters the rules share: how recent an event is, how long ago a
 * time was on the cluster's clock, and how a container state, an event or a log line is
 * quoted in evidence.
 */
import type { ContainerStateData, ContainerStatusData } from '../../tools/format/pod-status.ts';
import type { EventData } from '../../tools/format/events.ts';
import type { Case } from './gather.ts';
import { readMissingReference } from './container-signals.ts';
import { troubledContainer } from './gather.ts';
import { isNodeExhaustion } from './signals/index.ts';

/** A restart that ended longer ago than this no longer counts as a current problem. */
export const RECOVERED_AFTER_SECONDS = 30 * 60;
/** Warning events newer than this mean the trouble is still going on. */
const RECENT_WARNING_SECONDS = 15 * 60;

/** Running and ready, its last crash long ago, and no recent warnings. */
export function isRecovered(gathered: Case): boolean {
  const pod = gathered.pod;
  if (!pod || pod.phase !== 'Running') return false;
  if (pod.containers.some((container) => !container.init && !container.ready)) return false;
  if (pod.events.some((event) => event.type === 'Warning' && isRecent(event))) return false;
  for (const container of pod.containers) {
    const finished = container.lastState?.finishedAt;
    if (finished && (secondsAgo(finished, gathered) ?? 0) < RECOVERED_AFTER_SECONDS) return false;
    // Killed for memory again and again: the limit is still too low, however quiet it is right now.
    if (container.lastState?.reason === 'OOMKilled' && container.restartCount >= RECURRING_OOM_RESTARTS) return false;
    if (restartPace(container, gathered)?.recurring) return false;
  }
  return true;
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

const RECURRING_OOM_RESTARTS = 3;

export function podSuffersFromNode(gathered: Case): boolean {
  const pod = gathered.pod!;
  if (pod.node !== gathered.node?.name) return false;
  if (troubledContainer(pod.containers) === undefined || ['Unknown', 'Terminating'].includes(pod.status)) return true;
  // A node short of process ids or memory, and a process that died for lack of threads or forks: the node's shortage.
  const log = gathered.logs;
  return (gathered.node?.pressures.length ?? 0) > 0 && log !== undefined && [...log.errorLines, ...log.lines].some((line) => isNodeExhaustion(line));
}

export function findMissingInEvents(events: EventData[]): ReturnType<typeof readMissingReference> {
  for (const event of events) {
    const missing = readMissingReference(event.message);
    if (missing) return missing;
  }
  return undefined;
}

export function lastTermination(container: ContainerStatusData): ContainerStateData | undefined {
  if (container.state.state === 'terminated') return container.state;
  return container.lastState?.state === 'terminated' ? container.lastState : undefined;
}

export function logEvidence(gathered: Case): string[] {
  const lines = gathered.logs?.errorLines.length ? gathered.logs.errorLines : [];
  return lines.slice(-2).map((line) => `log: ${line.trim()}`);
}

export function isRecent(event: EventData): boolean {
  return event.lastSeenAgeSeconds === undefined || event.lastSeenAgeSeconds < RECENT_WARNING_SECONDS;
}

export function secondsAgo(time: string, gathered: Case): number | undefined {
  const now = gathered.clusterNow.getTime();
  const then = Date.parse(time);
  return Number.isNaN(then) ? undefined : (now - then) / 1000;
}

/** A log line without its timestamp and level, for a summary sentence. */
export function stripLogPrefix(line: string): string {
  return line
    .replace(/^\S*\d{2}:\d{2}:\d{2}\S*\s+/, '')
    .replace(/^(\[?(ERROR|FATAL|WARN|WARNING|INFO|CRITICAL|PANIC)\]?:?\s+)/i, '')
    // Spring Boot's "PID --- [app] [thread] logger : " and a client's "[Consumer clientId=...] ".
    .replace(/^\d+ --- (\[[^\]]*\]\s*)+\S+\s+:\s+/, '')
    .replace(/^\[(Consumer|Producer|AdminClient) [^\]]*\]\s+/, '')
    .slice(0, 240);
}

export function stateLine(state: ContainerStateData): string {
  return `${state.reason ?? state.state}${state.message ? `: ${state.message.replace(/\s+/g, ' ').trim()}` : ''}`;
}

export function eventLine(event: EventData): string {
  const count = event.count > 1 ? ` (x${event.count})` : '';
  return `event ${event.type} ${event.reason} on ${event.object.kind} ${event.object.name}${count}: ${event.message.replace(/\s+/g, ' ').trim()}`;
}
