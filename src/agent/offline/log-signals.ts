/**
 * Reads log lines for what a failing process says about itself: refused credentials,
 * an unreachable dependency, or its own crash. Which line says what is the signal tables'
 * knowledge (signals/); this module decides which verdict the whole log supports.
 */

import { isAccessLogLine, matchLogSignal, type LogVerdict } from './signals/index.ts';
import { isLineOfKind } from './signals/line-kinds.ts';
import type { LogReading } from './case.ts';

export type { LogVerdict } from './signals/index.ts';

/**
 * The verdict the lines support, with the lines that prove it. What the process said
 * last before it died decides: a credential or reachability error among the last lines
 * (stack frames not counted) wins over the stack trace it caused; an old warning earlier
 * in the log does not.
 */
export function readLogSignals(lines: readonly string[], limit = 3): LogReading {
  const matches = lines.map((line) => ({
    line,
    verdict: verdictOf(line),
    soft: isLineOfKind('soft', line),
    error: isLineOfKind('error', line),
  }));
  const errorLines = unique(
    matches.filter((match) => match.error || match.verdict).map((match) => cleanLine(match.line)),
  );
  const tail = matches.filter((match) => !isLineOfKind('stack-frame', match.line)).slice(-TAIL_LINES);
  const linesOf = (verdict: LogVerdict, pool = matches): string[] =>
    mostTelling(
      pool.filter((match) => match.verdict === verdict).map((match) => cleanLine(match.line)),
      limit,
    );
  const hard = tail.filter((match) => !match.soft);
  for (const verdict of DECISIVE) {
    // The retries that led up to the fatal line are evidence too.
    if (hard.some((match) => match.verdict === verdict))
      return { verdict, evidence: linesOf(verdict, tail), errorLines };
  }
  // A process that retried a dependency again and again, then died with a generic error, died of the dependency.
  for (const verdict of DECISIVE) {
    if (tail.filter((match) => match.verdict === verdict).length >= REPEATED_RETRIES)
      return { verdict, evidence: linesOf(verdict, tail), errorLines };
  }
  if (hard.some((match) => match.verdict === 'app-crash'))
    return { verdict: 'app-crash', evidence: linesOf('app-crash', hard), errorLines };
  // Only warnings name a cause (retries that ended in an exit): they are the best lead left.
  for (const verdict of DECISIVE) {
    if (tail.some((match) => match.verdict === verdict))
      return { verdict, evidence: linesOf(verdict, tail), errorLines };
  }
  for (const verdict of [...DECISIVE, 'app-crash' as const]) {
    if (matches.some((match) => match.verdict === verdict)) return { verdict, evidence: linesOf(verdict), errorLines };
  }
  return { verdict: undefined, evidence: [], errorLines };
}

/** The verdict one line supports; a request the app served (its access log) supports none. */
function verdictOf(line: string): LogVerdict | undefined {
  return isAccessLogLine(line) ? undefined : matchLogSignal(line)?.verdict;
}

/** How many of the last lines (stack frames not counted) are "what it said before it died". */
const TAIL_LINES = 40;
/** Warnings about one cause, this many times among the last lines, are the story of the crash. */
const REPEATED_RETRIES = 3;
const DECISIVE: LogVerdict[] = ['bad-credentials', 'dependency-unreachable', 'oom'];

/**
 * The lines that say the most, in log order: a line with the whole message (`Error: getaddrinfo
 * ENOTFOUND redis-master...`) beats the fields of a dumped error object (`syscall: 'getaddrinfo'`).
 */
function mostTelling(lines: string[], limit: number): string[] {
  // Lines that differ only in their timestamp or counters are one line.
  const byShape = new Map<string, string>();
  for (const line of lines.map((text) => text.replace(/\s*\[x\d+\]$/, '')))
    byShape.set(line.replace(/\d+/g, '0'), line);
  const distinct = [...byShape.values()];
  const ranked = [...distinct].sort((left, right) => tellingScore(right) - tellingScore(left));
  const informative = ranked.filter((line) => tellingScore(line) > 0);
  const chosen = new Set((informative.length > 0 ? informative : ranked).slice(0, limit));
  return distinct.filter((line) => chosen.has(line));
}

/**
 * How much a line says: its words, more for names, addresses and quoted values; much less
 * for a field of a dumped error object (`code: 'ENOTFOUND',`) or a line of source code that
 * a stack trace quotes (`throw new Error(...)`, a caret line).
 */
export function tellingScore(line: string): number {
  const words = line.split(/\s+/).length;
  const fieldOfObject = /^[a-z]\w*:\s*['"]?[\w.-]*['"]?,$/.test(line) ? -20 : 0;
  const sourceCode = /\bthrow new\b|\$\{|;\s*$|^\s*(const|let|var|return|raise|def)\b|\^{3,}|~{3,}/.test(line)
    ? -20
    : 0;
  return (
    Math.min(words, 25) + fieldOfObject + sourceCode + (/\w+\.\w+\.\w+|:\d{2,5}\b|"[^"]+"|'[^']+'/.test(line) ? 5 : 0)
  );
}

/** Timestamps and padding stripped, long lines shortened, so evidence stays readable. */
export function cleanLine(line: string): string {
  const trimmed = line.trim();
  return trimmed.length > 400 ? `${trimmed.slice(0, 397)}...` : trimmed;
}

function unique(lines: string[]): string[] {
  return [...new Set(lines)];
}
