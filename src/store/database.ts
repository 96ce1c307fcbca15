/**
 * Opens the embedded SQLite database (node:sqlite): one file, WAL journal, a busy
 * timeout so several connections of one process can share it, and the schema applied.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

const SCHEMA = `
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

/** `:memory:` gives a private in-memory database. */
export function openDatabase(path: string): DatabaseSync {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const database = new DatabaseSync(path);
  database.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;');
  database.exec(SCHEMA);
  return database;
}
