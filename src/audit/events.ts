/**
 * Audit events: one append-only record per step of a run. Each carries the hash of the
 * previous event of its run, so a changed, missing or inserted event breaks the chain.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.ts';

export const AUDIT_EVENT_TYPES = [
  'run-created',
  'model-request',
  'model-response',
  'tool-call',
  'gate-decision',
  'tool-result',
  'approval',
  'diagnosis',
  'run-finished',
  'error',
  'run-parked',
  'run-resumed',
  // A held action put to a person, with its reason and what its dry run says it would change.
  'approval-requested',
] as const;

export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];

export interface AuditEvent {
  runId: string;
  seq: number;
  time: string;
  type: AuditEventType;
  payload: Record<string, unknown>;
  prevHash: string;
  hash: string;
}

/** The previous hash of a run's first event. */
export const GENESIS_HASH = '0'.repeat(64);

/** sha256(prevHash + canonical JSON of the event without its own hash). */
export function hashEvent(event: Omit<AuditEvent, 'hash'>): string {
  const body = canonicalJson({
    runId: event.runId,
    seq: event.seq,
    time: event.time,
    type: event.type,
    payload: event.payload,
  });
  return createHash('sha256').update(event.prevHash).update(body).digest('hex');
}

export interface ChainProblem {
  runId: string;
  seq?: number;
  problem: string;
}

/**
 * Checks one run's events (ordered by seq) against each other and, when known, against
 * the run's recorded head (its last seq and hash), which catches a deleted last event.
 */
export function verifyChain(
  runId: string,
  events: readonly AuditEvent[],
  head?: { seq: number; hash: string },
): ChainProblem[] {
  const problems: ChainProblem[] = [];
  let previousHash = GENESIS_HASH;
  events.forEach((event, index) => {
    const expectedSeq = index + 1;
    if (event.seq !== expectedSeq) {
      problems.push({
        runId,
        seq: event.seq,
        problem: `expected seq ${expectedSeq}, found ${event.seq} (an event is missing or inserted)`,
      });
    }
    if (event.prevHash !== previousHash) {
      problems.push({
        runId,
        seq: event.seq,
        problem: 'prevHash does not match the previous event (an event is missing, inserted or reordered)',
      });
    }
    if (hashEvent(event) !== event.hash) {
      problems.push({ runId, seq: event.seq, problem: 'hash does not match the content (the event was changed)' });
    }
    previousHash = event.hash;
  });
  if (head) {
    const last = events.at(-1);
    if (!last || last.seq !== head.seq || last.hash !== head.hash) {
      problems.push({
        runId,
        problem: `the chain ends at seq ${last?.seq ?? 0} but the run's head is seq ${head.seq} (events were removed or appended outside the log)`,
      });
    }
  }
  return problems;
}
