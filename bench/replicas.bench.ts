/**
 * Replicas on PostgreSQL against one process on SQLite, measured in the same run: a real
 * PostgreSQL server (test/helpers/postgres.ts: initdb and pg_ctl in a temporary
 * directory, durability off), one mock cluster process answering every request after
 * `CLUSTER_LATENCY_MS` (so a run waits on the cluster as it would, and is not pure CPU),
 * and `kubewhy serve` processes (offline engine) in three setups: SQLite (one process),
 * PostgreSQL with 1 replica, PostgreSQL with 3 replicas on one database.
 *
 * Ingest: `POST /v1/alerts/alertmanager` with 1-alert notifications of new alerts
 * (autocannon, `idReplacement`, as webhook.bench.ts's `new1`), beside the bare Fastify
 * route (bench/processes/bare-fastify.ts). With 3 replicas, one autocannon per replica
 * runs at once and their req/s are summed, as a Service spreads its clients. Each setup
 * starts fresh for its measurement and is stopped after it, so the backlog of runs it
 * took does not go on diagnosing while the next setup is measured. Rounds alternate the
 * setups; each figure is the median of its rounds.
 *
 * Run throughput: a fresh setup is sent `BATCH` new alerts at once (each its own pod, so
 * its own incident and run; spread over the replicas), and timed from the first POST until
 * no run is queued or running; runs per second, and each replica's share from its own
 * `kubewhy_runs_total`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isPostgresInstalled, startPostgres, type PostgresServer } from '../test/helpers/postgres.ts';
import { median, table, type SummaryRow } from './summary.ts';
import { notification } from './webhook.bench.ts';

export const name = 'replicas: ingest and run throughput, SQLite against PostgreSQL with 1 and 3 replicas';

const INGEST_ROUNDS = 2;
const INGEST_SECONDS = 5;
/** Connections per autocannon: with 3 replicas, 3 autocannons of this many each. */
const CONNECTIONS = 10;
const BATCH = 120;
const THROUGHPUT_ROUNDS = 2;
const CLUSTER_LATENCY_MS = 20;
const BATCH_TIMEOUT_MS = 120_000;
const TOKEN = 'bench-replicas-ingest-0123456789abcdef';
const READ_TOKEN = 'bench-replicas-read-0123456789abcdef';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'kubewhy.js');
const SCENARIO = join(ROOT, 'mock-cluster', 'scenarios', 'checkout-secret-rotation');

const SETUPS = ['sqlite', 'pg1', 'pg3'] as const;
type SetupName = (typeof SETUPS)[number];
const SETUP_LABELS: Record<SetupName, string> = {
  sqlite: 'SQLite, 1 process',
  pg1: 'PostgreSQL, 1 replica',
  pg3: 'PostgreSQL, 3 replicas',
};

interface AutocannonResult {
  requests: { average: number };
  latency: { p99: number };
  non2xx: number;
  errors: number;
}
type Autocannon = (options: {
  url: string;
  method: 'POST';
  connections: number;
  duration: number;
  headers: Record<string, string>;
  body: string;
  idReplacement: boolean;
}) => Promise<AutocannonResult>;

// autocannon ships no type declarations: load it through require and type the one call used.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

interface Child {
  process: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

/** Starts a node process whose output says `pattern`; what it prints goes to a file. */
async function startChild(input: {
  args: string[];
  env?: Record<string, string>;
  pattern: RegExp;
  logFile: string;
}): Promise<Child> {
  const log = await open(input.logFile, 'w');
  const child = spawn(process.execPath, input.args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...input.env },
    stdio: ['ignore', log.fd, log.fd],
  });
  const exited = once(child, 'exit');
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(killer);
    }
    await log.close();
  };
  const deadline = Date.now() + 60_000;
  let match: RegExpExecArray | null = null;
  while (!match) {
    if (child.exitCode !== null || Date.now() > deadline) {
      const output = await readFile(input.logFile, 'utf8');
      await stop();
      throw new Error(`${input.args.join(' ')} did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    match = input.pattern.exec(await readFile(input.logFile, 'utf8'));
  }
  return { process: child, url: match[1]!, stop };
}

/** A setup running: the URL of each of its processes, and how to stop them all. */
interface Setup {
  name: SetupName;
  replicas: Child[];
  stop(): Promise<void>;
}

interface BenchEnvironment {
  directory: string;
  kubeconfig: string;
  postgres: PostgresServer;
}

let started = 0;

/** A fresh setup: a new SQLite data directory, or a new PostgreSQL database its replicas share. */
async function startSetup(environment: BenchEnvironment, setup: SetupName): Promise<Setup> {
  const label = `${setup}-${++started}`;
  const databaseUrl = setup === 'sqlite' ? undefined : await environment.postgres.createDatabase();
  const count = setup === 'pg3' ? 3 : 1;
  const replicas: Child[] = [];
  const stop = async (): Promise<void> => {
    await Promise.allSettled(replicas.map((replica) => replica.stop()));
  };
  const startReplica = async (index: number): Promise<void> => {
    const replica = `${label}-r${index}`;
    replicas.push(
      await startChild({
        args: [BIN, 'serve'],
        env: {
          KUBEWHY_PORT: '0',
          KUBEWHY_DATA_DIR: join(environment.directory, `data-${replica}`),
          KUBEWHY_CLUSTER: 'kubeconfig',
          KUBECONFIG: environment.kubeconfig,
          KUBEWHY_MODEL: 'offline',
          KUBEWHY_TOKEN_INGEST: TOKEN,
          KUBEWHY_TOKEN_READ: READ_TOKEN,
          KUBEWHY_QUEUE_SIZE: '1000000',
          KUBEWHY_SHUTDOWN_GRACE_SECONDS: '0',
          ...(databaseUrl ? { KUBEWHY_DATABASE_URL: databaseUrl, KUBEWHY_REPLICA: replica } : {}),
        },
        pattern: /listening on (http:\/\/\S+)/,
        logFile: join(environment.directory, `serve-${replica}.log`),
      }),
    );
  };
  try {
    // The first applies the migrations; the others find them applied.
    await startReplica(1);
    await Promise.all(Array.from({ length: count - 1 }, (_unused, index) => startReplica(index + 2)));
  } catch (error) {
    await stop();
    throw error;
  }
  return { name: setup, replicas, stop };
}

const INGEST_HEADERS = { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` };

/** One autocannon per URL at once: summed req/s, the worst p99, every failed request. */
async function measureIngest(urls: readonly string[]): Promise<IngestFigure> {
  const results = await Promise.all(
    urls.map((url) =>
      autocannon({
        url,
        method: 'POST',
        connections: CONNECTIONS,
        duration: INGEST_SECONDS,
        headers: INGEST_HEADERS,
        body: notification('[<id>]', 1),
        idReplacement: true,
      }),
    ),
  );
  return {
    requests: results.reduce((sum, result) => sum + result.requests.average, 0),
    perReplica: results.map((result) => result.requests.average),
    p99: Math.max(...results.map((result) => result.latency.p99)),
    failed: results.reduce((sum, result) => sum + result.non2xx + result.errors, 0),
  };
}

interface IngestFigure {
  /** req/s, summed over the replicas. */
  requests: number;
  perReplica: number[];
  p99: number;
  failed: number;
}

/** The round with the median req/s (its p99 and failures come with it). */
function medianRound(rounds: readonly IngestFigure[]): IngestFigure {
  const middle = median(rounds.map((round) => round.requests));
  return rounds.find((round) => round.requests === middle)!;
}

async function benchIngest(
  environment: BenchEnvironment,
  bare: Child,
): Promise<Record<SetupName | 'bare', IngestFigure>> {
  const rounds: Record<SetupName | 'bare', IngestFigure[]> = { bare: [], sqlite: [], pg1: [], pg3: [] };
  for (let round = 0; round < INGEST_ROUNDS; round++) {
    rounds.bare.push(await measureIngest([`${bare.url}/bare`]));
    for (const setupName of SETUPS) {
      const setup = await startSetup(environment, setupName);
      try {
        rounds[setupName].push(
          await measureIngest(setup.replicas.map((replica) => `${replica.url}/v1/alerts/alertmanager`)),
        );
      } finally {
        await setup.stop();
      }
    }
  }
  return {
    bare: medianRound(rounds.bare),
    sqlite: medianRound(rounds.sqlite),
    pg1: medianRound(rounds.pg1),
    pg3: medianRound(rounds.pg3),
  };
}

interface ThroughputFigure {
  seconds: number;
  runs: number;
  statuses: string;
  /** Runs each replica ended, from its own counter. */
  shares: number[];
}

async function readRuns(url: string, status?: string): Promise<{ status: string }[]> {
  const response = await fetch(`${url}/v1/runs?limit=200${status ? `&status=${status}` : ''}`, {
    headers: { authorization: `Bearer ${READ_TOKEN}` },
  });
  if (!response.ok) throw new Error(`GET /v1/runs answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { runs: { status: string }[] }).runs;
}

/** Runs the process ended so far, from its `kubewhy_runs_total`. */
async function endedRuns(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return [...text.matchAll(/^kubewhy_runs_total\{[^}]*\} (\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
}

/** A fresh setup takes `BATCH` new alerts at once; timed until no run is queued or running. */
async function measureThroughput(
  environment: BenchEnvironment,
  setupName: SetupName,
  round: number,
): Promise<ThroughputFigure> {
  const setup = await startSetup(environment, setupName);
  try {
    const urls = setup.replicas.map((replica) => replica.url);
    const began = performance.now();
    const answers = await Promise.all(
      Array.from({ length: BATCH }, async (_unused, index) => {
        const response = await fetch(`${urls[index % urls.length]}/v1/alerts/alertmanager`, {
          method: 'POST',
          headers: INGEST_HEADERS,
          body: notification(`batch-${round}-${index}`, 1),
        });
        await response.arrayBuffer();
        return response.status;
      }),
    );
    const refused = answers.filter((status) => status !== 202);
    if (refused.length > 0)
      throw new Error(
        `${setup.name}: ${refused.length} of ${BATCH} alerts refused (${[...new Set(refused)].join(', ')})`,
      );
    const first = urls[0]!;
    for (;;) {
      const [queued, running] = await Promise.all([readRuns(first, 'queued'), readRuns(first, 'running')]);
      if (queued.length === 0 && running.length === 0) break;
      if (performance.now() - began > BATCH_TIMEOUT_MS)
        throw new Error(`${setup.name}: runs still queued or running after ${BATCH_TIMEOUT_MS / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const seconds = (performance.now() - began) / 1000;
    const runs = await readRuns(first);
    const counts = new Map<string, number>();
    for (const run of runs) counts.set(run.status, (counts.get(run.status) ?? 0) + 1);
    return {
      seconds,
      runs: runs.length,
      statuses: [...counts].map(([status, count]) => `${count} ${status}`).join(', '),
      shares: await Promise.all(urls.map(endedRuns)),
    };
  } finally {
    await setup.stop();
  }
}

async function benchThroughput(environment: BenchEnvironment): Promise<Record<SetupName, ThroughputFigure>> {
  const rounds: Record<SetupName, ThroughputFigure[]> = { sqlite: [], pg1: [], pg3: [] };
  for (let round = 0; round < THROUGHPUT_ROUNDS; round++) {
    for (const setupName of SETUPS) rounds[setupName].push(await measureThroughput(environment, setupName, round));
  }
  // The round with the median runs/s (every round ends the same number of runs, so the median time).
  const middle = (figures: ThroughputFigure[]): ThroughputFigure => {
    const rate = median(figures.map((figure) => figure.runs / figure.seconds));
    return figures.find((figure) => figure.runs / figure.seconds === rate)!;
  };
  return { sqlite: middle(rounds.sqlite), pg1: middle(rounds.pg1), pg3: middle(rounds.pg3) };
}

function notMeasured(reason: string): SummaryRow[] {
  const row = (figure: string, aim: string): SummaryRow => ({
    figure,
    kubewhy: `not measured (${reason})`,
    baseline: '-',
    ratio: Number.NaN,
    aim,
    met: false,
  });
  return [
    row('replicas: ingest, PostgreSQL 1 replica against SQLite', '≥ 0.5'),
    row('replicas: ingest, PostgreSQL 3 replicas (total) against bare Fastify', 'reported'),
    row('replicas: run throughput, PostgreSQL 3 replicas against 1', '≥ 1'),
  ];
}

export async function runBench(): Promise<SummaryRow[]> {
  if (!isPostgresInstalled()) {
    process.stdout.write(
      'PostgreSQL is not installed (no initdb/pg_ctl/postgres from `pg_config --bindir` or /usr/lib/postgresql/*/bin; apt-get install postgresql): replicas not measured.\n',
    );
    return notMeasured('PostgreSQL not installed');
  }
  const directory = await mkdtemp(join(tmpdir(), 'kubewhy-bench-replicas-'));
  const kubeconfig = join(directory, 'kubeconfig');
  const children: Child[] = [];
  let postgres: PostgresServer | undefined;
  try {
    postgres = await startPostgres();
    children.push(
      await startChild({
        args: [
          BIN,
          'mock-cluster',
          '--scenario',
          SCENARIO,
          '--kubeconfig',
          kubeconfig,
          '--fault',
          `latency:ms=${CLUSTER_LATENCY_MS}`,
        ],
        pattern: /at (http:\/\/\S+)/,
        logFile: join(directory, 'mock.log'),
      }),
    );
    const bare = await startChild({
      args: [join(ROOT, 'bench', 'processes', 'bare-fastify.ts')],
      pattern: /listening on (http:\/\/\S+)/,
      logFile: join(directory, 'bare.log'),
    });
    children.push(bare);
    const environment: BenchEnvironment = { directory, kubeconfig, postgres };

    const ingest = await benchIngest(environment, bare);
    const ingestRow = (label: string, figure: IngestFigure): string[] => [
      label,
      figure.requests.toFixed(0),
      figure.perReplica.length > 1 ? figure.perReplica.map((requests) => requests.toFixed(0)).join(' / ') : '-',
      figure.p99.toFixed(1),
      String(figure.failed),
      (figure.requests / ingest.bare.requests).toFixed(2),
      (figure.requests / ingest.sqlite.requests).toFixed(2),
    ];
    process.stdout.write(
      `${table([
        ['ingest, 1 new alert per notification', 'req/s', 'per replica', 'p99 ms', 'non-2xx', 'to bare', 'to SQLite'],
        ingestRow('bare Fastify POST', ingest.bare),
        ...SETUPS.map((setup) => ingestRow(`webhook, ${SETUP_LABELS[setup]}`, ingest[setup])),
      ])}\n`,
    );
    process.stdout.write(
      `${CONNECTIONS} connections per autocannon (3 at once, summed, with 3 replicas), median of ${INGEST_ROUNDS} rounds of ${INGEST_SECONDS} s (the upper one of 2); each setup fresh per round\n\n`,
    );

    const throughput = await benchThroughput(environment);
    const runsPerSecond = (setup: SetupName): number => throughput[setup].runs / throughput[setup].seconds;
    process.stdout.write(
      `${table([
        [`run throughput, ${BATCH} new alerts at once`, 'seconds', 'runs/s', 'to SQLite', 'runs', 'ended per replica'],
        ...SETUPS.map((setup) => [
          SETUP_LABELS[setup],
          throughput[setup].seconds.toFixed(2),
          runsPerSecond(setup).toFixed(1),
          (runsPerSecond(setup) / runsPerSecond('sqlite')).toFixed(2),
          `${throughput[setup].runs} (${throughput[setup].statuses})`,
          throughput[setup].shares.join(' / '),
        ]),
      ])}\n`,
    );
    process.stdout.write(
      `mock cluster answering after ${CLUSTER_LATENCY_MS} ms; timed from the first POST until no run is queued or running; median of ${THROUGHPUT_ROUNDS} rounds (of runs/s; the upper one of 2)\n`,
    );

    const pgToSqlite = ingest.pg1.requests / ingest.sqlite.requests;
    const pg3ToBare = ingest.pg3.requests / ingest.bare.requests;
    const threeToOne = runsPerSecond('pg3') / runsPerSecond('pg1');
    if (pgToSqlite < 0.5)
      process.stdout.write(
        `note: PostgreSQL 1 replica ingests ${pgToSqlite.toFixed(2)}× SQLite's req/s: an intake batch is one transaction of several round trips holding one advisory lock for every replica (INTAKE_LOCK_KEY, src/store/postgres/stores.ts), so ingest is serial across replicas and more replicas do not add to it.\n`,
      );
    if (threeToOne < 1)
      process.stdout.write(
        `note: 3 replicas ran ${threeToOne.toFixed(2)}× the runs/s of 1: on ${availableParallelism()} shared cores more replicas mostly add processes competing for the same CPU; what they add is parallel waiting on the cluster.\n`,
      );
    const requests = (figure: IngestFigure): string => `${figure.requests.toFixed(0)} req/s`;
    const rate = (setup: SetupName): string => `${runsPerSecond(setup).toFixed(1)} runs/s`;
    return [
      {
        figure: 'replicas: ingest, SQLite, against bare Fastify',
        kubewhy: requests(ingest.sqlite),
        baseline: requests(ingest.bare),
        ratio: ingest.sqlite.requests / ingest.bare.requests,
        aim: 'reported',
        met: true,
      },
      {
        figure: 'replicas: ingest, PostgreSQL 1 replica, against bare Fastify',
        kubewhy: requests(ingest.pg1),
        baseline: requests(ingest.bare),
        ratio: ingest.pg1.requests / ingest.bare.requests,
        aim: 'reported',
        met: true,
      },
      {
        figure: 'replicas: ingest, PostgreSQL 1 replica, against SQLite',
        kubewhy: requests(ingest.pg1),
        baseline: requests(ingest.sqlite),
        ratio: pgToSqlite,
        aim: '≥ 0.5',
        met: pgToSqlite >= 0.5,
      },
      {
        figure: 'replicas: ingest, PostgreSQL 3 replicas (total), against bare Fastify',
        kubewhy: requests(ingest.pg3),
        baseline: requests(ingest.bare),
        ratio: pg3ToBare,
        aim: 'reported',
        met: true,
      },
      {
        figure: 'replicas: run throughput, PostgreSQL 1 replica, against SQLite',
        kubewhy: rate('pg1'),
        baseline: rate('sqlite'),
        ratio: runsPerSecond('pg1') / runsPerSecond('sqlite'),
        aim: 'reported',
        met: true,
      },
      {
        figure: 'replicas: run throughput, PostgreSQL 3 replicas, against SQLite',
        kubewhy: rate('pg3'),
        baseline: rate('sqlite'),
        ratio: runsPerSecond('pg3') / runsPerSecond('sqlite'),
        aim: 'reported',
        met: true,
      },
      {
        figure: 'replicas: run throughput, PostgreSQL 3 replicas, against 1 replica',
        kubewhy: rate('pg3'),
        baseline: rate('pg1'),
        ratio: threeToOne,
        aim: '≥ 1',
        met: threeToOne >= 1,
      },
    ];
  } finally {
    for (const child of children.reverse()) await child.stop();
    await postgres?.stop();
    await rm(directory, { recursive: true, force: true });
  }
}
