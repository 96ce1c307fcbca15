/**
 * The stores on one PostgreSQL database that several replicas share (chosen by
 * `KUBEWHY_DATABASE_URL`): runs, audit chains, the outbox, group-committed writes,
 * retention, and the shared queue. Opening brings the schema up to date first (schema.ts).
 *
 * A batch of writes is one transaction on one client that first takes a transaction-level
 * advisory lock: intake is serialized across replicas, so deduplication and correlation
 * in one replica's batch see the runs another's committed. Each job of a batch runs in a
 * savepoint; a job that hits the one-unfinished-run-per-alert index (the backstop behind
 * deduplication) fails alone.
 */
import type pg from 'pg';
import { createRetention } from '../retention.ts';
import type { Stores } from '../ports.ts';
import { createBatcher, type BatchTransaction } from '../write-batch.ts';
import { createPgAuditStore } from './audit-store.ts';
import { createPgOutbox } from './outbox.ts';
import { checkOut, createPool } from './queryable.ts';
import { pgRetireBatch } from './retention.ts';
import { createPgRunStore } from './run-store.ts';
import { latestPostgresSchemaVersion, migratePostgres, postgresSchemaVersion, SchemaError } from './schema.ts';
import { createPgSharedQueue } from './shared-queue.ts';

/** pg_advisory_xact_lock key of intake batches ("kubew" 02): one replica's batch at a time. */
export const INTAKE_LOCK_KEY = 0x6b75_6265_7702;

export interface PostgresStoresOptions {
  /** This replica's name: the owner of the leases it takes. */
  owner: string;
  /** How long a claimed run stays this replica's without a heartbeat; default 30 s. */
  leaseMs?: number;
  /** Connections in the pool; default 10. */
  poolSize?: number;
  onAfterCommitError?(error: unknown): void;
  /** Hears of an idle pooled connection lost, or the listener's (both recover by themselves). */
  onError?(error: unknown): void;
  /** Applies the schema steps this build has and the database lacks; default true. When false, a database at another version is refused. */
  migrate?: boolean;
}

export async function openPostgresStores(url: string, options: PostgresStoresOptions): Promise<Stores> {
  const location = redactDatabaseUrl(url);
  const pool = createPool(url, {
    max: options.poolSize ?? 10,
    name: 'kubewhy',
    ...(options.onError ? { onError: options.onError } : {}),
  });
  try {
    if (options.migrate ?? true) await migratePostgres(pool);
    else await checkSchema(pool);
  } catch (error) {
    await pool.end().catch(() => undefined);
    // Name the database, never its password: an operator may run several.
    if (error instanceof SchemaError)
      throw new SchemaError(`${location}: ${error.message}`, { cause: error.cause ?? error });
    throw error;
  }

  return {
    kind: 'postgresql',
    location,
    runs: createPgRunStore(pool),
    audit: createPgAuditStore(pool),
    outbox: createPgOutbox(pool),
    shared: createPgSharedQueue(pool, {
      owner: options.owner,
      leaseMs: options.leaseMs ?? 30_000,
      ...(options.onError ? { onError: options.onError } : {}),
    }),
    writes: createBatcher(
      { begin: () => beginBatch(pool) },
      options.onAfterCommitError ? { onAfterCommitError: options.onAfterCommitError } : {},
    ),
    retention: (input) => createRetention({ ...input, retireBatch: pgRetireBatch(pool) }),
    async ping() {
      await pool.query('SELECT 1');
    },
    async close() {
      await pool.end();
    },
  };
}

/** Without migrating, the schema must be this build's exactly: an older one lacks what the queries need. */
async function checkSchema(pool: pg.Pool): Promise<void> {
  const current = await postgresSchemaVersion(pool);
  const latest = latestPostgresSchemaVersion();
  if (current !== latest) {
    throw new SchemaError(
      `the database is at schema version ${current} and this kubewhy needs ${latest}: open it once with migrations on (or run the kubewhy that matches it)`,
    );
  }
}

/**
 * One batch: a client of its own, in a transaction that holds the intake lock. A batch is
 * round trips one after another while every replica's intake waits for the lock, so the
 * statements of the frame travel together: BEGIN with the lock, and a job's RELEASE with
 * the next job's SAVEPOINT (COMMIT releases the last).
 */
async function beginBatch(pool: pg.Pool): Promise<BatchTransaction> {
  const { client, release } = await checkOut(pool);
  try {
    // One simple-protocol query of two statements: the key is this module's constant, never input.
    await client.query(`BEGIN; SELECT pg_advisory_xact_lock(${INTAKE_LOCK_KEY})`);
  } catch (error) {
    // A client whose transaction state is unknown is dropped, not pooled.
    release(error);
    throw error;
  }
  let open = true;
  let released = false;
  return {
    tx: { runs: createPgRunStore(client, { inTransaction: true }) },
    async savepoint() {
      await client.query(released ? 'RELEASE SAVEPOINT request; SAVEPOINT request' : 'SAVEPOINT request');
      released = false;
    },
    release() {
      released = true;
    },
    rollbackToSavepoint: async () => void (await client.query('ROLLBACK TO SAVEPOINT request')),
    async commit() {
      // A failed COMMIT is followed by rollback(), which gives the client back.
      await client.query('COMMIT');
      open = false;
      release();
    },
    async rollback() {
      if (!open) return;
      open = false;
      try {
        await client.query('ROLLBACK');
        release();
      } catch (error) {
        release(error);
        throw error;
      }
    },
  };
}

/** The URL with its password replaced by `***`, for logs and `location`; a key=value connection string gets the same. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    // libpq also takes `?password=` (and `sslpassword=`) as query parameters.
    for (const name of [...parsed.searchParams.keys()])
      if (/password/i.test(name)) parsed.searchParams.set(name, '***');
    return parsed.toString();
  } catch {
    return url.replace(/(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)/gi, '$1***');
  }
}
