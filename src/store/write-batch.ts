/**
 * Group commit: the writes of every request that arrives within one turn of the event
 * loop share one SQLite transaction, so a burst of webhook calls pays for one commit,
 * not one each. Each request's work runs in its own savepoint: a failing one is undone
 * alone and rejected, the others commit. A promise resolves only after COMMIT, which is
 * what lets a caller answer "stored". `afterCommit` runs once the data is durable (queue
 * the runs, count them); `afterRollback` once it is certain it never will be.
 *
 * Work runs synchronously inside the transaction: it must not await, and must not call
 * anything that opens a transaction of its own (the audit store does: use afterCommit).
 */
import type { DatabaseSync } from 'node:sqlite';
import { BUSY_TIMEOUT_MS } from './database.ts';

export interface BatchedWork<T> {
  result: T;
  afterCommit?(): void;
  afterRollback?(): void;
}

export interface WriteBatcher {
  run<T>(work: () => BatchedWork<T>): Promise<T>;
}

interface Job {
  work: () => BatchedWork<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** How often a batch tries again for the write lock another connection holds, and for how long before it waits for it. */
const LOCK_RETRY_MS = 1;
const LOCK_WAIT_MS = 100;

/** SQLITE_BUSY: another connection holds the lock. */
function isBusy(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { errcode?: number }).errcode === 5;
}

/** `onAfterCommitError` hears of an `afterCommit` that threw; the request still gets its result, the data being committed. */
export function createWriteBatcher(database: DatabaseSync, options: { onAfterCommitError?: (error: unknown) => void } = {}): WriteBatcher {
  const begin = database.prepare('BEGIN IMMEDIATE');
  const commit = database.prepare('COMMIT');
  const rollback = database.prepare('ROLLBACK');
  const savepoint = database.prepare('SAVEPOINT request');
  const release = database.prepare('RELEASE request');
  const rollbackToSavepoint = database.prepare('ROLLBACK TO request');
  let pending: Job[] = [];
  let scheduled = false;

  /** Runs one job; with company, inside its own savepoint so a failure undoes it alone. */
  const runJob = (job: Job, alone: boolean): BatchedWork<unknown> | undefined => {
    if (!alone) savepoint.run();
    try {
      const outcome = job.work();
      if (!alone) release.run();
      return outcome;
    } catch (error) {
      if (!alone) {
        rollbackToSavepoint.run();
        release.run();
      }
      job.reject(error);
      return undefined;
    }
  };

  const dontWait = database.prepare('PRAGMA busy_timeout = 0');
  const waitAsUsual = database.prepare(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  let waitedMs = 0;

  /**
   * BEGIN IMMEDIATE without waiting while another connection (an agent worker's) holds the
   * write lock: the event loop would stand still for the wait. false: try again shortly,
   * with the requests that arrive meanwhile in the same batch. After LOCK_WAIT_MS of
   * trying, it waits for the lock like any other write.
   */
  const tryBegin = (): boolean => {
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

  const flush = (): void => {
    scheduled = false;
    const jobs = pending;
    pending = [];
    try {
      if (!tryBegin()) {
        pending = [...jobs, ...pending];
        waitedMs += LOCK_RETRY_MS;
        scheduled = true;
        setTimeout(flush, LOCK_RETRY_MS);
        return;
      }
      waitedMs = 0;
    } catch (error) {
      waitedMs = 0;
      for (const job of jobs) job.reject(error);
      return;
    }
    const done: { job: Job; outcome: BatchedWork<unknown> }[] = [];
    for (const job of jobs) {
      const outcome = runJob(job, jobs.length === 1);
      if (outcome) done.push({ job, outcome });
    }
    if (done.length === 0) {
      // Nothing to keep (a lone job failed part-way): undo it all.
      rollback.run();
      return;
    }
    try {
      commit.run();
    } catch (error) {
      try {
        rollback.run();
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
    run<T>(work: () => BatchedWork<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        pending.push({ work, resolve: resolve as (value: unknown) => void, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
  };
}
