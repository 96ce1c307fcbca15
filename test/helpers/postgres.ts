/**
 * A real PostgreSQL server (Debian's `postgresql` package) for the tests and the bench,
 * started in a temporary directory with initdb and pg_ctl: loopback only, trust
 * authentication, superuser `kubewhy`, durability off because nothing here must survive.
 *
 * `sharedPostgres()` is what a suite calls. Under `npm test` the global setup
 * (`postgres-global-setup.ts`) starts one server for the whole run and hands its URL to
 * every test process in `KUBEWHY_TEST_POSTGRES_URL`; a test file run on its own starts a
 * private server instead. Every server this module starts is stopped when the process
 * that started it exits, even when a test failed or the run was interrupted.
 */
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { findFreePort } from './ports.ts';

const execFileAsync = promisify(execFile);

/** The environment variable through which the global setup hands its server to test processes. */
export const SHARED_POSTGRES_URL_VARIABLE = 'KUBEWHY_TEST_POSTGRES_URL';

const SUPERUSER = 'kubewhy';
const SYSTEM_USER = 'postgres';
/** Settings for a throwaway server: no durability, room for many test connections. */
const SERVER_SETTINGS = [
  'fsync=off',
  'synchronous_commit=off',
  'full_page_writes=off',
  'max_connections=200',
  'shared_buffers=64MB',
];
const START_ATTEMPTS = 3;

export interface PostgresServer {
  /** `postgres://kubewhy@127.0.0.1:PORT/postgres`: the superuser on the maintenance database. */
  url: string;
  port: number;
  /** Creates a fresh empty database (uniquely named unless `name` is given) and returns its URL. */
  createDatabase(name?: string): Promise<string>;
  /** Stops the server and removes its directory. A no-op on a shared server: the run owns it. */
  stop(): Promise<void>;
}

/** Where initdb, pg_ctl and postgres live: `pg_config --bindir`, else the newest /usr/lib/postgresql/N/bin. */
export function findPostgresBinDir(): string | undefined {
  const hasServer = (directory: string): boolean =>
    ['initdb', 'pg_ctl', 'postgres'].every((name) => existsSync(join(directory, name)));
  try {
    const fromConfig = execFileSync('pg_config', ['--bindir'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    if (fromConfig && hasServer(fromConfig)) return fromConfig;
  } catch {
    // pg_config comes with libpq-dev, not with the server: fall through to the package layout.
  }
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((entry) => /^\d+(\.\d+)?$/.test(entry))
    .sort((left, right) => Number(right) - Number(left));
  return versions.map((version) => join(root, version, 'bin')).find(hasServer);
}

export function isPostgresInstalled(): boolean {
  return findPostgresBinDir() !== undefined;
}

const NOT_INSTALLED_MESSAGE =
  'PostgreSQL is not installed: these tests run against a real server from the Debian package `postgresql` ' +
  '(apt-get install postgresql; .ci/run installs it). No initdb/pg_ctl/postgres found by `pg_config --bindir` or in /usr/lib/postgresql/*/bin.';

/** How to run a server binary: as the `postgres` system user when we are root (initdb refuses root), directly otherwise. */
function commandAsServerUser(file: string, args: string[]): { file: string; args: string[] } {
  if (process.getuid?.() !== 0) return { file, args };
  if (existsSync('/usr/sbin/runuser') || existsSync('/sbin/runuser'))
    return { file: 'runuser', args: ['-u', SYSTEM_USER, '--', file, ...args] };
  const quoted = [file, ...args].map((word) => `'${word.replaceAll("'", `'\\''`)}'`).join(' ');
  return { file: 'su', args: [SYSTEM_USER, '-s', '/bin/sh', '-c', quoted] };
}

async function runServerCommand(file: string, args: string[]): Promise<void> {
  const command = commandAsServerUser(file, args);
  // cwd: the postgres user may not be allowed into the caller's working directory.
  await execFileAsync(command.file, command.args, { cwd: '/', timeout: 60_000 });
}

function runServerCommandSync(file: string, args: string[]): void {
  const command = commandAsServerUser(file, args);
  execFileSync(command.file, command.args, { cwd: '/', stdio: 'ignore', timeout: 30_000 });
}

/** A directory the server's user owns; under root the `postgres` user must be able to reach it. */
function makeServerDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), 'kubewhy-postgres-'));
  if (process.getuid?.() === 0) {
    const owner = lookUpSystemUser();
    chownSync(directory, owner.uid, owner.gid);
  }
  return directory;
}

function lookUpSystemUser(): { uid: number; gid: number } {
  try {
    const id = (flag: string): number =>
      Number(execFileSync('id', [flag, SYSTEM_USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch (error) {
    throw new Error(
      `running as root, but there is no '${SYSTEM_USER}' system user to run PostgreSQL as (the Debian package \`postgresql\` creates it)`,
      { cause: error },
    );
  }
}

function urlFor(port: number, database: string): string {
  return `postgres://${SUPERUSER}@127.0.0.1:${port}/${database}`;
}

/** Database-creating handle on a server at `url`; `stop` is whatever the owner says. */
function serverHandle(url: string, stop: () => Promise<void>): PostgresServer {
  const port = Number(new URL(url).port);
  let created = 0;
  return {
    url,
    port,
    async createDatabase(name) {
      const database = name ?? `kubewhy_test_${process.pid}_${++created}_${randomBytes(4).toString('hex')}`;
      if (!/^[a-z_][a-z0-9_]{0,62}$/.test(database)) throw new Error(`not a plain database name: ${database}`);
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${database}"`);
      } finally {
        await client.end();
      }
      const databaseUrl = new URL(url);
      databaseUrl.pathname = `/${database}`;
      return databaseUrl.toString();
    },
    stop,
  };
}

/** Servers this process started and has not stopped yet: each one's stop, for the exit hook. */
const runningServers = new Map<string, () => void>();
let exitHooksInstalled = false;

function installExitHooks(): void {
  if (exitHooksInstalled) return;
  exitHooksInstalled = true;
  const stopAll = (): void => {
    for (const stopNow of runningServers.values()) stopNow();
    runningServers.clear();
  };
  process.on('exit', stopAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      stopAll();
      // Alone, this listener replaced the signal's default action: end the way it would have.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    });
  }
}

/** Starts a new server on a free loopback port; it is stopped at process exit unless `stop()` came first. */
export async function startPostgres(): Promise<PostgresServer> {
  const binDir = findPostgresBinDir();
  if (!binDir) throw new Error(NOT_INSTALLED_MESSAGE);
  const directory = makeServerDirectory();
  const dataDir = join(directory, 'data');
  const logFile = join(directory, 'server.log');
  const pgCtl = join(binDir, 'pg_ctl');
  const stopNow = (): void => {
    try {
      runServerCommandSync(pgCtl, ['stop', '-D', dataDir, '-m', 'immediate', '-w']);
    } catch {
      // Not running (never started, or already stopped): nothing to stop.
    }
    rmSync(directory, { recursive: true, force: true });
  };
  installExitHooks();
  runningServers.set(directory, stopNow);

  try {
    await runServerCommand(join(binDir, 'initdb'), [
      '-D',
      dataDir,
      '-U',
      SUPERUSER,
      '--auth=trust',
      '--encoding=UTF8',
      '--no-locale',
      '--no-sync',
    ]);
    const port = await startOnFreePort({ pgCtl, dataDir, logFile, socketDir: directory });
    let stopped: Promise<void> | undefined;
    return serverHandle(urlFor(port, 'postgres'), () => {
      stopped ??= (async () => {
        runningServers.delete(directory);
        await runServerCommand(pgCtl, ['stop', '-D', dataDir, '-m', 'fast', '-w']);
        rmSync(directory, { recursive: true, force: true });
      })();
      return stopped;
    });
  } catch (error) {
    const log = existsSync(logFile) ? readFileSync(logFile, 'utf8').slice(-2000) : '';
    runningServers.delete(directory);
    stopNow();
    throw new Error(`could not start PostgreSQL from ${binDir}${log ? `; server log:\n${log}` : ''}`, { cause: error });
  }
}

/** pg_ctl start on a port found free a moment ago; another process may take it first, so a failed start tries another. */
async function startOnFreePort(input: {
  pgCtl: string;
  dataDir: string;
  logFile: string;
  socketDir: string;
}): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const port = await findFreePort();
    const options = [
      '-c listen_addresses=127.0.0.1',
      `-c port=${port}`,
      `-c unix_socket_directories=${input.socketDir}`,
      ...SERVER_SETTINGS.map((setting) => `-c ${setting}`),
    ];
    try {
      await runServerCommand(input.pgCtl, [
        'start',
        '-D',
        input.dataDir,
        '-l',
        input.logFile,
        '-w',
        '-t',
        '30',
        '-o',
        options.join(' '),
      ]);
      return port;
    } catch (error) {
      if (attempt >= START_ATTEMPTS) throw error;
    }
  }
}

let privateServer: Promise<PostgresServer> | undefined;

/**
 * The server this test run shares: the global setup's when `KUBEWHY_TEST_POSTGRES_URL` is
 * set, else one private server for this process, started on first call and stopped at
 * exit. Its `stop()` does nothing; suites make their own databases with `createDatabase`.
 * Rejects with a message naming the Debian package when PostgreSQL is not installed.
 */
export async function sharedPostgres(): Promise<PostgresServer> {
  const sharedUrl = process.env[SHARED_POSTGRES_URL_VARIABLE];
  if (sharedUrl) return serverHandle(sharedUrl, async () => {});
  if (!isPostgresInstalled()) throw new Error(NOT_INSTALLED_MESSAGE);
  privateServer ??= startPostgres();
  const server = await privateServer;
  return { ...server, stop: async () => {} };
}
