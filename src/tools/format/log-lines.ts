/**
 * A container log reduced to what a diagnosis needs: lines shortened (`compactLogLine`),
 * stack traces cut to their first frames, repeated lines (and repeated errors with their
 * traces) shown once with a count, the last lines kept verbatim in order, and error lines
 * from before the shown tail pulled forward.
 */
import { listeningPortsIn } from './listening-ports.ts';
import { compactLogLine } from './log-compact.ts';

export interface LogDigest {
  /** Lines in the fetched log (after grep, when given). */
  totalLines: number;
  /** The last lines, oldest first, stack frames folded, repeats counted (` [x5]`) except in the final few. */
  tail: string[];
  /** Distinct error and warning lines from before the tail (each with its first frames and ` [xN]`), in order of first appearance. */
  notable: string[];
  /** Lines before the tail that are not shown (neither errors nor warnings, or repeats of shown ones). */
  omittedLines: number;
  /** Every distinct error line of the fetched log, oldest first (for structured data). */
  errorLines: string[];
  /** The first lines, when they come before the tail: what the run said as it started (its version, config, routes, the port it listens on). */
  head: string[];
  /** Lines between the head and the tail where the process says what it listens on (`listening on :9090`), at most a few. */
  listening: string[];
}

/** The run's first lines shown when they precede the tail. */
const HEAD_LINES = 3;
/** Start-up lines naming a listener, shown from before the tail. */
const MAX_LISTENING = 4;

const ERROR_PATTERN =
  /\b(?:error|err|fatal|panic|exception|traceback|failed|failure|refused|denied|unauthorized|forbidden|oom|out of memory|killed|timeout|timed out|deadline exceeded|no such host|unreachable|cannot|unable to|invalid|missing|not found|crash|expired)\b|\b(?:ERROR|FATAL|SEVERE|CRITICAL|E\d{4})\b/i;

/** Indented lines continue the line above them: stack frames, error object dumps, wrapped messages. */
const FRAME_PATTERN = /^\s+\S/;

const KEPT_FRAMES = 3;

const WARNING_PATTERN = /\bwarn(?:ing)?\b|^\d{2}:\d{2}:\d{2} W /i;

export function isErrorLine(line: string): boolean {
  return ERROR_PATTERN.test(line) && !FRAME_PATTERN.test(line);
}

function isNotable(line: string): boolean {
  return isErrorLine(line) || WARNING_PATTERN.test(line);
}

/** Lines grouped with the stack frames that follow them. */
function toBlocks(lines: readonly string[]): string[][] {
  const blocks: string[][] = [];
  for (const line of lines) {
    const current = blocks.at(-1);
    if (current && FRAME_PATTERN.test(line)) current.push(line);
    else blocks.push([line]);
  }
  return blocks;
}

/** Digits and hex runs replaced, so lines that differ only by a time, a counter or an id compare equal. */
function normalize(line: string): string {
  return line.replace(/[0-9a-f]{8,}/gi, '#').replace(/\d+/g, '0');
}

/** What a cut line keeps of its end: an error's decisive words ("is after 2026-06-03T06:12:44Z", ": no such host") often close it. */
const TAIL_CHARS = 60;

/** A line well over `limit` keeps its first `limit` characters and its last few, the middle counted: `start… [N more chars] …end`. */
export function cutLine(line: string, limit: number): string {
  // A line a little over the limit is shown whole: cutting it would save less than the note costs.
  if (line.length <= limit + TAIL_CHARS) return line;
  return `${line.slice(0, limit)}… [${line.length - limit - TAIL_CHARS} more chars] …${line.slice(-TAIL_CHARS)}`;
}

/** Keeps the first three indented lines under each line (stack frames, dumps) and counts the rest. */
export function foldFrames(lines: readonly string[]): string[] {
  const folded: string[] = [];
  let frames = 0;
  const flush = (): void => {
    if (frames > KEPT_FRAMES) folded.push(`    [${frames - KEPT_FRAMES} more indented line(s)]`);
    frames = 0;
  };
  for (const line of lines) {
    if (FRAME_PATTERN.test(line)) {
      frames += 1;
      if (frames <= KEPT_FRAMES) folded.push(line);
      continue;
    }
    flush();
    folded.push(line);
  }
  flush();
  return folded;
}

/**
 * Shows each distinct line (a line with its stack frames counts as one) once, where it first
 * appears, with ` [xN]` when it repeats; the last `verbatim` lines are kept as they are, in
 * order, since the moments before a crash matter most.
 */
export function countRepeats(lines: readonly string[], verbatim: number): string[] {
  const blocks = toBlocks(lines);
  let kept = 0;
  let verbatimFrom = blocks.length;
  while (verbatimFrom > 0 && kept < verbatim) {
    verbatimFrom -= 1;
    kept += blocks[verbatimFrom]?.length ?? 0;
  }
  const shown: Array<{ block: string[]; count: number }> = [];
  const byKey = new Map<string, { block: string[]; count: number }>();
  blocks.forEach((block, index) => {
    const key = normalize(block.join('\n'));
    const seen = byKey.get(key);
    if (seen && index < verbatimFrom) {
      seen.count += 1;
      return;
    }
    const entry = { block, count: 1 };
    if (!seen) byKey.set(key, entry);
    shown.push(entry);
  });
  return shown.flatMap(({ block, count }) => (count > 1 ? [`${block[0]} [x${count}]`, ...block.slice(1)] : block));
}

/** Builds a regex from the model's grep: a regular expression if it parses, a literal otherwise; case-insensitive. */
export function compileGrep(pattern: string): RegExp {
  try {
    return new RegExp(pattern, 'i');
  } catch {
    return new RegExp(pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');
  }
}

/** The notable blocks (errors, warnings) of `blocks`, once each with their count, at most `limit`, the latest kept when there are more. */
function collectNotable(blocks: readonly string[][], limit: number): { lines: string[]; shownBlocks: number } {
  const byKey = new Map<string, { block: readonly string[]; count: number; first: number; last: number }>();
  blocks.forEach((block, index) => {
    if (!isNotable(block[0] ?? '')) return;
    const key = normalize(block.join('\n'));
    const seen = byKey.get(key);
    if (seen) {
      seen.count += 1;
      seen.last = index;
    } else byKey.set(key, { block, count: 1, first: index, last: index });
  });
  const kept = [...byKey.values()]
    .sort((left, right) => right.last - left.last)
    .slice(0, limit)
    .sort((left, right) => left.first - right.first);
  return {
    lines: kept.flatMap(({ block, count }) =>
      count > 1 ? [`${block[0]} [x${count}]`, ...block.slice(1)] : [...block],
    ),
    shownBlocks: kept.reduce((total, entry) => total + entry.count, 0),
  };
}

/**
 * Digests a log: the last `tailLines` lines (folded, repeats counted) and, from before them,
 * the distinct error and warning lines; everything else is counted, not shown.
 */
export function digestLog(input: {
  text: string;
  tailLines: number;
  grep?: RegExp;
  lineLimit?: number;
  maxNotable?: number;
  verbatimLines?: number;
}): LogDigest {
  const lineLimit = input.lineLimit ?? 300;
  const all = input.text.split(/\r?\n/);
  if (all.at(-1) === '') all.pop();
  const lines = input.grep ? all.filter((line) => input.grep?.test(line)) : all;
  // A structured record whose message spans lines (a validation report, a stack trace) reads as the lines it holds.
  const folded = foldFrames(
    lines.flatMap((line) => compactLogLine(line).split('\n')).map((line) => cutLine(line, lineLimit)),
  );
  // The window starts on a line of its own, never inside a stack trace.
  let tailStart = Math.max(0, folded.length - input.tailLines);
  while (tailStart > 0 && FRAME_PATTERN.test(folded[tailStart] ?? '')) tailStart -= 1;
  const before = toBlocks(folded.slice(0, tailStart));
  const notable = collectNotable(before, input.maxNotable ?? 20);
  const errors = new Map<string, string>();
  for (const line of folded) {
    if (!isErrorLine(line)) continue;
    const key = normalize(line);
    errors.delete(key);
    errors.set(key, line);
  }
  return {
    totalLines: lines.length,
    tail: countRepeats(folded.slice(tailStart), input.verbatimLines ?? 5),
    notable: notable.lines,
    omittedLines: before.length - notable.shownBlocks,
    errorLines: [...errors.values()].slice(-50),
    // Not for a grep: its first matches are not how the run began.
    head: input.grep ? [] : folded.slice(0, Math.min(HEAD_LINES, tailStart)),
    // A listener announced after the head (a server's fifth start-up line) says which port the process serves.
    listening: input.grep
      ? []
      : folded
          .slice(Math.min(HEAD_LINES, tailStart), tailStart)
          .filter((line) => listeningPortsIn([line]).length > 0)
          .slice(0, MAX_LISTENING),
  };
}
