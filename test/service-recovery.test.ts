import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAuditStore } from '../src/audit/audit-store.ts';
import { openDatabase } from '../src/store/database.ts';
import { createRunStore } from '../src/store/run-store.ts';
import { createGate, createInvestigatingModel, startTestApp } from './helpers/service-app.ts';

const trigger = { kind: 'incident' as const, text: 'checkout-api in staging keeps restarting', namespace: 'staging' };

test('a start picks up what the last process left: queued runs run, interrupted ones resume or fail with a reason', async (t) => {
  const database = openDatabase(':memory:');
  t.after(() => database.close());
  const store = createRunStore(database);
  const audit = createAuditStore(database);
  const leave = (
    id: string,
    state: 'queued' | 'running' | 'awaiting_approval' | 'completed',
    options: { attempts?: number; approved?: boolean } = {},
  ): void => {
    store.create({ id, trigger, source: 'api', rung: 'OBSERVE' });
    audit.append({ runId: id, type: 'run-created', payload: { trigger } });
    if (state === 'queued') return;
    for (let attempt = 0; attempt < (options.attempts ?? 1); attempt++) {
      store.claim(id);
      if (attempt < (options.attempts ?? 1) - 1) store.requeue(id);
    }
    if (options.approved) {
      store.updateProgress(id, {
        status: 'awaiting_approval',
        actions: [{ id: 'act-1', tool: 'rollout_undo', args: {}, risk: 'write', status: 'awaiting_approval' }],
      });
      audit.append({
        runId: id,
        type: 'approval',
        payload: { actionId: 'act-1', decision: 'approved', by: 'approve#00000000' },
      });
      store.updateProgress(id, {
        status: 'running',
        actions: [{ id: 'act-1', tool: 'rollout_undo', args: {}, risk: 'write', status: 'approved' }],
      });
    }
    if (state === 'awaiting_approval')
      store.updateProgress(id, {
        status: 'awaiting_approval',
        actions: [{ id: 'act-2', tool: 'scale', args: {}, risk: 'write', status: 'awaiting_approval' }],
      });
    if (state === 'completed') store.finish(id, { status: 'completed', reason: 'done before' });
  };
  leave('queued-run', 'queued');
  leave('interrupted-run', 'running');
  leave('held-run', 'awaiting_approval');
  leave('wrote-run', 'running', { approved: true });
  leave('crashy-run', 'running', { attempts: 3 });
  leave('done-run', 'completed');
  // A run whose run-created event was lost between its insert and its audit append.
  store.create({ id: 'unaudited-run', trigger, source: 'api', rung: 'OBSERVE' });

  const { waitForRun, call } = await startTestApp(t, { database });
  const outcome = async (id: string) => {
    const run = await waitForRun(id);
    return { status: run.status, attempts: run.attempts, reason: run.reason };
  };
  assert.deepEqual(await outcome('queued-run'), { status: 'completed', attempts: 1, reason: undefined });
  assert.deepEqual(await outcome('interrupted-run'), { status: 'completed', attempts: 2, reason: undefined });
  assert.deepEqual(await outcome('held-run'), { status: 'completed', attempts: 2, reason: undefined });
  assert.deepEqual(await outcome('unaudited-run'), { status: 'completed', attempts: 1, reason: undefined });
  const wrote = await outcome('wrote-run');
  assert.equal(wrote.status, 'failed');
  assert.match(String(wrote.reason), /after a write action was approved; not started again/);
  const crashy = await outcome('crashy-run');
  assert.equal(crashy.status, 'failed');
  assert.match(String(crashy.reason), /interrupted by a crash or restart 3 times/);
  assert.deepEqual(await outcome('done-run'), { status: 'completed', attempts: 1, reason: 'done before' });

  const events = (await call({ method: 'GET', url: '/v1/runs/interrupted-run/audit' })).json() as {
    type: string;
    payload: { message?: string };
  }[];
  const seam = events.find((event) => event.type === 'error');
  assert.match(String(seam?.payload.message), /^resumed after restart/);
  assert.equal(events.filter((event) => event.type === 'run-finished').length, 1);
  const unaudited = (await call({ method: 'GET', url: '/v1/runs/unaudited-run/audit' })).json() as { type: string }[];
  assert.equal(unaudited[0]?.type, 'run-created');
  assert.deepEqual(createAuditStore(database).verify().problems, []);
});

test('shutdown lets a running run finish within the grace period', async (t) => {
  const database = openDatabase(':memory:');
  t.after(() => database.close());
  const gate = createGate();
  const first = await startTestApp(t, {
    database,
    model: createInvestigatingModel({ gate: gate.wait }),
    runs: { shutdownGraceMs: 30_000 },
  });
  const { id } = (
    await first.call({ method: 'POST', url: '/v1/incidents', scope: 'ingest', body: { text: 'checkout is down' } })
  ).json();
  await first.waitForRun(id, (run) => run.status === 'running');
  const closing = first.app.close();
  gate.open();
  await closing;
  assert.equal(createRunStore(database).get(id)?.status, 'completed');
});

test('shutdown past its grace period stops running runs; the next start resumes them and the queued ones, none twice', async (t) => {
  const database = openDatabase(':memory:');
  t.after(() => database.close());
  const never = createGate();
  const first = await startTestApp(t, {
    database,
    model: createInvestigatingModel({ gate: never.wait }),
    runs: { concurrency: 1, shutdownGraceMs: 20 },
  });
  const ids: string[] = [];
  for (let index = 0; index < 3; index++)
    ids.push(
      (
        await first.call({ method: 'POST', url: '/v1/incidents', scope: 'ingest', body: { text: `incident ${index}` } })
      ).json().id,
    );
  await first.waitForRun(ids[0]!, (run) => run.status === 'running');
  await first.app.close();
  const store = createRunStore(database);
  assert.deepEqual(
    ids.map((id) => store.get(id)?.status),
    ['running', 'queued', 'queued'],
  );

  const second = await startTestApp(t, { database });
  for (const id of ids) assert.equal((await second.waitForRun(id)).status, 'completed');
  assert.deepEqual(
    ids.map((id) => store.get(id)?.attempts),
    [2, 1, 1],
  );
  const audit = createAuditStore(database);
  for (const id of ids)
    assert.equal(audit.list(id).filter((event) => event.type === 'diagnosis').length, 1, `${id} is diagnosed once`);
});
