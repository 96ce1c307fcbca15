/**
 * Small readers and formatters the rules share: how recent an event is, how long ago a
 * time was on the cluster's clock, and how a container state, an event or a log line is
 * quoted in evidence.
 */
import type { ContainerStateData } from '../../tools/format/pod-status.ts';
import type { EventData } from '../../tools/format/events.ts';
import type { Case } from './case.ts';

/** Warning events newer than this mean the trouble is still going on. */
const RECENT_WARNING_SECONDS = 15 * 60;

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
  return (
    line
      .replace(/^\S*\d{2}:\d{2}:\d{2}\S*\s+/, '')
      .replace(/^(\[?(ERROR|FATAL|WARN|WARNING|INFO|CRITICAL|PANIC)\]?:?\s+)/i, '')
      // Spring Boot's "PID --- [app] [thread] logger : " and a client's "[Consumer clientId=...] ".
      .replace(/^\d+ --- (\[[^\]]*\]\s*)+\S+\s+:\s+/, '')
      .replace(/^\[(Consumer|Producer|AdminClient) [^\]]*\]\s+/, '')
      .slice(0, 240)
  );
}

export function stateLine(state: ContainerStateData): string {
  return `${state.reason ?? state.state}${state.message ? `: ${state.message.replace(/\s+/g, ' ').trim()}` : ''}`;
}

export function eventLine(event: EventData): string {
  const count = event.count > 1 ? ` (x${event.count})` : '';
  return `event ${event.type} ${event.reason} on ${event.object.kind} ${event.object.name}${count}: ${event.message.replace(/\s+/g, ' ').trim()}`;
}

/** Which revision runs now, and when it replaced the one before: a fix already rolled out is why the alert no longer holds. */
export function revisionEvidence(gathered: Case): string[] {
  const deployment = gathered.deployment;
  const current = deployment?.revisions.find((revision) => revision.revision === deployment.currentRevision);
  if (!deployment || !current) return [];
  const age = current.ageSeconds !== undefined ? `, rolled out ${Math.round(current.ageSeconds / 60)} minutes ago` : '';
  const previous = [...deployment.revisions].reverse().find((revision) => revision.revision < current.revision);
  const replaced = previous ? `, replacing revision ${previous.revision} (${previous.images.join(' ')})` : '';
  return [
    `Deployment ${deployment.summary.namespace}/${deployment.summary.name} runs revision ${current.revision} (${current.images.join(' ')})${age}${replaced}: ${deployment.summary.ready}/${deployment.summary.desired} ready`,
  ];
}
