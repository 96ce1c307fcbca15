/**
 * Retention's batch on PostgreSQL: what sqliteRetireBatch does (store/retention.ts), in one
 * transaction, for replicas that may sweep at the same time. The due runs are locked as
 * they are picked (`FOR UPDATE SKIP LOCKED`): a run another replica's batch holds is left
 * to it, so no run is retired, or anchored, twice.
 */
import type pg from 'pg';
import type { RetireBatch, RetiredRun } from '../retention.ts';
import { atomically } from './queryable.ts';

const FINAL_STATUSES = ['completed', 'failed'];

export function pgRetireBatch(pool: pg.Pool): RetireBatch {
  return ({ cutoff, retiredAt, batchSize }) =>
    atomically(pool, false, async (client) => {
      // Only the statuses known to be final; finished_at < cutoff also leaves out runs without one.
      const { rows: due } = await client.query<{ id: string }>(
        'SELECT id FROM runs WHERE finished_at < $1 AND status = ANY($2::text[]) ORDER BY finished_at LIMIT $3 FOR UPDATE SKIP LOCKED',
        [cutoff, FINAL_STATUSES, batchSize],
      );
      if (due.length === 0) return { count: 0, anchored: [] };
      const ids = due.map((row) => row.id);
      const { rows: heads } = await client.query<{ run_id: string; seq: number | string; hash: string }>(
        'INSERT INTO audit_retired (run_id, seq, hash, retired_at) SELECT run_id, seq, hash, $2 FROM audit_heads WHERE run_id = ANY($1::text[]) ' +
          'ON CONFLICT (run_id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, retired_at = excluded.retired_at RETURNING run_id, seq, hash',
        [ids, retiredAt],
      );
      await client.query('DELETE FROM audit_events WHERE run_id = ANY($1::text[])', [ids]);
      await client.query('DELETE FROM audit_heads WHERE run_id = ANY($1::text[])', [ids]);
      // The schema's trigger removes a run's alerts, culprit keys and notifications with it.
      await client.query('DELETE FROM runs WHERE id = ANY($1::text[]) AND status = ANY($2::text[])', [
        ids,
        FINAL_STATUSES,
      ]);
      const headOf = new Map(heads.map((head) => [head.run_id, head]));
      const anchored: RetiredRun[] = [];
      for (const id of ids) {
        const head = headOf.get(id);
        if (head) anchored.push({ runId: id, seq: Number(head.seq), hash: head.hash, retiredAt });
      }
      return { count: due.length, anchored };
    });
}
