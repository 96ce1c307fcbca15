/**
 * Group commit: the writes of every request that arrives within one turn of the event
 * loop share one transaction, so a burst of webhook calls pays for one commit, not one
 * each. Each request's work runs in its own savepoint: a failing one is undone alone and
 * rejected, the others commit. A promise resolves only after COMMIT, which is what lets a
 * caller answer "stored". `afterCommit` runs once the data is durable (queue the runs,
 * count them); `afterRollback` once it is certain it never will be.
 *
 * Work gets the batch's transaction as `tx` and must write through it only; the batches
 * run one after another. The backend supplies the transaction (`BatchDriver`): SQLite's
 * here (`createWriteBatcher`), PostgreSQL's in postgres/stores.ts.
 */
import type { DatabaseSync } from 'node:sqlite';
import { BUSY_TIMEOUT_MS } from './database.ts';
import type { BatchedWork, TxStores, WriteBatcher } from './ports.ts';

export type { BatchedWork, WriteBatcher } from './ports.ts';

/** One open batch transaction. */
export interface BatchTransaction {
  tx: TxStores;
  savepoint(): void | Promise<void>;
  release(): void | Promise<void>;
  rollbackToSavepoint(): void | Promise<void>;
  commit(): void | Promise<void>;
  rollback(): void | Promise<void>;
}

export interface BatchDriver {
  /** Opens a transaction; undefined when the database is busy: the batch tries again shortly, with the requests that arrive meanwhile. */
  begin(waitedMs: number): BatchTransaction | undefined | Promise<BatchTransaction | undefined>;
}

interface Job {
  work: (tx: TxStores) => BatchedWork<unknown> | Promise<BatchedWork<unknown>>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** How long a busy batch waits before it tries again. */
const LOCK_RETRY_MS = 1;

/** `onAfterCommitError` hears of an `afterCommit` that threw; the request still gets its result, the data being committed. */
export function createBatcher(
  driver: BatchDriver,
  options: { onAfterCommitError?: (error: unknown) => void } = {},
): WriteBatcher {
  let pending: Job[] = [];
  let scheduled = false;
  let flushing = false;
  let waitedMs = 0;

  const schedule = (delayMs?: number): void => {
    if (scheduled || flushing) return;
    scheduled = true;
    if (delayMs === undefined) setImmediate(() => void flush());
    else setTimeout(() => void flush(), delayMs);
  };

  /** Runs one job; with company, inside its own savepoint so a failure undoes it alone. */
  const runJob = async (
    transaction: BatchTransaction,
    job: Job,
    alone: boolean,
  ): Promise<BatchedWork<unknown> | undefined> => {
    if (!alone) await transaction.savepoint();
    try {
      const outcome = await job.work(transaction.tx);
      if (!alone) await transaction.release();
      return outcome;
    } catch (error) {
      if (!alone) {
        await transaction.rollbackToSavepoint();
        await transaction.release();
      }
      job.reject(error);
      return undefined;
    }
  };

  const flush = async (): Promise<void> => {
    scheduled = false;
    flushing = true;
    try {
      await flushPending();
    } finally {
      flushing = false;
      if (pending.length > 0) schedule(waitedMs > 0 ? LOCK_RETRY_MS : undefined);
    }
  };

  const flushPending = async (): Promise<void> => {
    const jobs = pending;
    pending = [];
    let transaction: BatchTransaction | undefined;
    try {
      transaction = await driver.begin(waitedMs);
    } catch (error) {
      waitedMs = 0;
      for (const job of jobs) job.reject(error);
      return;
    }
    if (!transaction) {
      pending = [...jobs, ...pending];
      waitedMs += LOCK_RETRY_MS;
      return;
    }
    waitedMs = 0;
    const done: { job: Job; outcome: BatchedWork<unknown> }[] = [];
    try {
      for (const job of jobs) {
        const outcome = await runJob(transaction, job, jobs.length === 1);
        if (outcome) done.push({ job, outcome });
      }
    } catch (error) {
      // A savepoint that cannot be rolled back to: the transaction is lost.
      await Promise.resolve(transaction.rollback()).catch(() => undefined);
      for (const { job, outcome } of done) {
        outcome.afterRollback?.();
        job.reject(error);
      }
      return;
    }
    if (done.length === 0) {
      // Nothing to keep (a lone job failed part-way): undo it all.
      await transaction.rollback();
      return;
    }
    try {
      await transaction.commit();
    } catch (error) {
      try {
        await transaction.rollback();
      } catch {
        // A failed COMMIT may have rolled back already.
      }
      for (const { job, outcome } of done) {
        outcome.afterRollback?.();
        job.reject(error);
      }
      return;
    }
    for (const { job, outcome } of done) {
      try {
        outcome.afterCommit?.();
      } catch (error) {
        options.onAfterCommitError?.(error);
      }
      job.resolve(outcome.result);
    }
  };

  return {
    run<T>(work: (tx: TxStores) => BatchedWork<T> | Promise<BatchedWork<T>>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        pending.push({ work, resolve: resolve as (value: unknown) => void, reject });
        schedule();
      });
    },
  };
}

/** How long a batch tries again for the write lock another connection holds before it waits for it. */
const LOCK_WAIT_MS = 100;

/** SQLITE_BUSY: another connection holds the lock. */
function isBusy(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { errcode?: number }).errcode === 5;
}

/**
 * SQLite's batches on `database`. `tx` is what work writes through (stores on this
 * connection, not held by `hold`); `hold` is told when a batch opens and closes, so that
 * other writes on the connection wait for it rather than land in its transaction.
 *
 * BEGIN IMMEDIATE does not wait while another connection (an agent worker's) holds the
 * write lock: the event loop would stand still for the wait. The batch tries again
 * shortly; after LOCK_WAIT_MS of trying, it waits for the lock like any other write.
 */
export function createWriteBatcher(
  database: DatabaseSync,
  options: {
    tx?: TxStores;
    hold?: { close(): void; open(): void };
    onAfterCommitError?: (error: unknown) => void;
  } = {},
): WriteBatcher {
  const begin = database.prepare('BEGIN IMMEDIATE');
  const commit = database.prepare('COMMIT');
  const rollback = database.prepare('ROLLBACK');
  const savepoint = database.prepare('SAVEPOINT request');
  const release = database.prepare('RELEASE request');
  const rollbackToSavepoint = database.prepare('ROLLBACK TO request');
  const dontWait = database.prepare('PRAGMA busy_timeout = 0');
  const waitAsUsual = database.prepare(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  const tx = options.tx ?? ({} as TxStores);

  const tryBegin = (waitedMs: number): boolean => {
    if (waitedMs >= LOCK_WAIT_MS) {
      begin.run();
      return true;
    }
    dontWait.run();
    try {
      begin.run();
      return true;
    } catch (error) {
      if (!isBusy(error)) throw error;
      return false;
    } finally {
      waitAsUsual.run();
    }
  };

  const transaction: BatchTransaction = {
    tx,
    savepoint: () => void savepoint.run(),
    release: () => void release.run(),
    rollbackToSavepoint: () => void rollbackToSavepoint.run(),
    commit() {
      try {
        commit.run();
      } finally {
        // A failed COMMIT is rolled back next, synchronously: nothing can slip in between.
        options.hold?.open();
      }
    },
    rollback() {
      try {
        if (database.isTransaction) rollback.run();
      } finally {
        options.hold?.open();
      }
    },
  };

  return createBatcher(
    {
      begin(waitedMs) {
        if (!tryBegin(waitedMs)) return undefined;
        options.hold?.close();
        return transaction;
      },
    },
    options,
  );
}
