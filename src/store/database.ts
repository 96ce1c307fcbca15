/**
 * Opens the embedded SQLite database (node:sqlite): one file, WAL journal, a busy
 * timeout so several connections of one process can share it, and the schema brought
 * up to date (migrations.ts).
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { migrate } from './migrations.ts';

/** `:memory:` gives a private in-memory database. */
export function openDatabase(path: string): DatabaseSync {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const database = new DatabaseSync(path);
  database.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;');
  try {
    migrate(database);
  } catch (error) {
    database.close();
    throw error;
  }
  return database;
}
