/**
 * Webhook ingestion: requests per second and p99 latency (autocannon) of
 * `POST /v1/alerts/alertmanager` on the real app (bearer token, zod validation, SQLite
 * file in WAL mode, run and `run-created` audit event stored before the 202), beside a
 * bare Fastify route that parses the same JSON body and answers 202, measured in the
 * same run; the ratio of the two is the figure to watch (aim: at least 0.5). Two cases:
 * every alert new (a run is created each time), and every alert a repeat (deduplicated).
 * Runs are held, not diagnosed, so the numbers are ingestion alone. autocannon runs in
 * this process, as the other benches' load does.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import type { RunAgentInput, RunOutcome } from '../src/agent/loop.ts';
import type { Cluster } from '../src/cluster/cluster.ts';
import { buildApp } from '../src/server/app.ts';
import { createLogger } from '../src/server/logger.ts';
import { openDatabase } from '../src/store/database.ts';
import { createToolRegistry } from '../src/tools/registry.ts';

export const name = 'webhook ingestion: POST /v1/alerts/alertmanager against a bare Fastify route';

const RATIO_AIM = 0.5;
const ROUNDS = 3;
const DURATION_SECONDS = 3;
const CONNECTIONS = 10;
const TOKEN = 'bench-ingest-token-0123456789abcdef';

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
  duration: number;
  headers: Record<string, string>;
  body: string;
  idReplacement?: boolean;
}) => Promise<AutocannonResult>;

// autocannon ships no type declarations: load it through require and type the one call used.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** One alert; its pod (so its Deployment, the incident it belongs to) is named after the fingerprint, so a new fingerprint is a new incident. */
function payload(fingerprint: string): string {
  return JSON.stringify({
    receiver: 'kubewhy',
    status: 'firing',
    alerts: [
      {
        status: 'firing',
        labels: { alertname: 'KubePodCrashLooping', namespace: 'staging', pod: `checkout-${fingerprint}-7d9f8c6b5-x2k4q`, container: 'app', severity: 'warning' },
        annotations: { summary: 'Pod is crash looping.', description: 'Pod staging/checkout-api-7d9f8c6b5-x2k4q (app) is in waiting state (reason: CrashLoopBackOff).' },
        startsAt: '2026-11-29T09:50:00.000Z',
        endsAt: '0001-01-01T00:00:00Z',
        generatorURL: 'http://prometheus.example/graph?g0.expr=kube_pod_container_status_waiting_reason',
        fingerprint,
      },
    ],
    groupLabels: { alertname: 'KubePodCrashLooping' },
    commonLabels: { alertname: 'KubePodCrashLooping', namespace: 'staging' },
    commonAnnotations: {},
    externalURL: 'http://alertmanager.example',
    version: '4',
    groupKey: '{}:{alertname="KubePodCrashLooping"}',
    truncatedAlerts: 0,
  });
}

/** A run that holds its slot until the service stops: ingestion is measured without diagnosis work. */
function holdRun(input: RunAgentInput): Promise<RunOutcome> {
  return new Promise((resolve) => {
    const stop = (): void => resolve({ status: 'failed', reason: 'stopped', usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, steps: 0, toolCalls: [], actions: [] });
    if (input.signal?.aborted) stop();
    else input.signal?.addEventListener('abort', stop, { once: true });
  });
}

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

async function measure(url: string, body: string, idReplacement: boolean): Promise<AutocannonResult> {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` };
  return autocannon({ url, method: 'POST', connections: CONNECTIONS, duration: DURATION_SECONDS, headers, body, idReplacement });
}

export async function runBench(): Promise<void> {
  const directory = await mkdtemp(join(tmpdir(), 'kubewhy-bench-webhook-'));
  const database = openDatabase(join(directory, 'kubewhy.db'));
  const app = await buildApp({
    database,
    agent: {
      model: { name: 'held', createTurn: () => Promise.reject(new Error('not used')) },
      registry: createToolRegistry(),
      cluster: {} as Cluster,
      policy: { actNamespaces: [] },
      limits: { maxSteps: 12, tokenBudget: 400_000, runTimeoutMs: 3_600_000, toolOutputBytes: 16_384, approvalTtlMs: 3_600_000, maxHeldActions: 3 },
      runAgent: holdRun,
    },
    runs: { concurrency: 4, queueSize: 10_000_000, dedupWindowMs: 4 * 3600 * 1000, maxAttempts: 3, shutdownGraceMs: 0 },
    auth: { mode: 'tokens', tokens: { ingest: [TOKEN], read: [], approve: [] } },
    bodyLimitBytes: 1024 * 1024,
    logger: createLogger({ level: 'silent' }),
    version: 'bench',
    checkCluster: async () => ({ ok: true }),
  });
  const bare = Fastify({ bodyLimit: 1024 * 1024 });
  bare.post('/bare', async (_request, reply) => reply.code(202).send({ runs: [] }));
  try {
    const appUrl = await listen(app);
    const bareUrl = await listen(bare);
    // Rounds alternate the three cases, and each figure is the median of its rounds: on a
    // shared machine, a burst of someone else's work then skews one round, not one case.
    const results: Record<'bare' | 'fresh' | 'repeat', AutocannonResult[]> = { bare: [], fresh: [], repeat: [] };
    for (let round = 0; round < ROUNDS; round++) {
      results.bare.push(await measure(`${bareUrl}/bare`, payload('[<id>]'), true));
      results.fresh.push(await measure(`${appUrl}/v1/alerts/alertmanager`, payload('[<id>]'), true));
      results.repeat.push(await measure(`${appUrl}/v1/alerts/alertmanager`, payload('bench-repeat-000'), false));
    }
    const baseline = median(results.bare);
    const fresh = median(results.fresh);
    const repeats = median(results.repeat);

    const rows = [
      ['route', 'req/s', 'p99 ms', 'mean ms', 'non-2xx', 'ratio to bare'],
      row('bare Fastify POST (JSON body, 202)', baseline, baseline),
      row('webhook, every alert new (run stored)', fresh, baseline),
      row('webhook, every alert a repeat (deduplicated)', repeats, baseline),
    ];
    const widths = rows[0]!.map((_cell, column) => Math.max(...rows.map((cells) => cells[column]!.length)));
    process.stdout.write(`${rows.map((cells) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd()).join('\n')}\n`);
    const ratio = fresh.requests.average / baseline.requests.average;
    process.stdout.write(
      `\nwebhook ingestion (new alerts): ${ratio.toFixed(2)} of the bare route's throughput (aim: at least ${RATIO_AIM}) ${ratio >= RATIO_AIM ? 'met' : 'NOT met'}; ` +
        `${CONNECTIONS} connections, median of ${ROUNDS} rounds of ${DURATION_SECONDS} s per case\n`,
    );
  } finally {
    await app.close();
    await bare.close();
    database.close();
    await rm(directory, { recursive: true, force: true });
  }
}

/** Same contract under the name the runner of a single bench may call. */
export const run = runBench;

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
