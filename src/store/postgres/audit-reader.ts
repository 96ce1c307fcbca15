/**
 * `kubewhy audit` on a PostgreSQL database: the chains and the tables beside them, read
 * in read-only transactions (the server refuses any write), with no schema step applied,
 * so what is examined is what was there. A database newer than this build is refused.
 */
import type { AuditTables, RetiredHead } from '../../audit/anchor-verify.ts';
import type { AuditStore } from '../ports.ts';
import { createPgAuditStore } from './audit-store.ts';
import { createPool } from './queryable.ts';
import { latestPostgresSchemaVersion, postgresSchemaVersion, SchemaError } from './schema.ts';
import { redactDatabaseUrl } from './stores.ts';

export interface PostgresAuditReader {
  /** The database, its password hidden. */
  location: string;
  audit: AuditStore;
  tables(): Promise<AuditTables>;
  close(): Promise<void>;
}

export async function openPostgresAuditReader(url: string): Promise<PostgresAuditReader> {
  const location = redactDatabaseUrl(url);
  const pool = createPool(url, { max: 2, name: 'kubewhy-audit', readOnly: true });
  try {
    const version = await postgresSchemaVersion(pool);
    if (version > latestPostgresSchemaVersion()) {
      throw new SchemaError(
        `${location}: the database is at schema version ${version}, newer than this kubewhy knows (${latestPostgresSchemaVersion()}): use the newer kubewhy to read it`,
      );
    }
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
  return {
    location,
    audit: createPgAuditStore(pool),
    async tables() {
      const runs = await pool.query<{ id: string; status: string }>('SELECT id, status FROM runs');
      const retired = await pool.query<{ run_id: string; seq: string | number; hash: string; retired_at: string }>(
        'SELECT run_id, seq, hash, retired_at FROM audit_retired',
      );
      return {
        runs: new Map(runs.rows.map((row) => [row.id, row.status])),
        retired: new Map(
          retired.rows.map((row): [string, RetiredHead] => [
            row.run_id,
            { seq: Number(row.seq), hash: row.hash, retiredAt: row.retired_at },
          ]),
        ),
      };
    },
    close: () => pool.end(),
  };
}
