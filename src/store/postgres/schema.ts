/**
 * The PostgreSQL schema as numbered steps, like SQLite's (migrations.ts). The table
 * `kubewhy_schema` holds the number of the last step applied; `migratePostgres` applies
 * the steps after it, each in its own transaction, under an advisory lock, so replicas
 * that start together wait for each other and a step never runs twice. A database newer
 * than this build is refused. A step, once released, is never edited.
 *
 * Step 1 is SQLite's schema at its step 7, with the same tables and column names: times
 * are ISO 8601 text and JSON is text, exactly as SQLite stores them. Every text column
 * sorts by byte (COLLATE "C", SQLite's BINARY), so time ranges, culprit key prefixes and
 * ordering by id behave as in SQLite whatever the database's locale. What only a shared
 * database needs comes with it: the lease of a running run, the index that claims runs,
 * and the unique index that allows one unfinished run per alert firing.
 */
import type pg from 'pg';
import { SchemaError } from '../migrations.ts';
import { checkOut, type Queryable } from './queryable.ts';

export { SchemaError } from '../migrations.ts';

export interface PostgresMigration {
  version: number;
  /** What the step changes, for the error when it fails. */
  description: string;
  up(client: Queryable): Promise<void>;
}

/** pg_advisory_lock key of schema changes ("kubew" 01): held while steps are applied. */
export const SCHEMA_LOCK_KEY = 0x6b75_6265_7701;

const TEXT = 'text COLLATE "C"';

const SCHEMA_1 = `
CREATE TABLE audit_events (
  run_id ${TEXT} NOT NULL,
  seq integer NOT NULL,
  time ${TEXT} NOT NULL,
  type ${TEXT} NOT NULL,
  payload ${TEXT} NOT NULL,
  prev_hash ${TEXT} NOT NULL,
  hash ${TEXT} NOT NULL,
  PRIMARY KEY (run_id, seq)
);
CREATE TABLE audit_heads (
  run_id ${TEXT} PRIMARY KEY,
  seq integer NOT NULL,
  hash ${TEXT} NOT NULL
);
CREATE TABLE audit_retired (
  run_id ${TEXT} PRIMARY KEY,
  seq integer NOT NULL,
  hash ${TEXT} NOT NULL,
  retired_at ${TEXT} NOT NULL
);
CREATE TABLE runs (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id ${TEXT} NOT NULL UNIQUE,
  trigger_kind ${TEXT} NOT NULL,
  trigger ${TEXT} NOT NULL,
  source ${TEXT} NOT NULL,
  fingerprint ${TEXT},
  starts_at ${TEXT},
  status ${TEXT} NOT NULL,
  rung ${TEXT} NOT NULL,
  namespace ${TEXT},
  created_at ${TEXT} NOT NULL,
  started_at ${TEXT},
  finished_at ${TEXT},
  diagnosis ${TEXT},
  reason ${TEXT},
  usage ${TEXT},
  steps integer,
  actions ${TEXT} NOT NULL DEFAULT '[]',
  resolved_at ${TEXT},
  repeats integer NOT NULL DEFAULT 0,
  attempts integer NOT NULL DEFAULT 0,
  checkpoint ${TEXT},
  not_before ${TEXT},
  earlier_failures integer NOT NULL DEFAULT 0,
  cluster ${TEXT},
  lease_owner ${TEXT},
  lease_until ${TEXT}
);
-- Claiming (queued, oldest first), counting the queue, listing by status, finding expired leases.
CREATE INDEX runs_status ON runs (status, seq);
CREATE INDEX runs_by_finish ON runs (finished_at);
-- One unfinished run per alert firing, whichever replica ingests it: the backstop under deduplication.
CREATE UNIQUE INDEX runs_one_unfinished_per_alert ON runs (fingerprint, starts_at)
  WHERE fingerprint IS NOT NULL AND status IN ('queued', 'running', 'awaiting_approval');
CREATE TABLE run_culprits (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  key ${TEXT} NOT NULL,
  run_id ${TEXT} NOT NULL
);
CREATE INDEX run_culprits_by_key ON run_culprits (key, seq);
CREATE INDEX run_culprits_by_run ON run_culprits (run_id);
CREATE TABLE run_alerts (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  run_id ${TEXT} NOT NULL,
  fingerprint ${TEXT} NOT NULL,
  starts_at ${TEXT} NOT NULL,
  alertname ${TEXT},
  labels ${TEXT} NOT NULL,
  status ${TEXT} NOT NULL,
  ends_at ${TEXT},
  received_at ${TEXT} NOT NULL,
  repeats integer NOT NULL DEFAULT 0,
  UNIQUE (run_id, fingerprint, starts_at)
);
CREATE INDEX run_alerts_by_alert ON run_alerts (fingerprint, starts_at, seq);
CREATE TABLE notification_notices (
  run_id ${TEXT} NOT NULL,
  key ${TEXT} NOT NULL,
  noted_at ${TEXT} NOT NULL,
  PRIMARY KEY (run_id, key)
);
CREATE TABLE notification_outbox (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  delivery_id ${TEXT} NOT NULL UNIQUE,
  run_id ${TEXT} NOT NULL,
  event ${TEXT} NOT NULL,
  destination ${TEXT} NOT NULL,
  body ${TEXT} NOT NULL,
  status ${TEXT} NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at bigint NOT NULL,
  leased integer NOT NULL DEFAULT 0,
  last_error ${TEXT},
  created_at bigint NOT NULL,
  sent_at bigint
);
CREATE INDEX notification_outbox_due ON notification_outbox (status, next_attempt_at);
CREATE INDEX notification_outbox_by_run ON notification_outbox (run_id, destination, id);
CREATE TABLE notification_threads (
  run_id ${TEXT} NOT NULL,
  destination ${TEXT} NOT NULL,
  thread ${TEXT} NOT NULL,
  PRIMARY KEY (run_id, destination)
);
-- SQLite's AFTER DELETE triggers: a removed run takes its alerts, keys and notifications with it.
CREATE FUNCTION kubewhy_run_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM run_alerts WHERE run_id = OLD.id;
  DELETE FROM run_culprits WHERE run_id = OLD.id;
  DELETE FROM notification_notices WHERE run_id = OLD.id;
  DELETE FROM notification_outbox WHERE run_id = OLD.id;
  DELETE FROM notification_threads WHERE run_id = OLD.id;
  RETURN OLD;
END;
$$;
CREATE TRIGGER runs_follow_deletes AFTER DELETE ON runs FOR EACH ROW EXECUTE FUNCTION kubewhy_run_deleted();
`;

/** Every step, in order. New steps go at the end with the next number. */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    description:
      "SQLite's schema at its step 7 (runs, audit chains, notifications), with run leases and one unfinished run per alert firing",
    up: async (client) => void (await client.query(SCHEMA_1)),
  },
];

/** The schema version this build writes. */
export function latestPostgresSchemaVersion(migrations: readonly PostgresMigration[] = POSTGRES_MIGRATIONS): number {
  return migrations.at(-1)?.version ?? 0;
}

/** The database's schema version: 0 for an empty database. */
export async function postgresSchemaVersion(db: Queryable): Promise<number> {
  // Two statements: a query naming a table that does not exist fails when it is planned.
  const exists = await db.query<{ found: boolean }>("SELECT to_regclass('kubewhy_schema') IS NOT NULL AS found");
  if (!exists.rows[0]?.found) return 0;
  const { rows } = await db.query<{ version: number | null }>('SELECT max(version) AS version FROM kubewhy_schema');
  return rows[0]?.version ?? 0;
}

/** Applies the steps after the database's version; returns the versions applied. */
export async function migratePostgres(
  pool: pg.Pool,
  migrations: readonly PostgresMigration[] = POSTGRES_MIGRATIONS,
): Promise<number[]> {
  checkOrder(migrations);
  const latest = latestPostgresSchemaVersion(migrations);
  const { client, release } = await checkOut(pool);
  let broken: unknown;
  try {
    // Session-level: held across the steps' own transactions, and waited for by every other replica.
    await client.query('SELECT pg_advisory_lock($1)', [SCHEMA_LOCK_KEY]);
    try {
      return await applySteps(client, migrations, latest);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [SCHEMA_LOCK_KEY]).catch((error: unknown) => {
        // A connection that may still hold the lock must not go back to the pool.
        broken = error;
      });
    }
  } finally {
    release(broken);
  }
}

async function applySteps(
  client: pg.PoolClient,
  migrations: readonly PostgresMigration[],
  latest: number,
): Promise<number[]> {
  await client.query('CREATE TABLE IF NOT EXISTS kubewhy_schema (version int NOT NULL)');
  await client.query('INSERT INTO kubewhy_schema (version) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM kubewhy_schema)');
  const current = await postgresSchemaVersion(client);
  if (current > latest) {
    throw new SchemaError(
      `the database is at schema version ${current}, newer than this kubewhy knows (${latest}): run the newer kubewhy, or restore a backup taken before the upgrade`,
    );
  }
  const applied: number[] = [];
  for (const migration of migrations) {
    if (migration.version <= current) continue;
    await client.query('BEGIN');
    try {
      await migration.up(client);
      await client.query('UPDATE kubewhy_schema SET version = $1', [migration.version]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK');
      const message = error instanceof Error ? error.message : String(error);
      throw new SchemaError(`schema step ${migration.version} (${migration.description}) failed: ${message}`, {
        cause: error,
      });
    }
    applied.push(migration.version);
  }
  return applied;
}

function checkOrder(migrations: readonly PostgresMigration[]): void {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1)
      throw new SchemaError(`schema steps must be numbered 1, 2, 3...: step ${index + 1} says ${migration.version}`);
  });
}
