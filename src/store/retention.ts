/**
 * Retention: finished runs (completed or failed) that ended more than `days` days ago are
 * removed with their audit events and audit head. The head of each removed chain is kept
 * in `audit_retired` (run id, seq, hash, when), the anchor that tells a chain removed by
 * retention from one removed by hand. Runs not yet finished (queued, running, awaiting
 * approval, or any status this build does not know as final) are never removed.
 *
 * A sweep works in small batches, each its own short transaction, and yields to the event
 * loop between them: during an alert storm the webhook's writes wait for one batch at
 * most, never for the whole sweep. `startRetention` sweeps at start and then every
 * `intervalMs`.
 */
import type { DatabaseSync } from 'node:sqlite';

const DAY_MS = 24 * 3600 * 1000;
const DEFAULT_BATCH_SIZE = 50;
const DEFAULT_INTERVAL_MS = 3600 * 1000;

export interface SweepReport {
  /** Runs removed, with their audit chains. */
  retired: number;
  batches: number;
  /** Runs that finished before this time (ISO 8601) were due. */
  cutoff: string;
  durationMs: number;
}

export interface Retention {
  readonly days: number;
  /** Removes every due run, a batch at a time; resolves when none is left, or after the batch under way once `signal` aborts. */
  sweep(options?: { signal?: AbortSignal }): Promise<SweepReport>;
}

/** A run retention removed: the head its chain had. */
export interface RetiredRun {
  runId: string;
  seq: number;
  hash: string;
  retiredAt: string;
}

/** One transaction: up to `batchSize` due runs (finished before `cutoff`), oldest first, anchored then removed: how many, and the heads of those that had a chain. */
export type RetireBatch = (input: {
  cutoff: string;
  retiredAt: string;
  batchSize: number;
}) => { count: number; anchored: RetiredRun[] } | Promise<{ count: number; anchored: RetiredRun[] }>;

export interface RetentionInput {
  /** The SQLite database to sweep, or the backend's own batch (`retireBatch`). */
  database?: DatabaseSync;
  retireBatch?: RetireBatch;
  /** Hears of every run removed, once its batch is committed (the service logs a signed anchor for each). */
  onRetired?(run: RetiredRun): void;
  /** Finished runs older than this are removed; must be at least 1 (0, "forever", means no Retention at all). */
  days: number;
  batchSize?: number;
  now?: () => Date;
}

export function createRetention(input: RetentionInput): Retention {
  if (!Number.isInteger(input.days) || input.days < 1)
    throw new RangeError(`retention days must be a whole number of at least 1, not ${input.days}`);
  const batchSize = input.batchSize ?? DEFAULT_BATCH_SIZE;
  const now = input.now ?? (() => new Date());
  const retireBatch = input.retireBatch ?? (input.database ? sqliteRetireBatch(input.database) : undefined);
  if (!retireBatch) throw new TypeError('retention needs a database or a retireBatch');

  return {
    days: input.days,
    async sweep({ signal } = {}) {
      const started = performance.now();
      const cutoff = new Date(now().getTime() - input.days * DAY_MS).toISOString();
      let retired = 0;
      let batches = 0;
      for (;;) {
        const { count, anchored } = await retireBatch({ cutoff, retiredAt: now().toISOString(), batchSize });
        if (count === 0) break;
        for (const run of anchored) input.onRetired?.(run);
        retired += count;
        batches += 1;
        if (count < batchSize || signal?.aborted) break;
        // Let waiting requests and their writes in before the next batch.
        await new Promise((resolve) => setImmediate(resolve));
      }
      return { retired, batches, cutoff, durationMs: Math.round(performance.now() - started) };
    },
  };
}

/** SQLite's batch (RetireBatch). */
export function sqliteRetireBatch(
  database: DatabaseSync,
): (input: { cutoff: string; retiredAt: string; batchSize: number }) => { count: number; anchored: RetiredRun[] } {
  // Only the statuses known to be final; finished_at < cutoff also leaves out runs without one.
  const selectDue = database.prepare(
    "SELECT id FROM runs WHERE finished_at < ? AND status IN ('completed', 'failed') ORDER BY finished_at LIMIT ?",
  );
  const anchor = database.prepare(
    'INSERT INTO audit_retired (run_id, seq, hash, retired_at) SELECT run_id, seq, hash, ? FROM audit_heads WHERE run_id = ? ' +
      'ON CONFLICT (run_id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, retired_at = excluded.retired_at',
  );
  const selectHead = database.prepare('SELECT seq, hash FROM audit_heads WHERE run_id = ?');
  const deleteEvents = database.prepare('DELETE FROM audit_events WHERE run_id = ?');
  const deleteHead = database.prepare('DELETE FROM audit_heads WHERE run_id = ?');
  const deleteRun = database.prepare("DELETE FROM runs WHERE id = ? AND status IN ('completed', 'failed')");

  return ({ cutoff, retiredAt, batchSize }) => {
    database.exec('BEGIN IMMEDIATE');
    try {
      const due = selectDue.all(cutoff, batchSize) as { id: string }[];
      const removed: RetiredRun[] = [];
      for (const { id } of due) {
        const head = selectHead.get(id) as { seq: number; hash: string } | undefined;
        if (head) removed.push({ runId: id, seq: head.seq, hash: head.hash, retiredAt });
        anchor.run(retiredAt, id);
        deleteEvents.run(id);
        deleteHead.run(id);
        deleteRun.run(id);
      }
      database.exec('COMMIT');
      return { count: due.length, anchored: removed };
    } catch (error) {
      database.exec('ROLLBACK');
      throw error;
    }
  };
}

export interface RetentionTimer {
  /** Stops the timer and waits for a sweep under way to finish its batch. */
  stop(): Promise<void>;
}

/** Sweeps now, then every `intervalMs` (default hourly). A failed sweep is reported and the next one tries again. */
export function startRetention(input: {
  retention: Retention;
  intervalMs?: number;
  onSweep(report: SweepReport): void;
  onError(error: unknown): void;
}): RetentionTimer {
  const stopping = new AbortController();
  let current: Promise<void> | undefined;
  const sweep = (): void => {
    if (stopping.signal.aborted || current) return;
    current = input.retention
      .sweep({ signal: stopping.signal })
      .then(input.onSweep)
      .catch(input.onError)
      .finally(() => (current = undefined));
  };
  const timer = setInterval(sweep, input.intervalMs ?? DEFAULT_INTERVAL_MS);
  timer.unref();
  sweep();
  return {
    async stop() {
      stopping.abort();
      clearInterval(timer);
      await current;
    },
  };
}
