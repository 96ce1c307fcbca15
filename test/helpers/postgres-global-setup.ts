/**
 * `node --test --test-global-setup` module: one PostgreSQL server for the whole test run.
 * It starts in the runner before any test process, reaches them through
 * `KUBEWHY_TEST_POSTGRES_URL` (children inherit the runner's environment), and stops in the
 * teardown, or at the runner's exit if the run is interrupted. Without the `postgresql`
 * package the run goes on: the variable stays unset and `sharedPostgres()` tells the suites
 * that need a server what to install.
 */
import { isPostgresInstalled, SHARED_POSTGRES_URL_VARIABLE, startPostgres, type PostgresServer } from './postgres.ts';

let server: PostgresServer | undefined;

export async function globalSetup(): Promise<void> {
  if (process.env[SHARED_POSTGRES_URL_VARIABLE] || !isPostgresInstalled()) return;
  try {
    server = await startPostgres();
    process.env[SHARED_POSTGRES_URL_VARIABLE] = server.url;
  } catch (error) {
    // Only the suites that need PostgreSQL should fail; each retries on its own and reports why.
    console.error('postgres-global-setup: no shared PostgreSQL for this run:', error);
  }
}

export async function globalTeardown(): Promise<void> {
  await server?.stop();
}
