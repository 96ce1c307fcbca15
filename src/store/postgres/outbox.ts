/**
 * The notification outbox on PostgreSQL: the semantics of the SQLite outbox
 * (store/outbox.ts), for several replicas sending from one database. A due row is handed
 * to one replica at a time: `claimDue` locks the rows it picks (`FOR UPDATE SKIP LOCKED`,
 * so a replica skips the rows another is claiming) and leases them before committing.
 * `releaseLeases` releases only leases that ran out, never a live replica's.
 * Times are milliseconds since the epoch (bigint columns, read back as numbers).
 */
import type pg from 'pg';
import { toRow, type OutboxDatabaseRow } from '../outbox.ts';
import type { Outbox } from '../ports.ts';
import { atomically } from './queryable.ts';

/** bigint columns may come back as strings. */
type Row = OutboxDatabaseRow<number | string>;

/** A due row, with the next attempt of the oldest pending row it must follow (threaded destinations only). */
type CandidateRow = Row & { older_next_attempt_at: number | string | null };

const RELEASE_FOLLOWERS =
  "UPDATE notification_outbox SET next_attempt_at = LEAST(next_attempt_at, $1) WHERE run_id = $2 AND destination = $3 AND status = 'pending' AND id > $4";

export function createPgOutbox(db: pg.Pool): Outbox {
  return {
    async enqueue({ runId, key, event, deliveries, now }) {
      return atomically(db, false, async (client) => {
        const noted = await client.query(
          'INSERT INTO notification_notices (run_id, key, noted_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
          [runId, key, new Date(now).toISOString()],
        );
        if (noted.rowCount === 0) return false;
        if (deliveries.length === 0) return true;
        await client.query(
          'INSERT INTO notification_outbox (delivery_id, run_id, event, destination, body, status, next_attempt_at, created_at) ' +
            "SELECT d.delivery_id, $1, $2, d.destination, d.body, 'pending', $3, $3 FROM unnest($4::text[], $5::text[], $6::text[]) WITH ORDINALITY AS d(delivery_id, destination, body, position) " +
            'ORDER BY d.position ON CONFLICT (delivery_id) DO NOTHING',
          [
            runId,
            event,
            now,
            deliveries.map((delivery) => `${runId}/${key}/${delivery.destination}`),
            deliveries.map((delivery) => delivery.destination),
            deliveries.map((delivery) => JSON.stringify(delivery.body)),
          ],
        );
        return true;
      });
    },
    async hasNotice(runId, key) {
      const { rowCount } = await db.query('SELECT 1 FROM notification_notices WHERE run_id = $1 AND key = $2', [
        runId,
        key,
      ]);
      return (rowCount ?? 0) > 0;
    },
    async notedSpan() {
      const { rows } = await db.query<{ first: string | null; last: string | null }>(
        'SELECT MIN(noted_at) AS first, MAX(noted_at) AS last FROM notification_notices',
      );
      const row = rows[0];
      return row?.first && row.last ? { first: Date.parse(row.first), last: Date.parse(row.last) } : undefined;
    },
    async claimDue({ now, leaseUntil, limit, threaded }) {
      return atomically(db, false, async (client) => {
        // Rows another replica is claiming are skipped, not waited for: it will lease them.
        const { rows: candidates } = await client.query<CandidateRow>(
          'SELECT o.*, CASE WHEN o.destination = ANY($3::text[]) THEN (' +
            "SELECT p.next_attempt_at FROM notification_outbox p WHERE p.run_id = o.run_id AND p.destination = o.destination AND p.status = 'pending' AND p.id < o.id ORDER BY p.id LIMIT 1" +
            ') END AS older_next_attempt_at ' +
            "FROM notification_outbox o WHERE o.status = 'pending' AND o.next_attempt_at <= $1 ORDER BY o.id LIMIT $2 FOR UPDATE OF o SKIP LOCKED",
          [now, limit * 4, [...threaded]],
        );
        const claimed: Row[] = [];
        const postponed: { id: number; nextAttemptAt: number }[] = [];
        for (const row of candidates) {
          if (claimed.length === limit) break;
          // A reply waits for its first message: it is due again when that one is (and at once when it is sent).
          if (row.older_next_attempt_at !== null)
            postponed.push({ id: Number(row.id), nextAttemptAt: Math.max(Number(row.older_next_attempt_at), now + 1) });
          else claimed.push(row);
        }
        if (postponed.length > 0) {
          await client.query(
            'UPDATE notification_outbox o SET next_attempt_at = p.next_attempt_at FROM unnest($1::bigint[], $2::bigint[]) AS p(id, next_attempt_at) WHERE o.id = p.id',
            [postponed.map((row) => row.id), postponed.map((row) => row.nextAttemptAt)],
          );
        }
        if (claimed.length === 0) return [];
        await client.query(
          'UPDATE notification_outbox SET next_attempt_at = $1, attempts = attempts + 1, leased = 1 WHERE id = ANY($2::bigint[])',
          [leaseUntil, claimed.map((row) => Number(row.id))],
        );
        return claimed.map((row) => toRow({ ...row, attempts: Number(row.attempts) + 1, next_attempt_at: leaseUntil }));
      });
    },
    /**
     * Makes the leased rows whose lease ran out due now; answers how many. Unlike SQLite's
     * (one process per database, so every lease found at start is a dead one's), a live
     * replica's lease is left alone: with several replicas, one starting must not resend
     * what another is sending. A lapsed lease is due again anyway (its next attempt is its
     * lease's end); this only clears its `leased` mark.
     */
    async releaseLeases(now) {
      const { rowCount } = await db.query(
        "UPDATE notification_outbox SET leased = 0, next_attempt_at = $1 WHERE status = 'pending' AND leased = 1 AND next_attempt_at <= $1",
        [now],
      );
      return rowCount ?? 0;
    },
    async markSent(id, { now, thread }) {
      await atomically(db, false, async (client) => {
        await client.query(
          "UPDATE notification_outbox SET status = 'sent', sent_at = $1, last_error = NULL, leased = 0 WHERE id = $2 AND status = 'pending'",
          [now, id],
        );
        const { rows } = await client.query<{ run_id: string; destination: string }>(
          'SELECT run_id, destination FROM notification_outbox WHERE id = $1',
          [id],
        );
        const row = rows[0];
        if (!row) return;
        if (thread !== undefined) {
          await client.query(
            'INSERT INTO notification_threads (run_id, destination, thread) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
            [row.run_id, row.destination, thread],
          );
        }
        await client.query(RELEASE_FOLLOWERS, [now, row.run_id, row.destination, id]);
      });
    },
    async markRetry(id, { nextAttemptAt, error }) {
      await db.query(
        "UPDATE notification_outbox SET next_attempt_at = $1, last_error = $2, leased = 0 WHERE id = $3 AND status = 'pending'",
        [nextAttemptAt, error, id],
      );
    },
    async markFailed(id, { error, now }) {
      await atomically(db, false, async (client) => {
        await client.query(
          "UPDATE notification_outbox SET status = 'failed', last_error = $1, leased = 0 WHERE id = $2 AND status = 'pending'",
          [error, id],
        );
        const { rows } = await client.query<{ run_id: string; destination: string }>(
          'SELECT run_id, destination FROM notification_outbox WHERE id = $1',
          [id],
        );
        const row = rows[0];
        // Replies to a message that will never exist go out on their own.
        if (row) await client.query(RELEASE_FOLLOWERS, [now, row.run_id, row.destination, id]);
      });
    },
    async threadOf(runId, destination) {
      const { rows } = await db.query<{ thread: string }>(
        'SELECT thread FROM notification_threads WHERE run_id = $1 AND destination = $2',
        [runId, destination],
      );
      return rows[0]?.thread;
    },
    async pending() {
      const { rows } = await db.query<{ destination: string; count: string; oldest: string }>(
        "SELECT destination, COUNT(*) AS count, MIN(created_at) AS oldest FROM notification_outbox WHERE status = 'pending' GROUP BY destination ORDER BY destination",
      );
      return rows.map((row) => ({
        destination: row.destination,
        count: Number(row.count),
        oldestCreatedAt: Number(row.oldest),
      }));
    },
    async nextDueAt() {
      const { rows } = await db.query<{ next: string | null }>(
        "SELECT MIN(next_attempt_at) AS next FROM notification_outbox WHERE status = 'pending'",
      );
      const next = rows[0]?.next;
      return next === null || next === undefined ? undefined : Number(next);
    },
    async list({ runId, status } = {}) {
      const { rows } = await db.query<Row>(
        'SELECT * FROM notification_outbox WHERE ($1::text IS NULL OR run_id = $1) AND ($2::text IS NULL OR status = $2) ORDER BY id',
        [runId ?? null, status ?? null],
      );
      return rows.map(toRow);
    },
  };
}
