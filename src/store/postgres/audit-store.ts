/**
 * The audit store on PostgreSQL: the same chains as the SQLite store (audit-store.ts),
 * with appends that stay whole when several processes append to one run at once (a run
 * taken over while its old replica still writes). Each append locks the run's head row
 * (`FOR UPDATE`) for its transaction, so appends of one run take turns: each reads the
 * head the previous one committed. A run's first append inserts the head row before
 * locking it; of two first appends, the second waits for the first's insert and then
 * locks the row it committed.
 */
import type pg from 'pg';
import { GENESIS_HASH, hashEvent, verifyChain, type AuditEvent, type ChainProblem } from '../../audit/events.ts';
import { toEvent, type EventRow } from '../../audit/audit-store.ts';
import { redactValue } from '../../redact/redactor.ts';
import type { AuditStore } from '../ports.ts';
import { atomically, prepared, type Queryable } from './queryable.ts';

interface HeadRow {
  seq: number | string;
  hash: string;
}

export function createPgAuditStore(db: pg.Pool): AuditStore {
  const selectHead = async (runId: string): Promise<{ seq: number; hash: string } | undefined> => {
    // seq 0 is the placeholder of a first append; it never commits without its event, but is never a head.
    const { rows } = await db.query<HeadRow>('SELECT seq, hash FROM audit_heads WHERE run_id = $1 AND seq > 0', [
      runId,
    ]);
    return rows[0] ? { seq: Number(rows[0].seq), hash: rows[0].hash } : undefined;
  };
  const list: AuditStore['list'] = async (runId, { afterSeq = 0, limit = 100_000 } = {}) => {
    const { rows } = await db.query<EventRow>(
      'SELECT * FROM audit_events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
      [runId, afterSeq, limit],
    );
    return rows.map(toEvent);
  };
  const runIds: AuditStore['runIds'] = async () => {
    const { rows } = await db.query<{ run_id: string }>(
      'SELECT run_id FROM audit_heads WHERE seq > 0 UNION SELECT run_id FROM audit_events ORDER BY run_id',
    );
    return rows.map((row) => row.run_id);
  };

  return {
    async append({ runId, type, payload, time = new Date() }) {
      // Payloads pass the redactor before anything reaches the database: a secret in an argument or a message never lands there.
      const safePayload = redactValue(payload) as Record<string, unknown>;
      const payloadJson = JSON.stringify(safePayload);
      return atomically(db, false, async (connection) => {
        const client = prepared(connection);
        const head = await lockHead(client, runId);
        const unhashed = {
          runId,
          seq: head.seq + 1,
          time: time.toISOString(),
          type,
          payload: safePayload,
          prevHash: head.hash,
        };
        const event: AuditEvent = { ...unhashed, hash: hashEvent(unhashed) };
        await client.query(
          'INSERT INTO audit_events (run_id, seq, time, type, payload, prev_hash, hash) VALUES ($1, $2, $3, $4, $5, $6, $7)',
          [event.runId, event.seq, event.time, event.type, payloadJson, event.prevHash, event.hash],
        );
        await client.query('UPDATE audit_heads SET seq = $2, hash = $3 WHERE run_id = $1', [
          event.runId,
          event.seq,
          event.hash,
        ]);
        return event;
      });
    },
    list,
    runIds,
    head: selectHead,
    async verify(runId) {
      const ids = runId === undefined ? await runIds() : [runId];
      const problems: ChainProblem[] = [];
      let events = 0;
      for (const id of ids) {
        const chain = await list(id);
        events += chain.length;
        const head = await selectHead(id);
        if (!head && chain.length === 0) {
          problems.push({ runId: id, problem: 'no audit events for this run' });
          continue;
        }
        problems.push(...verifyChain(id, chain, head));
      }
      return { runs: ids.length, events, problems };
    },
  };
}

/** The run's head, locked until the transaction ends; a run without one gets a genesis head (seq 0) first. */
async function lockHead(client: Queryable, runId: string): Promise<{ seq: number; hash: string }> {
  const select = 'SELECT seq, hash FROM audit_heads WHERE run_id = $1 FOR UPDATE';
  let { rows } = await client.query<HeadRow>(select, [runId]);
  if (!rows[0]) {
    // Two first appends both get here: the second's insert waits for the first's to commit, then does nothing.
    await client.query(
      'INSERT INTO audit_heads (run_id, seq, hash) VALUES ($1, 0, $2) ON CONFLICT (run_id) DO NOTHING',
      [runId, GENESIS_HASH],
    );
    ({ rows } = await client.query<HeadRow>(select, [runId]));
  }
  const row = rows[0];
  if (!row) throw new Error(`audit head of run ${runId} vanished while appending`);
  return { seq: Number(row.seq), hash: row.hash };
}
