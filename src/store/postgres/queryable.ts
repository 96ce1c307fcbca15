/**
 * What the PostgreSQL stores query through: the pool (each statement on whichever client
 * is free, or a transaction of its own) or one client inside a transaction (a batch's).
 * `pg` answers bigint columns as strings; the stores cast small ones in SQL or parse them
 * with Number in their row mappers, and never change pg's global type parsers.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';

export interface Queryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

/** A client taken from the pool, to give back once (dropped rather than pooled when it failed). */
export interface CheckedOut {
  client: pg.PoolClient;
  release(error?: unknown): void;
}

/**
 * Takes a client from the pool for several statements. The pool hears an idle client's
 * errors, not a checked-out one's: this listener does meanwhile, so a connection lost
 * between two statements fails the next one instead of crashing the process.
 */
export async function checkOut(pool: pg.Pool): Promise<CheckedOut> {
  const client = await pool.connect();
  let lost: Error | undefined;
  let released = false;
  const onError = (error: Error): void => {
    lost = error;
  };
  client.on('error', onError);
  return {
    client,
    release(error) {
      if (released) return;
      released = true;
      client.removeListener('error', onError);
      const broken = error ?? lost;
      client.release(broken === undefined ? undefined : broken instanceof Error ? broken : new Error(String(broken)));
    },
  };
}

/**
 * Runs `work` atomically. On a pool it checks out one client and wraps the work in
 * BEGIN/COMMIT (ROLLBACK when it throws); given a client already inside a transaction
 * (`inTransaction`), it runs the work there, the caller owning the commit.
 */
export async function atomically<T>(
  db: Queryable,
  inTransaction: boolean,
  work: (client: Queryable) => Promise<T>,
): Promise<T> {
  if (inTransaction) return work(db);
  const pooled = db instanceof pg.Pool ? await checkOut(db) : undefined;
  const client: Queryable = pooled?.client ?? db;
  let broken: unknown;
  try {
    await client.query('BEGIN');
    try {
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: unknown) => {
        // A client that cannot roll back is not handed to anyone else.
        broken = rollbackError;
      });
      throw error;
    }
  } finally {
    pooled?.release(broken);
  }
}

/** PostgreSQL's unique_violation: a row that an unique index already holds. */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}

/**
 * The same queries as named prepared statements: the server parses and plans each text
 * once per connection instead of at every call (the hot path of intake is a handful of
 * short statements, run for every alert). `db` itself is kept for `atomically`.
 */
export function prepared(db: Queryable): Queryable & { unprepared: Queryable } {
  return {
    unprepared: db,
    query<R extends pg.QueryResultRow = pg.QueryResultRow>(
      text: string,
      values?: unknown[],
    ): Promise<pg.QueryResult<R>> {
      return (db as Pick<pg.Pool, 'query'>).query<R>({
        name: statementName(text),
        text,
        ...(values ? { values } : {}),
      });
    },
  };
}

const statementNames = new Map<string, string>();

function statementName(text: string): string {
  let name = statementNames.get(text);
  if (!name) {
    name = `kubewhy_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    statementNames.set(text, name);
  }
  return name;
}

/**
 * A pool on `url`, named in pg_stat_activity. An idle client's error (the server
 * restarted) is emitted on the pool, where unheard it would crash the process: it goes to
 * `onError`, and the next query opens another connection.
 */
export function createPool(
  url: string,
  options: { max: number; name: string; onError?(error: Error): void; readOnly?: boolean },
): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max,
    application_name: options.name,
    // The server itself refuses a write in every transaction.
    ...(options.readOnly ? { options: '-c default_transaction_read_only=on' } : {}),
  });
  pool.on('error', (error) => options.onError?.(error));
  return pool;
}
