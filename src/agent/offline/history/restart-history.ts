/**
 * History, not a snapshot. A container that runs now may have restarted a dozen times at
 * a steady pace: it has not recovered, its next crash is due. The pace is the time from
 * the pod's start to its last restart over the restarts in it; the run now is compared
 * with it. Recovered means the pace stopped: the current run has lasted far longer than
 * the runs before it did.
 */

export interface RestartFacts {
  restartCount: number;
  /** Seconds since the pod started. */
  podAgeSeconds: number;
  /** Seconds since the current run started (the last restart). */
  runningForSeconds: number;
  /** How the previous run ended. */
  lastReason?: string;
  lastExitCode?: number;
  /** The container's memory limit, when it has one (`512Mi`). */
  memoryLimit?: string;
}

export interface RestartHistory {
  count: number;
  /** Mean seconds between restarts, up to the last one. */
  paceSeconds: number;
  sinceLastSeconds: number;
  /** The pace goes on: the current run has not outlived the runs before it. */
  ongoing: boolean;
  lastReason?: string;
}

/** A pace needs a few restarts to be one; fewer are incidents of their own. */
export const MIN_RESTARTS_FOR_PACE = 3;
/** Restarts further apart than this set no pace: a handful over days is a dependency's bad hour now and then, not a leak. */
export const MAX_PACE_SECONDS = 12 * 3600;
/** The current run has outlived the pace this many times over: the pace stopped. */
export const RECOVERED_AFTER_PACES = 3;

export function readRestartHistory(facts: RestartFacts): RestartHistory | undefined {
  if (facts.restartCount < MIN_RESTARTS_FOR_PACE) return undefined;
  const beforeLast = facts.podAgeSeconds - facts.runningForSeconds;
  if (beforeLast <= 0) return undefined;
  const paceSeconds = beforeLast / facts.restartCount;
  if (paceSeconds > MAX_PACE_SECONDS) return undefined;
  return {
    count: facts.restartCount,
    paceSeconds,
    sinceLastSeconds: facts.runningForSeconds,
    ongoing: facts.runningForSeconds < RECOVERED_AFTER_PACES * paceSeconds,
    ...(facts.lastReason ? { lastReason: facts.lastReason } : {}),
  };
}

/** `about every 4 h`, `about every 25 min`. */
export function formatPace(seconds: number): string {
  if (seconds >= 36 * 3600) return `about every ${Math.round(seconds / 86400)} d`;
  if (seconds >= 5400) return `about every ${Math.round(seconds / 3600)} h`;
  return `about every ${Math.max(1, Math.round(seconds / 60))} min`;
}

function formatSince(seconds: number): string {
  if (seconds >= 36 * 3600) return `${Math.round(seconds / 86400)} d`;
  if (seconds >= 5400) return `${Math.round(seconds / 3600)} h`;
  return `${Math.max(1, Math.round(seconds / 60))} min`;
}

/** `14 restarts, about every 4 h, the last 3 h ago (OOMKilled, limit 512Mi): still going on`. */
export function describeRestartHistory(history: RestartHistory, memoryLimit?: string): string {
  const reason = history.lastReason
    ? ` (${history.lastReason}${memoryLimit && history.lastReason === 'OOMKilled' ? `, memory limit ${memoryLimit}` : ''})`
    : '';
  const verdict = history.ongoing
    ? 'the pace goes on, so it has not recovered'
    : `none since: the pace stopped ${formatSince(history.sinceLastSeconds)} ago`;
  return `${history.count} restarts, ${formatPace(history.paceSeconds)}, the last ${formatSince(history.sinceLastSeconds)} ago${reason}; ${verdict}`;
}

/** Examples the pace must read as ongoing, and as over. */
export const RESTART_EXAMPLES: {
  ongoing: Array<{ facts: RestartFacts; says: RegExp }>;
  recovered: Array<{ facts: RestartFacts; says: RegExp }>;
  noPace: RestartFacts[];
} = {
  ongoing: [
    {
      facts: {
        restartCount: 14,
        podAgeSeconds: 56 * 3600,
        runningForSeconds: 3 * 3600,
        lastReason: 'OOMKilled',
        lastExitCode: 137,
        memoryLimit: '512Mi',
      },
      says: /14 restarts, about every 4 h, the last 3 h ago \(OOMKilled, memory limit 512Mi\); the pace goes on/,
    },
    {
      facts: {
        restartCount: 40,
        podAgeSeconds: 10 * 3600,
        runningForSeconds: 600,
        lastReason: 'Error',
        lastExitCode: 1,
      },
      says: /40 restarts, about every 15 min/,
    },
  ],
  recovered: [
    {
      facts: {
        restartCount: 3,
        podAgeSeconds: 72 * 3600,
        runningForSeconds: 48 * 3600,
        lastReason: 'Error',
        lastExitCode: 1,
      },
      says: /3 restarts, about every 8 h, the last 2 d ago \(Error\); none since/,
    },
  ],
  noPace: [
    { restartCount: 1, podAgeSeconds: 86400, runningForSeconds: 3600, lastReason: 'OOMKilled' },
    { restartCount: 5, podAgeSeconds: 300, runningForSeconds: 300 },
    // Three restarts in a 9-day-old pod, the last an hour ago: a burst, not a pace.
    { restartCount: 3, podAgeSeconds: 9 * 86400, runningForSeconds: 4000, lastReason: 'Error', lastExitCode: 1 },
  ],
};
