/**
 * Ages as kubectl prints them ("45s", "6m30s", "2h13m", "3d4h"), measured against the
 * cluster's clock, and timestamps as ISO strings for structured data.
 */
import { toDate } from '../../cluster/cluster.ts';

/** kubectl's HumanDuration: two units while the larger one is small, one unit after. */
export function formatDuration(milliseconds: number): string {
  const seconds = Math.max(0, Math.floor(milliseconds / 1000));
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  const days = Math.floor(hours / 24);
  if (hours < 192) return hours % 24 === 0 ? `${days}d` : `${days}d${hours % 24}h`;
  if (days < 730) return `${days}d`;
  return `${Math.floor(days / 365)}y${days % 365 === 0 ? '' : `${days % 365}d`}`;
}

/** "5m" for a time five minutes before `now`; "?" when the time is unknown. */
export function formatAge(time: Date | string | undefined | null, now: Date): string {
  const date = toDate(time);
  return date ? formatDuration(now.getTime() - date.getTime()) : '?';
}

/** Seconds from `time` to `now`, for structured data; undefined when unknown. */
export function ageSeconds(time: Date | string | undefined | null, now: Date): number | undefined {
  const date = toDate(time);
  return date ? Math.max(0, Math.round((now.getTime() - date.getTime()) / 1000)) : undefined;
}

/** The ISO form of an API timestamp, for structured data. */
export function toIso(time: Date | string | undefined | null): string | undefined {
  return toDate(time)?.toISOString();
}
