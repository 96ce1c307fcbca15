/**
 * Ingest while diagnosing: requests per second and p99 latency (autocannon, in this
 * process) of `POST /v1/alerts/alertmanager` on a real `kubewhy serve` (offline engine,
 * SQLite file, its default settings but a queue large enough to take the whole bench),
 * beside a bare Fastify route in a process of its own that parses the same JSON body and
 * answers 202, measured in the same run; the ratio of the two is the figure to watch.
 * The cluster is the mock cluster in a third process.
 *
 * Every alert is new (a distinct fingerprint and pod, so a new incident and a new run),
 * and the runs are diagnosed while the load goes on: the service works its queue as it
 * would in an alert storm. Cases: 1-alert notifications, 20-alert notifications, and
 * repeats of one alert (deduplicated). Rounds alternate the cases and each figure is the
 * median of its rounds: on a shared machine, a burst of someone else's work then skews
 * one round, not one case.
 *
 * Then the memory of a storm: a fresh service takes 3,000 new alerts (150 notifications
 * of 20) and diagnoses for 10 s; its peak resident set (VmHWM) is the figure.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { table, type SummaryRow } from './summary.ts';

export const name = 'ingest while diagnosing: kubewhy serve against a bare Fastify route';

const ROUNDS = 3;
const DURATION_SECONDS = 3;
const CONNECTIONS = 10;
const STORM_ALERTS = 3_000;
const STORM_GROUP = 20;
const TOKEN = 'bench-ingest-token-0123456789abcdef';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'kubewhy.js');
const SCENARIO = join(ROOT, 'mock-cluster', 'scenarios', 'checkout-secret-rotation');

interface AutocannonResult {
  requests: { average: number };
  latency: { p99: number; average: number };
  non2xx: number;
  errors: number;
}
type Autocannon = (options: {
  url: string;
  method: 'POST';
  connections: number;
  duration?: number;
  amount?: number;
  headers: Record<string, string>;
  body: string;
  idReplacement?: boolean;
}) => Promise<AutocannonResult>;

// autocannon ships no type declarations: load it through require and type the one call used.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** One alert: its pod (so its Deployment, the incident it belongs to) is named after the fingerprint, so a new fingerprint is a new incident. */
function alert(fingerprint: string): Record<string, unknown> {
  return {
    status: 'firing',
    labels: {
      alertname: 'KubePodCrashLooping',
      namespace: 'staging',
      pod: `checkout-${fingerprint}-7d9f8c6b5-x2k4q`,
      container: 'app',
      severity: 'warning',
    },
    annotations: {
      summary: 'Pod is crash looping.',
      description: 'Pod staging/checkout-api-7d9f8c6b5-x2k4q (app) is in waiting state (reason: CrashLoopBackOff).',
    },
    startsAt: '2026-11-29T09:50:00.000Z',
    endsAt: '0001-01-01T00:00:00Z',
    generatorURL: 'http://prometheus.example/graph?g0.expr=kube_pod_container_status_waiting_reason',
    fingerprint,
  };
}

/** An Alertmanager notification of `count` alerts whose fingerprints start with `prefix` (autocannon puts a fresh id in `[<id>]`). */
export function notification(prefix: string, count: number): string {
  return JSON.stringify({
    receiver: 'kubewhy',
    status: 'firing',
    alerts: Array.from({ length: count }, (_unused, index) => alert(count === 1 ? prefix : `${prefix}-${index}`)),
    groupLabels: { alertname: 'KubePodCrashLooping' },
    commonLabels: { alertname: 'KubePodCrashLooping', namespace: 'staging' },
    commonAnnotations: {},
    externalURL: 'http://alertmanager.example',
    version: '4',
    groupKey: '{}:{alertname="KubePodCrashLooping"}',
    truncatedAlerts: 0,
  });
}

interface Child {
  process: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

/** Starts a node process whose stdout says `pattern`; what it prints goes to a file, so a chatty log costs the bench nothing. */
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
  const deadline = Date.now() + 60_000;
  let match: RegExpExecArray | null = null;
  while (!match) {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`${input.args.join(' ')} did not start:\n${await readFile(input.logFile, 'utf8')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    match = input.pattern.exec(await readFile(input.logFile, 'utf8'));
  }
  return {
    process: child,
    url: match[1]!,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      await log.close();
    },
  };
}

async function startServe(directory: string, kubeconfig: string, label: string): Promise<Child> {
  return startChild({
    args: [BIN, 'serve'],
    env: {
      KUBEWHY_PORT: '0',
      KUBEWHY_DATA_DIR: join(directory, `data-${label}`),
      KUBEWHY_CLUSTER: 'kubeconfig',
      KUBECONFIG: kubeconfig,
      KUBEWHY_TOKEN_INGEST: TOKEN,
      KUBEWHY_QUEUE_SIZE: '1000000',
      KUBEWHY_SHUTDOWN_GRACE_SECONDS: '0',
    },
    pattern: /listening on (http:\/\/\S+)/,
    logFile: join(directory, `serve-${label}.log`),
  });
}

async function measure(url: string, body: string, idReplacement: boolean): Promise<AutocannonResult> {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` };
  return autocannon({
    url,
    method: 'POST',
    connections: CONNECTIONS,
    duration: DURATION_SECONDS,
    headers,
    body,
    idReplacement,
  });
}

/** The process's peak and current resident set, in MiB, from /proc. */
async function memoryOf(pid: number): Promise<{ peak: number; now: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const field = (key: string): number =>
    Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) / 1024;
  return { peak: field('VmHWM'), now: field('VmRSS') };
}

export async function runBench(): Promise<SummaryRow[]> {
  const directory = await mkdtemp(join(tmpdir(), 'kubewhy-bench-webhook-'));
  const kubeconfig = join(directory, 'kubeconfig');
  const children: Child[] = [];
  try {
    children.push(
      await startChild({
        args: [BIN, 'mock-cluster', '--scenario', SCENARIO, '--kubeconfig', kubeconfig],
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
    const serve = await startServe(directory, kubeconfig, 'load');
    children.push(serve);

    const cases = {
      bare1: { url: `${bare.url}/bare`, body: notification('[<id>]', 1), ids: true },
      new1: { url: `${serve.url}/v1/alerts/alertmanager`, body: notification('[<id>]', 1), ids: true },
      bare20: { url: `${bare.url}/bare`, body: notification('[<id>]', 20), ids: true },
      new20: { url: `${serve.url}/v1/alerts/alertmanager`, body: notification('[<id>]', 20), ids: true },
      repeat: { url: `${serve.url}/v1/alerts/alertmanager`, body: notification('bench-repeat-000', 1), ids: false },
    };
    type Case = keyof typeof cases;
    const results = Object.fromEntries(Object.keys(cases).map((key) => [key, [] as AutocannonResult[]])) as Record<
      Case,
      AutocannonResult[]
    >;
    for (let round = 0; round < ROUNDS; round++) {
      for (const key of Object.keys(cases) as Case[])
        results[key].push(await measure(cases[key].url, cases[key].body, cases[key].ids));
    }
    const figures = Object.fromEntries(Object.entries(results).map(([key, rounds]) => [key, median(rounds)])) as Record<
      Case,
      AutocannonResult
    >;
    const diagnosed = await finishedRuns(serve);

    const rows = [
      ['route', 'req/s', 'p99 ms', 'mean ms', 'non-2xx', 'ratio to bare'],
      row('bare Fastify POST, 1-alert body', figures.bare1, figures.bare1),
      row('webhook, 1 new alert (run stored, diagnosed meanwhile)', figures.new1, figures.bare1),
      row('webhook, every alert a repeat (deduplicated)', figures.repeat, figures.bare1),
      row('bare Fastify POST, 20-alert body', figures.bare20, figures.bare20),
      row('webhook, 20 new alerts', figures.new20, figures.bare20),
    ];
    process.stdout.write(`${table(rows)}\n`);
    process.stdout.write(
      `${CONNECTIONS} connections, median of ${ROUNDS} rounds of ${DURATION_SECONDS} s per case; runs ended while measured: ${diagnosed}\n`,
    );

    const storm = await stormMemory(directory, kubeconfig);
    process.stdout.write(
      `storm of ${STORM_ALERTS} new alerts (${STORM_ALERTS / STORM_GROUP} notifications of ${STORM_GROUP}) then 10 s of diagnosis: peak RSS ${storm.peak.toFixed(0)} MiB, now ${storm.now.toFixed(0)} MiB; runs ended ${storm.ended}\n`,
    );

    const ratio1 = figures.new1.requests.average / figures.bare1.requests.average;
    const ratio20 = figures.new20.requests.average / figures.bare20.requests.average;
    return [
      {
        figure: 'ingest while diagnosing, 1-alert notifications',
        kubewhy: `${figures.new1.requests.average.toFixed(0)} req/s`,
        baseline: `${figures.bare1.requests.average.toFixed(0)} req/s`,
        ratio: ratio1,
        aim: '≥ 0.5',
        met: ratio1 >= 0.5,
      },
      {
        figure: 'ingest while diagnosing, p99 latency',
        kubewhy: `${figures.new1.latency.p99.toFixed(0)} ms`,
        baseline: `${figures.bare1.latency.p99.toFixed(0)} ms`,
        ratio: figures.new1.latency.p99,
        aim: '≤ 50 ms',
        met: figures.new1.latency.p99 <= 50,
      },
      {
        figure: 'ingest while diagnosing, 20-alert notifications',
        kubewhy: `${figures.new20.requests.average.toFixed(0)} req/s`,
        baseline: `${figures.bare20.requests.average.toFixed(0)} req/s`,
        ratio: ratio20,
        aim: '≥ 0.3',
        met: ratio20 >= 0.3,
      },
      {
        figure: `serve peak RSS, ${STORM_ALERTS}-alert storm`,
        kubewhy: `${storm.peak.toFixed(0)} MiB`,
        baseline: '-',
        ratio: storm.peak,
        aim: '≤ 350 MiB',
        met: storm.peak <= 350,
      },
    ];
  } finally {
    for (const child of children.reverse()) await child.stop();
    await rm(directory, { recursive: true, force: true });
  }
}

/** A fresh service takes the storm, diagnoses for 10 s, and its memory is read. */
async function stormMemory(
  directory: string,
  kubeconfig: string,
): Promise<{ peak: number; now: number; ended: string }> {
  const serve = await startServe(directory, kubeconfig, 'storm');
  try {
    const headers = { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` };
    const result = await autocannon({
      url: `${serve.url}/v1/alerts/alertmanager`,
      method: 'POST',
      connections: CONNECTIONS,
      amount: STORM_ALERTS / STORM_GROUP,
      headers,
      body: notification('storm-[<id>]', STORM_GROUP),
      idReplacement: true,
    });
    if (result.non2xx + result.errors > 0)
      throw new Error(`the storm was not taken whole: ${result.non2xx} non-2xx, ${result.errors} errors`);
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    return { ...(await memoryOf(serve.process.pid!)), ended: await finishedRuns(serve) };
  } finally {
    await serve.stop();
  }
}

/** Runs ended so far, from the service's own counter. */
async function finishedRuns(serve: Child): Promise<string> {
  const text = await (await fetch(`${serve.url}/metrics`)).text().catch(() => '');
  const total = [...text.matchAll(/^kubewhy_runs_total\{[^}]*\} (\d+)/gm)].reduce(
    (sum, match) => sum + Number(match[1]),
    0,
  );
  return String(total);
}

/** The round with the median throughput (its latency figures come with it). */
function median(rounds: AutocannonResult[]): AutocannonResult {
  const sorted = [...rounds].sort((left, right) => left.requests.average - right.requests.average);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function row(label: string, result: AutocannonResult, baseline: AutocannonResult): string[] {
  return [
    label,
    result.requests.average.toFixed(0),
    result.latency.p99.toFixed(1),
    result.latency.average.toFixed(2),
    String(result.non2xx + result.errors),
    (result.requests.average / baseline.requests.average).toFixed(2),
  ];
}
