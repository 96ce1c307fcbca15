/**
 * The notification outbox: every message to send is a row, committed before any attempt,
 * so a process killed at any moment loses none. A row is `pending` until a receiver takes
 * it (`sent`), or until it cannot be (`failed`: the receiver refused the body for good, or
 * it kept failing past the longest a message is tried). A row being sent is leased: its
 * next attempt is pushed past the send's timeout first, so a process killed mid-send
 * leaves it due again, and it is sent again (at least once; receivers dedupe on the
 * delivery id). A start releases the leases a killed process left (`releaseLeases`): the
 * store's lock keeps one process per database, so every lease found then is a dead one's.
 *
 * `notification_notices` records which notices a run has had (`finished`, `resolved`,
 * `approval:<action id>`), with or without a destination to send them to, so a notice is
 * never queued twice and the ones a crash skipped can be found (notifier.ts reconciles).
 * Times are milliseconds since the epoch.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { Outbox, OutboxRow, OutboxStatus, Sync } from './ports.ts';

/** The outbox as SQLite answers: each method returns its result at once. */
export type SyncOutbox = Sync<Outbox>;

/** A notification_outbox row; `Integer` is how the backend answers its integers (PostgreSQL's bigints may come as strings). */
export interface OutboxDatabaseRow<Integer = number> {
  id: Integer;
  delivery_id: string;
  run_id: string;
  event: string;
  destination: string;
  body: string;
  status: OutboxStatus;
  attempts: Integer;
  next_attempt_at: Integer;
  last_error: string | null;
  created_at: Integer;
  sent_at: Integer | null;
}

export function createOutbox(database: DatabaseSync): SyncOutbox {
  const statements = prepare(database);

  const inTransaction = <T>(work: () => T): T => {
    database.exec('BEGIN IMMEDIATE');
    try {
      const result = work();
      database.exec('COMMIT');
      return result;
    } catch (error) {
      database.exec('ROLLBACK');
      throw error;
    }
  };

  return {
    enqueue({ runId, key, event, deliveries, now }) {
      return inTransaction(() => {
        const noted = statements.note.run(runId, key, new Date(now).toISOString());
        if (noted.changes === 0) return false;
        for (const delivery of deliveries) {
          statements.insert.run(
            `${runId}/${key}/${delivery.destination}`,
            runId,
            event,
            delivery.destination,
            JSON.stringify(delivery.body),
            now,
            now,
          );
        }
        return true;
      });
    },
    hasNotice(runId, key) {
      return statements.hasNotice.get(runId, key) !== undefined;
    },
    notedSpan() {
      const row = statements.notedSpan.get() as { first: string | null; last: string | null } | undefined;
      return row?.first && row.last ? { first: Date.parse(row.first), last: Date.parse(row.last) } : undefined;
    },
    claimDue({ now, leaseUntil, limit, threaded }) {
      return inTransaction(() => {
        const claimed: OutboxDatabaseRow[] = [];
        for (const row of statements.due.all(now, limit * 4) as unknown as OutboxDatabaseRow[]) {
          if (claimed.length === limit) break;
          const older = threaded.has(row.destination)
            ? (statements.olderPending.get(row.run_id, row.destination, row.id) as
                { next_attempt_at: number } | undefined)
            : undefined;
          // A reply waits for its first message: it is due again when that one is (and at once when it is sent).
          if (older) statements.postpone.run(Math.max(older.next_attempt_at, now + 1), row.id);
          else claimed.push(row);
        }
        for (const row of claimed) statements.lease.run(leaseUntil, row.id);
        return claimed.map((row) => toRow({ ...row, attempts: row.attempts + 1, next_attempt_at: leaseUntil }));
      });
    },
    markSent(id, { now, thread }) {
      inTransaction(() => {
        statements.sent.run(now, id);
        const row = statements.byId.get(id) as unknown as OutboxDatabaseRow | undefined;
        if (!row) return;
        if (thread !== undefined) statements.thread.run(row.run_id, row.destination, thread);
        statements.releaseFollowers.run(now, row.run_id, row.destination, id);
      });
    },
    releaseLeases(now) {
      return Number(statements.releaseLeases.run(now).changes);
    },
    markRetry(id, { nextAttemptAt, error }) {
      statements.retry.run(nextAttemptAt, error, id);
    },
    markFailed(id, { error, now }) {
      inTransaction(() => {
        statements.failed.run(error, id);
        const row = statements.byId.get(id) as unknown as OutboxDatabaseRow | undefined;
        // Replies to a message that will never exist go out on their own.
        if (row) statements.releaseFollowers.run(now, row.run_id, row.destination, id);
      });
    },
    threadOf(runId, destination) {
      const row = statements.threadOf.get(runId, destination) as { thread: string } | undefined;
      return row?.thread;
    },
    pending() {
      return (
        statements.pendingCounts.all() as unknown as { destination: string; count: number; oldest: number }[]
      ).map((row) => ({ destination: row.destination, count: row.count, oldestCreatedAt: row.oldest }));
    },
    nextDueAt() {
      const row = statements.nextDue.get() as { next: number | null } | undefined;
      return row?.next ?? undefined;
    },
    list({ runId, status } = {}) {
      const rows = statements.list.all(
        runId ?? null,
        runId ?? null,
        status ?? null,
        status ?? null,
      ) as unknown as OutboxDatabaseRow[];
      return rows.map(toRow);
    },
  };
}

function prepare(database: DatabaseSync) {
  return {
    note: database.prepare('INSERT OR IGNORE INTO notification_notices (run_id, key, noted_at) VALUES (?, ?, ?)'),
    hasNotice: database.prepare('SELECT 1 FROM notification_notices WHERE run_id = ? AND key = ?'),
    insert: database.prepare(
      "INSERT OR IGNORE INTO notification_outbox (delivery_id, run_id, event, destination, body, status, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, 'pending', ?, ?)",
    ),
    due: database.prepare(
      "SELECT * FROM notification_outbox WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY id LIMIT ?",
    ),
    olderPending: database.prepare(
      "SELECT next_attempt_at FROM notification_outbox WHERE run_id = ? AND destination = ? AND status = 'pending' AND id < ? ORDER BY id LIMIT 1",
    ),
    postpone: database.prepare('UPDATE notification_outbox SET next_attempt_at = ? WHERE id = ?'),
    releaseFollowers: database.prepare(
      "UPDATE notification_outbox SET next_attempt_at = MIN(next_attempt_at, ?) WHERE run_id = ? AND destination = ? AND status = 'pending' AND id > ?",
    ),
    notedSpan: database.prepare('SELECT MIN(noted_at) AS first, MAX(noted_at) AS last FROM notification_notices'),
    lease: database.prepare(
      'UPDATE notification_outbox SET next_attempt_at = ?, attempts = attempts + 1, leased = 1 WHERE id = ?',
    ),
    releaseLeases: database.prepare(
      "UPDATE notification_outbox SET leased = 0, next_attempt_at = ? WHERE status = 'pending' AND leased = 1",
    ),
    sent: database.prepare(
      "UPDATE notification_outbox SET status = 'sent', sent_at = ?, last_error = NULL, leased = 0 WHERE id = ? AND status = 'pending'",
    ),
    byId: database.prepare('SELECT * FROM notification_outbox WHERE id = ?'),
    thread: database.prepare(
      'INSERT OR IGNORE INTO notification_threads (run_id, destination, thread) VALUES (?, ?, ?)',
    ),
    retry: database.prepare(
      "UPDATE notification_outbox SET next_attempt_at = ?, last_error = ?, leased = 0 WHERE id = ? AND status = 'pending'",
    ),
    failed: database.prepare(
      "UPDATE notification_outbox SET status = 'failed', last_error = ?, leased = 0 WHERE id = ? AND status = 'pending'",
    ),
    threadOf: database.prepare('SELECT thread FROM notification_threads WHERE run_id = ? AND destination = ?'),
    pendingCounts: database.prepare(
      "SELECT destination, COUNT(*) AS count, MIN(created_at) AS oldest FROM notification_outbox WHERE status = 'pending' GROUP BY destination",
    ),
    nextDue: database.prepare("SELECT MIN(next_attempt_at) AS next FROM notification_outbox WHERE status = 'pending'"),
    list: database.prepare(
      'SELECT * FROM notification_outbox WHERE (? IS NULL OR run_id = ?) AND (? IS NULL OR status = ?) ORDER BY id',
    ),
  } satisfies Record<string, StatementSync>;
}

export function toRow(row: OutboxDatabaseRow<number | string>): OutboxRow {
  return {
    id: Number(row.id),
    deliveryId: row.delivery_id,
    runId: row.run_id,
    event: row.event,
    destination: row.destination,
    body: JSON.parse(row.body) as unknown,
    status: row.status,
    attempts: Number(row.attempts),
    nextAttemptAt: Number(row.next_attempt_at),
    ...(row.last_error !== null ? { lastError: row.last_error } : {}),
    createdAt: Number(row.created_at),
    ...(row.sent_at !== null ? { sentAt: Number(row.sent_at) } : {}),
  };
}
