/**
 * Diagnoses on agent worker threads (src/runs/workers/pool.ts), with the real app, a
 * SQLite file shared by the HTTP thread and the worker, the offline engine and the mock
 * cluster over HTTP. The HTTP thread's own cluster throws when used: every tool call of
 * these runs is made on the worker.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { parseFaultSpec, startMockCluster, type MockCluster } from '../mock-cluster/index.ts';
import { createOfflineModel } from '../src/agent/offline/offline-model.ts';
import { createAuditStore } from '../src/audit/audit-store.ts';
import { createAgentWorkers, type AgentWorkers } from '../src/runs/workers/pool.ts';
import { createLogger } from '../src/logger.ts';
import { openDatabase } from '../src/store/database.ts';
import { startTestApp, type TestApp } from './helpers/service-app.ts';

const SCENARIO = join(import.meta.dirname, '..', 'mock-cluster', 'scenarios', 'checkout-secret-rotation');

async function startWorkerApp(
  t: TestContext,
  options: { faults?: string[]; shutdownGraceMs?: number; actNamespaces?: string[] } = {},
): Promise<{ service: TestApp; workers: AgentWorkers; mock: MockCluster; databasePath: string }> {
  const directory = await mkdtemp(join(tmpdir(), 'kubewhy-agent-workers-'));
  const mock = await startMockCluster({ scenario: SCENARIO, faults: (options.faults ?? []).map(parseFaultSpec) });
  const databasePath = join(directory, 'kubewhy.db');
  const database = openDatabase(databasePath);
  const workers = createAgentWorkers({
    count: 1,
    setup: {
      database: { kind: 'sqlite', path: databasePath },
      cluster: { kubeconfigPath: mock.kubeconfigPath, requestTimeoutMs: 10_000 },
      model: { provider: 'offline' },
      secretKeys: false,
      logLevel: 'silent',
    },
    logger: createLogger({ level: 'silent' }),
  });
  t.after(async () => {
    await workers.close();
    database.close();
    await mock.close();
    await rm(directory, { recursive: true, force: true });
  });
  const service = await startTestApp(t, {
    database,
    model: createOfflineModel(),
    runAgent: workers.runAgent,
    limits: { maxSteps: 12, runTimeoutMs: 60_000, toolOutputBytes: 16_384 },
    runs: { shutdownGraceMs: options.shutdownGraceMs ?? 5000 },
    ...(options.actNamespaces ? { actNamespaces: options.actNamespaces } : {}),
  });
  return { service, workers, mock, databasePath };
}

test('a worker thread diagnoses the demo: the diagnosis, the audit chain and the metrics are those of an in-process run', async (t) => {
  const { service, databasePath } = await startWorkerApp(t);
  const answer = await service.call({
    method: 'POST',
    url: '/v1/incidents?wait=60',
    scope: 'ingest',
    body: { text: 'checkout-api in staging keeps restarting' },
  });
  const run = answer.json() as {
    id: string;
    status: string;
    diagnosis?: { category: string; culprit: { name: string } };
  };
  assert.equal(run.status, 'completed');
  assert.equal(run.diagnosis?.category, 'bad-credentials');
  assert.equal(run.diagnosis?.culprit.name, 'checkout-api');

  // The chain the worker appended to (run-created from the HTTP thread first, run-finished last) verifies.
  const reader = openDatabase(databasePath);
  t.after(() => reader.close());
  const audit = createAuditStore(reader);
  const events = audit.list(run.id);
  assert.equal(events[0]?.type, 'run-created');
  assert.equal(events.at(-1)?.type, 'run-finished');
  assert.ok(
    events.some((event) => event.type === 'tool-result'),
    'the tool calls made on the worker are audited',
  );
  assert.deepEqual(audit.verify(run.id).problems, []);

  // The loop's hooks came back from the worker: its model and tool calls are counted.
  const metrics = (await service.call({ method: 'GET', url: '/metrics', scope: null })).body;
  assert.match(metrics, /kubewhy_model_requests_total\{model="offline",outcome="ok"\} [1-9]/);
  assert.match(metrics, /kubewhy_tool_calls_total\{tool="unknown",risk="read",outcome="ok"\} [1-9]/);
});

test('a run on a worker parks for approval; the decision resumes it on a worker, which makes the change', async (t) => {
  const { service, mock } = await startWorkerApp(t, { actNamespaces: ['staging'] });
  const answer = await service.call({
    method: 'POST',
    url: '/v1/incidents',
    scope: 'ingestAct',
    body: { text: 'checkout-api in staging keeps restarting', namespace: 'staging', rung: 'ACT' },
  });
  const { id } = answer.json() as { id: string };
  const parked = await service.waitForRun(
    id,
    (run) => run.status === 'awaiting_approval' || run.status === 'completed' || run.status === 'failed',
  );
  assert.equal(parked.status, 'awaiting_approval', JSON.stringify(parked));
  const held = (parked.actions as { id: string; status: string; tool: string }[]).find(
    (action) => action.status === 'awaiting_approval',
  );
  assert.ok(held, 'an action is held');
  const decided = await service.call({
    method: 'POST',
    url: `/v1/runs/${id}/actions/${held.id}/approve`,
    scope: 'approve',
    body: { by: 'alice' },
  });
  assert.equal(decided.statusCode, 200);
  const done = await service.waitForRun(id, (run) => run.status === 'completed' || run.status === 'failed');
  assert.equal(done.status, 'completed', JSON.stringify(done));
  const executed = (done.actions as { id: string; status: string }[]).find((action) => action.id === held.id);
  assert.equal(executed?.status, 'executed');
  assert.ok(
    mock.requestLog.some((request) => request.method !== 'GET'),
    'the approved write reached the cluster',
  );
});

test("the service's shutdown reaches a run on a worker: it stops, unfinished, and resumes at the next start", async (t) => {
  const { service, workers } = await startWorkerApp(t, { faults: ['latency:ms=1500'], shutdownGraceMs: 0 });
  const answer = await service.call({
    method: 'POST',
    url: '/v1/incidents',
    scope: 'ingest',
    body: { text: 'checkout-api in staging keeps restarting' },
  });
  const { id } = answer.json() as { id: string };
  await service.waitForRun(id, (run) => run.status === 'running');
  while (workers.load()[0] === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  await service.app.close();
  assert.deepEqual(workers.load(), [0], 'the worker answered the abort');
  const stored = service.database.prepare('SELECT status FROM runs WHERE id = ?').get(id) as { status: string };
  assert.equal(stored.status, 'running', 'left for the next start to resume');
});

test('a worker that dies fails the runs it held, and another takes its place', async (t) => {
  const directory = await mkdtemp(join(tmpdir(), 'kubewhy-agent-workers-'));
  t.after(() => rm(directory, { recursive: true, force: true }));
  const workers = createAgentWorkers({
    count: 1,
    setup: {
      database: { kind: 'sqlite', path: join(directory, 'unused.db') },
      cluster: {},
      model: { provider: 'offline' },
      secretKeys: false,
      logLevel: 'silent',
    },
    logger: createLogger({ level: 'silent' }),
    workerUrl: new URL('./fixtures/agent-workers/dying-worker.ts', import.meta.url),
  });
  t.after(() => workers.close());
  const run = (runId: string) =>
    workers.runAgent({
      runId,
      trigger: { kind: 'incident', text: 'checkout-api in staging keeps restarting' },
      rung: 'OBSERVE',
      model: createOfflineModel(),
      registry: { list: () => [], get: () => undefined } as never,
      cluster: {} as never,
      policy: { actNamespaces: [] },
      audit: { record: () => undefined, flush: () => Promise.resolve() },
      limits: { maxSteps: 4, tokenBudget: 1000, timeoutMs: 5000, approvalTtlMs: 1000, toolOutputBytes: 1024 },
    });
  await assert.rejects(run('first'), /the agent worker stopped \(exit code 3\) during the run/);
  assert.deepEqual(workers.load(), [0]);
  // The replacement is a new worker: it takes the next run (and, being the same module, dies the same way).
  await assert.rejects(run('second'), /exit code 3/);
});
