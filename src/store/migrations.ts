/**
 * The database schema as numbered steps. `PRAGMA user_version` holds the number of the
 * last step applied; opening a database applies the steps after it, each in its own
 * transaction, in order, so a database written by any earlier version is brought up to
 * date and a step never runs twice. A database newer than this build (a downgrade) is
 * refused rather than written with a schema it does not know.
 *
 * Step 1 is the schema of version 0.1.0, which created its tables with `IF NOT EXISTS`
 * and left `user_version` at 0: applying step 1 to such a database changes nothing.
 * A step, once released, is never edited: a change is a new step.
 */
import type { DatabaseSync } from 'node:sqlite';

export interface Migration {
  version: number;
  /** What the step changes, for the log and the error when it fails. */
  description: string;
  up(database: DatabaseSync): void;
}

const SCHEMA_0_1_0 = `
CREATE TABLE IF NOT EXISTS audit_events (
  run_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  time TEXT NOT NULL,
  type TEXT NOT NULL,
  payload TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
);
CREATE TABLE IF NOT EXISTS audit_heads (
  run_id TEXT PRIMARY KEY,
  seq INTEGER NOT NULL,
  hash TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  trigger_kind TEXT NOT NULL,
  trigger TEXT NOT NULL,
  source TEXT NOT NULL,
  fingerprint TEXT,
  starts_at TEXT,
  status TEXT NOT NULL,
  rung TEXT NOT NULL,
  namespace TEXT,
  created_at TEXT NOT NULL,
  started_at TEXT,
  finished_at TEXT,
  diagnosis TEXT,
  reason TEXT,
  usage TEXT,
  steps INTEGER,
  actions TEXT NOT NULL DEFAULT '[]',
  resolved_at TEXT,
  repeats INTEGER NOT NULL DEFAULT 0,
  attempts INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS runs_by_alert ON runs (fingerprint, starts_at, seq);
CREATE INDEX IF NOT EXISTS runs_status ON runs (status);
`;

/** Every step, in order. New steps go at the end with the next number. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'runs and the audit chain (the schema of 0.1.0)',
    up: (database) => database.exec(SCHEMA_0_1_0),
  },
  {
    version: 2,
    description: 'parked runs: the checkpoint of a run awaiting approval, and the time before which a queued run waits',
    up: (database) =>
      database.exec('ALTER TABLE runs ADD COLUMN checkpoint TEXT; ALTER TABLE runs ADD COLUMN not_before TEXT;'),
  },
  {
    version: 3,
    description: 'retention: the audit heads of removed runs (audit_retired), and runs by finish time',
    up: (database) =>
      database.exec(
        'CREATE TABLE audit_retired (run_id TEXT PRIMARY KEY, seq INTEGER NOT NULL, hash TEXT NOT NULL, retired_at TEXT NOT NULL); CREATE INDEX runs_by_finish ON runs (finished_at);',
      ),
  },
  {
    version: 4,
    description:
      "one run per incident: the culprit keys a run answers for (run_culprits), its earlier failures, and the alerts attached to it (run_alerts, filled from the runs' own alerts)",
    up: (database) =>
      database.exec(`
ALTER TABLE runs ADD COLUMN earlier_failures INTEGER NOT NULL DEFAULT 0;
CREATE TABLE run_culprits (
  seq INTEGER PRIMARY KEY,
  key TEXT NOT NULL,
  run_id TEXT NOT NULL
);
CREATE INDEX run_culprits_by_key ON run_culprits (key, seq);
CREATE INDEX run_culprits_by_run ON run_culprits (run_id);
CREATE TABLE run_alerts (
  seq INTEGER PRIMARY KEY,
  run_id TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  starts_at TEXT NOT NULL,
  alertname TEXT,
  labels TEXT NOT NULL,
  status TEXT NOT NULL,
  ends_at TEXT,
  received_at TEXT NOT NULL,
  repeats INTEGER NOT NULL DEFAULT 0,
  UNIQUE (run_id, fingerprint, starts_at)
);
CREATE INDEX run_alerts_by_alert ON run_alerts (fingerprint, starts_at, seq);
CREATE TRIGGER run_alerts_follow_runs AFTER DELETE ON runs BEGIN DELETE FROM run_alerts WHERE run_id = OLD.id; DELETE FROM run_culprits WHERE run_id = OLD.id; END;
INSERT INTO run_alerts (run_id, fingerprint, starts_at, alertname, labels, status, ends_at, received_at, repeats)
  SELECT id, fingerprint, starts_at, json_extract(trigger, '$.alert.labels.alertname'), COALESCE(json_extract(trigger, '$.alert.labels'), '{}'),
         CASE WHEN resolved_at IS NULL THEN 'firing' ELSE 'resolved' END, resolved_at, created_at, repeats
  FROM runs WHERE fingerprint IS NOT NULL AND starts_at IS NOT NULL ORDER BY seq;
`),
  },
  {
    version: 5,
    description:
      'drop runs_by_alert: alerts are found through run_alerts, and every index is one more write per ingested alert',
    up: (database) => database.exec('DROP INDEX IF EXISTS runs_by_alert;'),
  },
  {
    version: 6,
    description:
      'the cluster each run read (context and API server), so every diagnosis says which cluster it is about',
    up: (database) => database.exec('ALTER TABLE runs ADD COLUMN cluster TEXT;'),
  },
  {
    version: 7,
    description:
      'notifications: the outbox of messages to Slack, Teams and webhooks, the notices each run has had, and the Slack thread of each run',
    up: (database) =>
      database.exec(`
CREATE TABLE notification_notices (
  run_id TEXT NOT NULL,
  key TEXT NOT NULL,
  noted_at TEXT NOT NULL,
  PRIMARY KEY (run_id, key)
);
CREATE TABLE notification_outbox (
  id INTEGER PRIMARY KEY,
  delivery_id TEXT NOT NULL UNIQUE,
  run_id TEXT NOT NULL,
  event TEXT NOT NULL,
  destination TEXT NOT NULL,
  body TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  leased INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  created_at INTEGER NOT NULL,
  sent_at INTEGER
);
CREATE INDEX notification_outbox_due ON notification_outbox (status, next_attempt_at);
CREATE INDEX notification_outbox_by_run ON notification_outbox (run_id, destination, id);
CREATE TABLE notification_threads (
  run_id TEXT NOT NULL,
  destination TEXT NOT NULL,
  thread TEXT NOT NULL,
  PRIMARY KEY (run_id, destination)
);
CREATE TRIGGER notifications_follow_runs AFTER DELETE ON runs BEGIN
  DELETE FROM notification_notices WHERE run_id = OLD.id;
  DELETE FROM notification_outbox WHERE run_id = OLD.id;
  DELETE FROM notification_threads WHERE run_id = OLD.id;
END;
`),
  },
];

export class SchemaError extends Error {
  override name = 'SchemaError';
}

/** The schema version this build writes. */
export function latestSchemaVersion(migrations: readonly Migration[] = MIGRATIONS): number {
  return migrations.at(-1)?.version ?? 0;
}

export function schemaVersion(database: DatabaseSync): number {
  const row = database.prepare('PRAGMA user_version').get() as { user_version: number };
  return row.user_version;
}

/** Applies the steps after the database's version; returns the versions applied. */
export function migrate(database: DatabaseSync, migrations: readonly Migration[] = MIGRATIONS): number[] {
  checkOrder(migrations);
  const current = schemaVersion(database);
  const latest = latestSchemaVersion(migrations);
  if (current > latest) {
    throw new SchemaError(
      `the database is at schema version ${current}, newer than this kubewhy knows (${latest}): run the newer kubewhy, or restore a backup taken before the upgrade`,
    );
  }
  const applied: number[] = [];
  for (const migration of migrations) {
    if (migration.version <= current) continue;
    database.exec('BEGIN IMMEDIATE');
    try {
      // Another process may have applied it between our read and our lock.
      if (schemaVersion(database) >= migration.version) {
        database.exec('COMMIT');
        continue;
      }
      migration.up(database);
      // PRAGMA takes no bound parameters; the version is an integer from the list above.
      database.exec(`PRAGMA user_version = ${migration.version}`);
      database.exec('COMMIT');
    } catch (error) {
      database.exec('ROLLBACK');
      const message = error instanceof Error ? error.message : String(error);
      throw new SchemaError(`schema step ${migration.version} (${migration.description}) failed: ${message}`, {
        cause: error,
      });
    }
    applied.push(migration.version);
  }
  return applied;
}

function checkOrder(migrations: readonly Migration[]): void {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1)
      throw new SchemaError(`schema steps must be numbered 1, 2, 3...: step ${index + 1} says ${migration.version}`);
  });
}
