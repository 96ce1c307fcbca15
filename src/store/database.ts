/**
 * Opens the embedded SQLite database (node:sqlite): one file, WAL journal, a busy
 * timeout so several connections (of one process or several) can share it, and the schema brought
 * up to date (migrations.ts).
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { latestSchemaVersion, migrate, SchemaError, schemaVersion } from './migrations.ts';

/** How long a connection waits for another's lock before SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5000;

/** `:memory:` gives a private in-memory database. */
export function openDatabase(path: string): DatabaseSync {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const database = new DatabaseSync(path);
  // The busy timeout first: switching to WAL takes a lock, and two processes opening one
  // database at once (two `kubewhy diagnose` runs) would otherwise fail with SQLITE_BUSY.
  database.exec(
    `PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;`,
  );
  try {
    migrate(database);
  } catch (error) {
    database.close();
    // Name the file: an operator may have several data directories.
    if (error instanceof SchemaError)
      throw new SchemaError(`${path}: ${error.message}`, { cause: error.cause ?? error });
    throw error;
  }
  return database;
}

/**
 * Opens an existing database to read it only (`audit verify`, forensics): nothing is
 * written, no schema step is applied, so what is examined is what was there. A database
 * newer than this build is refused; an older one is read as it is.
 */
export function openDatabaseReadOnly(path: string): DatabaseSync {
  const database = new DatabaseSync(path, { readOnly: true });
  database.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS};`);
  const version = schemaVersion(database);
  if (version > latestSchemaVersion()) {
    database.close();
    throw new SchemaError(
      `${path}: the database is at schema version ${version}, newer than this kubewhy knows (${latestSchemaVersion()}): use the newer kubewhy to read it`,
    );
  }
  return database;
}
