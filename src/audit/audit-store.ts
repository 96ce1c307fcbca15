/**
 * The audit store: appends events to SQLite with their hash chain, reads them back in
 * order, and verifies chains. Appends of one run are serialised by the caller's single
 * loop; the head row is updated in the same transaction as the event.
 */
import type { DatabaseSync } from 'node:sqlite';
export type { AuditStore } from '../store/ports.ts';
import { redactValue } from '../redact/redactor.ts';
import {
  GENESIS_HASH,
  hashEvent,
  verifyChain,
  type AuditEvent,
  type AuditEventType,
  type ChainProblem,
} from './events.ts';

export interface SyncAuditStore {
  append(input: { runId: string; type: AuditEventType; payload: Record<string, unknown>; time?: Date }): AuditEvent;
  list(runId: string, options?: { afterSeq?: number; limit?: number }): AuditEvent[];
  runIds(): string[];
  /** The run's last event (seq and hash): log it elsewhere and the chain cannot be rewritten unseen. */
  head(runId: string): { seq: number; hash: string } | undefined;
  verify(runId?: string): { runs: number; events: number; problems: ChainProblem[] };
}

/** An audit_events row, as either backend answers it (PostgreSQL's seq may be a string). */
export interface EventRow {
  run_id: string;
  seq: number | string;
  time: string;
  type: string;
  payload: string;
  prev_hash: string;
  hash: string;
}

export function createAuditStore(database: DatabaseSync): SyncAuditStore {
  const selectHead = database.prepare('SELECT seq, hash FROM audit_heads WHERE run_id = ?');
  const insertEvent = database.prepare(
    'INSERT INTO audit_events (run_id, seq, time, type, payload, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const upsertHead = database.prepare(
    'INSERT INTO audit_heads (run_id, seq, hash) VALUES (?, ?, ?) ON CONFLICT(run_id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash',
  );
  const selectEvents = database.prepare('SELECT * FROM audit_events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?');
  const selectRunIds = database.prepare(
    'SELECT run_id FROM audit_heads UNION SELECT DISTINCT run_id FROM audit_events ORDER BY run_id',
  );

  return {
    append({ runId, type, payload, time = new Date() }) {
      // Payloads pass the redactor: a secret that slipped into an argument or a message never lands here.
      // Done before the transaction: other connections (the agent workers') wait for its lock.
      const safePayload = redactValue(payload) as Record<string, unknown>;
      const payloadJson = JSON.stringify(safePayload);
      database.exec('BEGIN IMMEDIATE');
      try {
        const head = selectHead.get(runId) as { seq: number; hash: string } | undefined;
        const unhashed = {
          runId,
          seq: (head?.seq ?? 0) + 1,
          time: time.toISOString(),
          type,
          payload: safePayload,
          prevHash: head?.hash ?? GENESIS_HASH,
        };
        const event: AuditEvent = { ...unhashed, hash: hashEvent(unhashed) };
        insertEvent.run(event.runId, event.seq, event.time, event.type, payloadJson, event.prevHash, event.hash);
        upsertHead.run(event.runId, event.seq, event.hash);
        database.exec('COMMIT');
        return event;
      } catch (error) {
        database.exec('ROLLBACK');
        throw error;
      }
    },
    list(runId, { afterSeq = 0, limit = 100_000 } = {}) {
      return (selectEvents.all(runId, afterSeq, limit) as unknown as EventRow[]).map(toEvent);
    },
    runIds() {
      return (selectRunIds.all() as { run_id: string }[]).map((row) => row.run_id);
    },
    head(runId) {
      const row = selectHead.get(runId) as { seq: number; hash: string } | undefined;
      return row ? { seq: row.seq, hash: row.hash } : undefined;
    },
    verify(runId) {
      const runIds = runId === undefined ? this.runIds() : [runId];
      const problems: ChainProblem[] = [];
      let events = 0;
      for (const id of runIds) {
        const chain = this.list(id);
        events += chain.length;
        const head = selectHead.get(id) as { seq: number; hash: string } | undefined;
        if (!head && chain.length === 0) {
          problems.push({ runId: id, problem: 'no audit events for this run' });
          continue;
        }
        problems.push(...verifyChain(id, chain, head));
      }
      return { runs: runIds.length, events, problems };
    },
  };
}

export function toEvent(row: EventRow): AuditEvent {
  return {
    runId: row.run_id,
    seq: Number(row.seq),
    time: row.time,
    type: row.type as AuditEventType,
    payload: parsePayload(row.payload),
    prevHash: row.prev_hash,
    hash: row.hash,
  };
}

function parsePayload(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    // A row edited into invalid JSON still shows up, and its hash no longer matches.
    return { unparsable: text };
  }
}
