/**
 * The stores on one SQLite database (the embedded default): the synchronous stores of
 * run-store.ts, audit-store.ts and outbox.ts, answering promises. node:sqlite answers
 * before it returns, so each call is whole before anything else runs, except during a
 * group-committed batch, whose work awaits between its statements: while one is open,
 * the other calls on this connection wait for it (`hold`), so that none lands inside its
 * transaction. The batch's own work writes through `tx`, which does not wait.
 *
 * One process owns the database (lock.ts): its runs are queued in memory, so there is no
 * shared queue.
 */
import type { DatabaseSync } from 'node:sqlite';
import { createAuditStore } from '../audit/audit-store.ts';
import { createOutbox } from './outbox.ts';
import { createRetention, sqliteRetireBatch } from './retention.ts';
import { createRunStore } from './run-store.ts';
import type { Async, AuditStore, Stores } from './ports.ts';
import { createWriteBatcher } from './write-batch.ts';

/** Closed while a batch's transaction is open: calls wait for it to open again. */
export interface Hold {
  close(): void;
  open(): void;
  /** Runs `call` now, or once the hold opens. */
  run<T>(call: () => T): Promise<T>;
}

export function createHold(): Hold {
  let closed: { promise: Promise<void>; open(): void } | undefined;
  const hold: Hold = {
    close() {
      if (closed) return;
      let open = (): void => undefined;
      const promise = new Promise<void>((resolve) => (open = resolve));
      closed = { promise, open };
    },
    open() {
      const current = closed;
      closed = undefined;
      current?.open();
    },
    run<T>(call: () => T): Promise<T> {
      return closed ? closed.promise.then(() => hold.run(call)) : callNow(call);
    },
  };
  return hold;
}

/** A synchronous call's answer as a promise: its throw a rejection. */
function callNow<T>(call: () => T): Promise<T> {
  try {
    return Promise.resolve(call());
  } catch (error) {
    return Promise.reject(error as Error);
  }
}

/** A synchronous store's methods as promises, each run through `hold` when one is given. */
export function asAsync<T extends object>(store: T, hold?: Hold): Async<T> {
  const wrapped: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(store)) {
    if (typeof value !== 'function') continue;
    const method = value as (...args: unknown[]) => unknown;
    const run = hold ? hold.run : callNow;
    wrapped[name] = (...args: unknown[]) => run(() => method.apply(store, args));
  }
  return wrapped as Async<T>;
}

export function createSqliteStores(
  database: DatabaseSync,
  options: { location?: string; onAfterCommitError?: (error: unknown) => void } = {},
): Stores {
  const hold = createHold();
  const runs = createRunStore(database);
  const audit = createAuditStore(database);
  const outbox = createOutbox(database);
  return {
    kind: 'sqlite',
    location: options.location ?? 'SQLite',
    runs: asAsync(runs, hold),
    audit: asAsync(audit, hold) as AuditStore,
    outbox: asAsync(outbox, hold),
    writes: createWriteBatcher(database, {
      tx: { runs: asAsync(runs) },
      hold,
      ...(options.onAfterCommitError ? { onAfterCommitError: options.onAfterCommitError } : {}),
    }),
    retention(input) {
      const retire = sqliteRetireBatch(database);
      return createRetention({ ...input, retireBatch: (batch) => hold.run(() => retire(batch)) });
    },
    ping: () => hold.run(() => void database.prepare('SELECT 1').get()),
    async close() {
      // The caller that opened the database closes it.
    },
  };
}
