/**
 * Reads audit anchors back out of shipped service logs: NDJSON pino lines mixed with
 * anything else (other services' lines, plain text, a collector's prefix such as a
 * timestamp before the JSON). Lines that hold no JSON object, and JSON lines without
 * `auditHead`, are skipped. A run may be anchored several times (an interrupted run,
 * then its end); the last line read wins.
 */
import type { AuditAnchor } from './anchors.ts';

export interface LoggedAnchor extends AuditAnchor {
  /** The signature, when the service had a key. */
  signature?: string;
  /** Where the line was read: "file:line". */
  source: string;
}

export interface MalformedAnchor {
  runId?: string;
  source: string;
  problem: string;
}

export interface AnchorLog {
  /** The last anchor of each run, by run id. */
  anchors: Map<string, LoggedAnchor>;
  /** Lines that carry `auditHead` but cannot be read as an anchor. */
  malformed: MalformedAnchor[];
  /** Anchor lines read, superseded ones included. */
  lines: number;
}

const HEAD = /^(\d{1,15}):([0-9a-f]{64})$/;

export function emptyAnchorLog(): AnchorLog {
  return { anchors: new Map(), malformed: [], lines: 0 };
}

/** Reads every anchor in `text`; `name` labels where each came from. */
export function readAnchorLog(text: string, name: string): AnchorLog {
  const log = emptyAnchorLog();
  text.split('\n').forEach((line, index) => addAnchorLine(log, line, `${name}:${index + 1}`));
  return log;
}

/** Adds one log line to `log` when it is an anchor (lines are read in order: a later one wins). */
export function addAnchorLine(log: AnchorLog, line: string, source: string): void {
  if (!line.includes('"auditHead"')) return;
  const record = parseJsonObject(line);
  if (!record || !('auditHead' in record)) return;
  log.lines++;
  const parsed = toAnchor(record, source);
  if ('problem' in parsed) log.malformed.push(parsed);
  else log.anchors.set(parsed.runId, parsed);
}

function toAnchor(record: Record<string, unknown>, source: string): LoggedAnchor | MalformedAnchor {
  const runId = typeof record.runId === 'string' && record.runId.length > 0 ? record.runId : undefined;
  const malformed = (problem: string): MalformedAnchor => ({ ...(runId ? { runId } : {}), source, problem });
  if (!runId) return malformed('an auditHead without a runId');
  const head = typeof record.auditHead === 'string' ? HEAD.exec(record.auditHead) : null;
  if (!head) return malformed(`auditHead ${JSON.stringify(record.auditHead)} is not "<seq>:<64 hex digits>"`);
  const time = record.auditAnchoredAt;
  if (typeof time !== 'string' || Number.isNaN(Date.parse(time)))
    return malformed('auditAnchoredAt is missing or not a time');
  const signature = record.auditAnchor;
  if (signature !== undefined && typeof signature !== 'string') return malformed('auditAnchor is not a string');
  if (record.auditRetired !== undefined && record.auditRetired !== true) return malformed('auditRetired is not true');
  return {
    runId,
    seq: Number(head[1]),
    hash: head[2]!,
    time,
    ...(record.auditRetired === true ? { retired: true } : {}),
    ...(signature ? { signature } : {}),
    source,
  };
}

/** The JSON object on a line, also after a prefix a log collector may add; undefined when there is none. */
function parseJsonObject(line: string): Record<string, unknown> | undefined {
  const start = line.indexOf('{');
  if (start < 0) return undefined;
  try {
    const value: unknown = JSON.parse(line.slice(start));
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
