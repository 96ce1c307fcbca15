/**
 * Events as an SRE scans them: newest first, repeats folded into one line with a count,
 * the same message about sibling objects (pods of one ReplicaSet) folded together.
 */
import type { CoreV1Event } from '@kubernetes/client-node';
import { toDate } from '../../cluster/cluster.ts';
import { formatAge, formatDuration } from './age.ts';
import { oneLine, shortenKubeletMessage } from './pod-status.ts';

export interface EventData {
  type: string;
  reason: string;
  message: string;
  /** Occurrences, summed over the folded events. */
  count: number;
  firstSeen?: string;
  lastSeen?: string;
  /** Seconds before the cluster's now. */
  lastSeenAgeSeconds?: number;
  object: { kind: string; name: string; namespace?: string };
  /** Other objects the same event was reported for (sibling pods), when folded. */
  otherObjects?: string[];
  source?: string;
}

function lastSeenOf(event: CoreV1Event): Date | undefined {
  return (
    toDate(event.lastTimestamp) ??
    toDate(event.series?.lastObservedTime) ??
    toDate(event.eventTime) ??
    toDate(event.firstTimestamp) ??
    toDate(event.metadata?.creationTimestamp)
  );
}

function firstSeenOf(event: CoreV1Event): Date | undefined {
  return toDate(event.firstTimestamp) ?? toDate(event.eventTime) ?? lastSeenOf(event);
}

/** Replaces the object's own name in its message, so the same message about two pods folds. */
function normalizeMessage(message: string, objectName: string): string {
  // A controller's "Error creating: pods \"web-6c9f7d8b4d-dm9nb\" is forbidden" names a new random pod each try: one failure, many names.
  const generic = message.replace(GENERATED_NAME, '$1-<generated>');
  return objectName ? generic.split(objectName).join('<object>') : generic;
}

/** The random suffix Kubernetes gives generated names (generateName): five characters of its consonant-and-digit alphabet. */
const GENERATED_NAME = /\b([a-z0-9][a-z0-9.-]*)-[bcdfghjklmnpqrstvwxz2456789]{5}\b/g;

/** Folds repeats and siblings, newest first. */
export function foldEvents(events: readonly CoreV1Event[], now: Date): EventData[] {
  const groups = new Map<string, { data: EventData; first?: Date; last?: Date; objects: Set<string> }>();
  for (const event of events) {
    const object = event.involvedObject;
    const message = (event.message ?? '').trim();
    const key = [event.type, event.reason, object.kind, normalizeMessage(message, object.name ?? '')].join('\u0000');
    const first = firstSeenOf(event);
    const last = lastSeenOf(event);
    const count = event.count ?? event.series?.count ?? 1;
    const group = groups.get(key);
    if (!group) {
      groups.set(key, {
        data: {
          type: event.type ?? 'Normal',
          reason: event.reason ?? '',
          message,
          count,
          object: {
            kind: object.kind ?? '',
            name: object.name ?? '',
            ...(object.namespace ? { namespace: object.namespace } : {}),
          },
          ...(event.source?.component ? { source: event.source.component } : {}),
        },
        ...(first ? { first } : {}),
        ...(last ? { last } : {}),
        objects: new Set([object.name ?? '']),
      });
      continue;
    }
    group.data.count += count;
    group.objects.add(object.name ?? '');
    if (first && (!group.first || first < group.first)) group.first = first;
    if (last && (!group.last || last > group.last)) {
      group.last = last;
      // The newest report names the object and carries the message.
      group.data.object = {
        kind: object.kind ?? '',
        name: object.name ?? '',
        ...(object.namespace ? { namespace: object.namespace } : {}),
      };
      group.data.message = message;
    }
  }
  return [...groups.values()]
    .map(({ data, first, last, objects }) => {
      const others = [...objects].filter((name) => name !== data.object.name);
      return {
        ...data,
        ...(first ? { firstSeen: first.toISOString() } : {}),
        ...(last
          ? {
              lastSeen: last.toISOString(),
              lastSeenAgeSeconds: Math.max(0, Math.round((now.getTime() - last.getTime()) / 1000)),
            }
          : {}),
        ...(others.length ? { otherObjects: others } : {}),
      };
    })
    .sort((left, right) => (right.lastSeen ?? '').localeCompare(left.lastSeen ?? ''));
}

/**
 * `3m ago Warning BackOff pod/web-1 (x42 over 20m): Back-off restarting failed container`.
 * `withObject: false` drops the object when the caller already named it; `withType: false` the type, under a heading that says it.
 */
export function formatEvent(
  event: EventData,
  now: Date,
  options: { withObject: boolean; withType?: boolean; messageLimit?: number },
): string {
  const age = event.lastSeen ? `${formatAge(event.lastSeen, now)} ago` : 'time unknown';
  const span =
    event.firstSeen && event.lastSeen ? new Date(event.lastSeen).getTime() - new Date(event.firstSeen).getTime() : 0;
  const repeats = event.count > 1 ? ` (x${event.count}${span > 0 ? ` over ${formatDuration(span)}` : ''})` : '';
  const others = event.otherObjects?.length ? ` and ${event.otherObjects.length} sibling(s)` : '';
  const object = options.withObject ? ` ${event.object.kind.toLowerCase()}/${event.object.name}${others}` : '';
  const type = options.withType === false ? '' : `${event.type} `;
  return `${age} ${type}${event.reason}${object}${repeats}: ${oneLine(shortenKubeletMessage(event.message), options.messageLimit ?? 600)}`;
}

/** Normal events every pod start produces; they are counted, not listed, beside the events that explain something. */
const ROUTINE_REASONS: ReadonlySet<string> = new Set([
  'Scheduled',
  'Pulling',
  'Pulled',
  'Created',
  'Started',
  'SuccessfulCreate',
]);

export function isRoutineEvent(event: EventData): boolean {
  return event.type === 'Normal' && ROUTINE_REASONS.has(event.reason);
}

/** `routine: Created x9, Started x9, Pulled x9, Scheduled (newest 2m49s ago)`: the routine events in one line. */
export function formatRoutineEvents(events: readonly EventData[], now: Date): string | undefined {
  if (events.length === 0) return undefined;
  const counts = new Map<string, number>();
  for (const event of events) counts.set(event.reason, (counts.get(event.reason) ?? 0) + event.count);
  const newest = events
    .map((event) => event.lastSeen ?? '')
    .sort()
    .at(-1);
  const parts = [...counts].map(([reason, count]) => `${reason}${count > 1 ? ` x${count}` : ''}`);
  return `routine: ${parts.join(', ')}${newest ? ` (newest ${formatAge(newest, now)} ago)` : ''}`;
}
