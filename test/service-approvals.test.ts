import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createAuditStore } from '../src/audit/audit-store.ts';
import { openDatabase } from '../src/store/database.ts';
import { createGate, createInvestigatingModel, startTestApp, type TestApp } from './helpers/service-app.ts';

const undo = { id: 'call-undo', name: 'rollout_undo', input: { namespace: 'staging', name: 'checkout-api' } };

async function startHeldRun(
  t: Parameters<typeof startTestApp>[0],
): Promise<TestApp & { runId: string; actionId: string }> {
  const app = await startTestApp(t, {
    model: createInvestigatingModel({ firstCalls: [undo] }),
    actNamespaces: ['staging'],
  });
  const response = await app.call({
    method: 'POST',
    url: '/v1/incidents',
    scope: 'ingestAct',
    body: { text: 'checkout-api in staging keeps restarting', namespace: 'staging', rung: 'ACT' },
  });
  const runId = response.json().id as string;
  const held = await app.waitForRun(runId, (run) => run.status === 'awaiting_approval');
  const actions = held.actions as { id: string; tool: string; status: string }[];
  assert.deepEqual(
    actions.map((action) => [action.tool, action.status]),
    [['rollout_undo', 'awaiting_approval']],
  );
  return { ...app, runId, actionId: actions[0]!.id };
}

test('a held action is visible on the run; approving it runs it and the run goes on', async (t) => {
  const { call, waitForRun, recording, runId, actionId } = await startHeldRun(t);
  assert.deepEqual(recording.executed, []);

  const approved = await call({
    method: 'POST',
    url: `/v1/runs/${runId}/actions/${actionId}/approve`,
    scope: 'approve',
    body: { by: 'alice', reason: 'rollback is safe' },
  });
  assert.equal(approved.statusCode, 200);
  assert.equal(approved.json().decision, 'approved');
  assert.match(approved.json().by, /^alice \(approve#[0-9a-f]{8}\)$/);

  const run = await waitForRun(runId);
  assert.equal(run.status, 'completed');
  assert.deepEqual(recording.executed, ['rollout_undo staging/checkout-api']);
  assert.equal((run.actions as { status: string }[])[0]?.status, 'executed');

  const audit = (await call({ method: 'GET', url: `/v1/runs/${runId}/audit` })).json() as {
    type: string;
    time: string;
    payload: Record<string, unknown>;
  }[];
  const approval = audit.find((event) => event.type === 'approval');
  assert.equal(approval?.payload.decision, 'approved');
  assert.equal(approval?.payload.by, approved.json().by);
  assert.equal(approval?.payload.reason, 'rollback is safe');
  assert.ok(approval?.time);
});

test('rejecting a held action means it never runs; the token alone names who decided', async (t) => {
  const { call, waitForRun, recording, runId, actionId } = await startHeldRun(t);
  const rejected = await call({
    method: 'POST',
    url: `/v1/runs/${runId}/actions/${actionId}/reject`,
    scope: 'approve',
  });
  assert.equal(rejected.statusCode, 200);
  assert.match(rejected.json().by, /^approve#[0-9a-f]{8}$/);
  const run = await waitForRun(runId);
  assert.equal(run.status, 'completed');
  assert.equal((run.actions as { status: string }[])[0]?.status, 'rejected');
  assert.deepEqual(recording.executed, []);
});

test('deciding twice is a 409; an unknown run or action is a 404', async (t) => {
  const { call, waitForRun, runId, actionId } = await startHeldRun(t);
  assert.equal(
    (await call({ method: 'POST', url: `/v1/runs/${runId}/actions/${actionId}/approve`, scope: 'approve' })).statusCode,
    200,
  );
  await waitForRun(runId);
  const again = await call({ method: 'POST', url: `/v1/runs/${runId}/actions/${actionId}/reject`, scope: 'approve' });
  assert.equal(again.statusCode, 409);
  assert.deepEqual(again.json(), {
    error: 'conflict',
    message: `action ${actionId} is not awaiting approval: it is executed`,
    details: { status: 'executed' },
  });

  const unknownAction = await call({
    method: 'POST',
    url: `/v1/runs/${runId}/actions/act-nope/approve`,
    scope: 'approve',
  });
  assert.equal(unknownAction.statusCode, 404);
  assert.equal(unknownAction.json().message, `run ${runId} has no action act-nope`);
  const unknownRun = await call({
    method: 'POST',
    url: `/v1/runs/no-run/actions/${actionId}/approve`,
    scope: 'approve',
  });
  assert.equal(unknownRun.statusCode, 404);
});

test('a proposed action (OBSERVE) cannot be approved', async (t) => {
  const { call, waitForRun } = await startTestApp(t, { model: createInvestigatingModel({ firstCalls: [undo] }) });
  const { id } = (
    await call({
      method: 'POST',
      url: '/v1/incidents',
      scope: 'ingest',
      body: { text: 'checkout-api keeps restarting', namespace: 'staging' },
    })
  ).json();
  const run = await waitForRun(id);
  const action = (run.actions as { id: string; status: string }[])[0]!;
  assert.equal(action.status, 'proposed');
  const response = await call({ method: 'POST', url: `/v1/runs/${id}/actions/${action.id}/approve`, scope: 'approve' });
  assert.equal(response.statusCode, 409);
  assert.match(response.json().message, /it is proposed/);
});

test('a parked run holds no worker: with one worker, the next incident is diagnosed while the first waits for a person', async (t) => {
  const app = await startTestApp(t, {
    model: createInvestigatingModel({ firstCalls: [undo] }),
    actNamespaces: ['staging'],
    runs: { concurrency: 1 },
  });
  const held = await app.call({
    method: 'POST',
    url: '/v1/incidents',
    scope: 'ingestAct',
    body: { text: 'checkout-api in staging keeps restarting', namespace: 'staging', rung: 'ACT' },
  });
  const heldId = held.json().id as string;
  await app.waitForRun(heldId, (run) => run.status === 'awaiting_approval');
  const next = await app.call({
    method: 'POST',
    url: '/v1/incidents',
    scope: 'ingest',
    body: { text: 'checkout-api in staging keeps restarting', namespace: 'staging' },
  });
  const finished = await app.waitForRun(next.json().id as string);
  assert.equal(finished.status, 'completed');
  assert.equal((await app.waitForRun(heldId, () => true)).status, 'awaiting_approval');
  assert.equal(app.app.runService.inProgress(), 0);
});

test('the run deadline does not count the time spent waiting: an approval after the run timeout still runs and the run completes', async (t) => {
  const app = await startTestApp(t, {
    model: createInvestigatingModel({ firstCalls: [undo] }),
    actNamespaces: ['staging'],
    limits: { runTimeoutMs: 200, approvalTtlMs: 60_000 },
  });
  const response = await app.call({
    method: 'POST',
    url: '/v1/incidents',
    scope: 'ingestAct',
    body: { text: 'checkout-api in staging keeps restarting', namespace: 'staging', rung: 'ACT' },
  });
  const runId = response.json().id as string;
  const held = await app.waitForRun(runId, (run) => run.status === 'awaiting_approval');
  const action = (held.actions as { id: string; expiresAt?: string }[])[0]!;
  assert.ok(
    action.expiresAt && Date.parse(action.expiresAt) > Date.now() + 50_000,
    'the held action says when it expires',
  );
  // Twice the run's whole deadline passes while it is parked.
  await new Promise((resolve) => setTimeout(resolve, 400));
  assert.equal(
    (await app.call({ method: 'POST', url: `/v1/runs/${runId}/actions/${action.id}/approve`, scope: 'approve' }))
      .statusCode,
    200,
  );
  const run = await app.waitForRun(runId);
  assert.equal(run.status, 'completed', String(run.reason));
  assert.deepEqual(
    app.recording.executed.filter((entry) => entry.startsWith('rollout_undo')),
    ['rollout_undo staging/checkout-api'],
  );
  const types = ((await app.call({ method: 'GET', url: `/v1/runs/${runId}/audit` })).json() as { type: string }[]).map(
    (event) => event.type,
  );
  assert.ok(
    types.indexOf('run-parked') < types.indexOf('approval') && types.indexOf('approval') < types.indexOf('run-resumed'),
    types.join(' '),
  );
});

test('a held action that nobody decides expires; the run resumes, is told, and completes without it', async (t) => {
  const app = await startTestApp(t, {
    model: createInvestigatingModel({ firstCalls: [undo] }),
    actNamespaces: ['staging'],
    limits: { approvalTtlMs: 100 },
  });
  const response = await app.call({
    method: 'POST',
    url: '/v1/incidents',
    scope: 'ingestAct',
    body: { text: 'checkout-api in staging keeps restarting', namespace: 'staging', rung: 'ACT' },
  });
  const run = await app.waitForRun(response.json().id as string);
  assert.equal(run.status, 'completed');
  assert.equal((run.actions as { status: string }[])[0]?.status, 'expired');
  assert.deepEqual(
    app.recording.executed.filter((entry) => entry.startsWith('rollout_undo')),
    [],
  );
  const audit = (await app.call({ method: 'GET', url: `/v1/runs/${run.id as string}/audit` })).json() as {
    type: string;
    payload: Record<string, unknown>;
  }[];
  assert.equal(audit.find((event) => event.type === 'approval')?.payload.decision, 'expired');
  assert.match(
    String(
      audit.find((event) => event.type === 'tool-result' && event.payload.tool === 'rollout_undo')?.payload.content,
    ),
    /expired without a decision/,
  );
});

test('a parked run survives a restart: a decision made on the new process resumes it, and the write runs once', async (t) => {
  const directory = mkdtempSync(join(tmpdir(), 'kubewhy-park-'));
  t.after(() => rmSync(directory, { recursive: true, force: true }));
  const path = join(directory, 'kubewhy.db');
  const first = openDatabase(path);
  const before = await startTestApp(t, {
    database: first,
    model: createInvestigatingModel({ firstCalls: [undo] }),
    actNamespaces: ['staging'],
  });
  const runId = (
    await before.call({
      method: 'POST',
      url: '/v1/incidents',
      scope: 'ingestAct',
      body: { text: 'checkout-api in staging keeps restarting', namespace: 'staging', rung: 'ACT' },
    })
  ).json().id as string;
  const held = await before.waitForRun(runId, (run) => run.status === 'awaiting_approval');
  const actionId = (held.actions as { id: string }[])[0]!.id;
  await before.app.close();
  first.close();

  const second = openDatabase(path);
  t.after(() => second.close());
  const after = await startTestApp(t, {
    database: second,
    model: createInvestigatingModel({ firstCalls: [undo] }),
    actNamespaces: ['staging'],
  });
  assert.equal(
    (await after.waitForRun(runId, () => true)).status,
    'awaiting_approval',
    'still parked after the restart',
  );
  assert.equal(
    (
      await after.call({
        method: 'POST',
        url: `/v1/runs/${runId}/actions/${actionId}/approve`,
        scope: 'approve',
        body: { by: 'alice' },
      })
    ).statusCode,
    200,
  );
  const run = await after.waitForRun(runId);
  assert.equal(run.status, 'completed', String(run.reason));
  assert.equal((run.actions as { status: string }[])[0]?.status, 'executed');
  assert.deepEqual(
    [...before.recording.executed, ...after.recording.executed].filter((entry) => entry.startsWith('rollout_undo')),
    ['rollout_undo staging/checkout-api'],
  );
  assert.deepEqual(createAuditStore(second).verify(runId).problems, []);
});

test("rung ACT needs the act scope: an ingest token alone (Alertmanager's, say) gets 403 and nothing is stored", async (t) => {
  const app = await startTestApp(t, {
    model: createInvestigatingModel({ firstCalls: [undo] }),
    actNamespaces: ['staging'],
  });
  const response = await app.call({
    method: 'POST',
    url: '/v1/incidents',
    scope: 'ingest',
    body: { text: 'checkout-api in staging keeps restarting', namespace: 'staging', rung: 'ACT' },
  });
  assert.equal(response.statusCode, 403);
  assert.match(response.json().message, /act/);
  assert.deepEqual((await app.call({ method: 'GET', url: '/v1/runs' })).json().runs, []);
});

test('a run holds at most the configured number of actions; the model is told why the next one was not held', async (t) => {
  const writes = ['checkout-api', 'cart', 'payments', 'search'].map((name, index) => ({
    id: `call-undo-${index}`,
    name: 'rollout_undo',
    input: { namespace: 'staging', name },
  }));
  const app = await startTestApp(t, {
    model: createInvestigatingModel({ firstCalls: writes }),
    actNamespaces: ['staging'],
    limits: { maxHeldActions: 3 },
  });
  const runId = (
    await app.call({
      method: 'POST',
      url: '/v1/incidents',
      scope: 'ingestAct',
      body: { text: 'checkout-api in staging keeps restarting', namespace: 'staging', rung: 'ACT' },
    })
  ).json().id as string;
  const held = await app.waitForRun(runId, (run) => run.status === 'awaiting_approval');
  const actions = held.actions as { id: string; status: string }[];
  assert.equal(actions.length, 3);
  for (const action of actions)
    assert.equal(
      (await app.call({ method: 'POST', url: `/v1/runs/${runId}/actions/${action.id}/reject`, scope: 'approve' }))
        .statusCode,
      200,
    );
  const run = await app.waitForRun(runId);
  assert.equal(run.status, 'completed');
  const audit = (await app.call({ method: 'GET', url: `/v1/runs/${runId}/audit` })).json() as {
    type: string;
    payload: Record<string, unknown>;
  }[];
  const refused = audit.find((event) => event.type === 'gate-decision' && event.payload.decision === 'refuse');
  assert.match(String(refused?.payload.reason), /already asked a person to approve 3 action/);
});

test('a held action is put to a person with the diagnosis: the awaiting run shows it, the action its reason and diff; approved, the summary says what was done', async (t) => {
  const { call, waitForRun, recording, runId, actionId } = await startHeldRun(t);
  const held = (await call({ method: 'GET', url: `/v1/runs/${runId}` })).json() as {
    status: string;
    diagnosis?: { category: string; summary: string; evidence: string[]; actions: { id: string }[] };
    actions: Record<string, unknown>[];
  };
  assert.equal(held.status, 'awaiting_approval');
  assert.equal(held.diagnosis?.category, 'bad-credentials');
  assert.deepEqual(held.diagnosis?.evidence, [
    'previous log: FATAL: password authentication failed for user "checkout"',
  ]);
  assert.match(
    held.diagnosis?.summary ?? '',
    new RegExp(
      `Awaiting a person's approval: rolling back Deployment staging/checkout-api .*\\(action ${actionId}\\)\\.$`,
    ),
  );
  const action = held.actions[0]!;
  assert.match(
    String(action.reason),
    /^For the diagnosis \(bad-credentials, high confidence\): checkout-api crash-loops since revision 4/,
  );
  assert.deepEqual(action.diff, [
    'rollout_undo staging/checkout-api: app: image shop/checkout:1.5.0 → shop/checkout:1.4.2',
  ]);
  assert.ok(action.expiresAt);
  assert.deepEqual(recording.executed, [], 'nothing ran: the dry run alone was sent');

  // The listing of runs awaiting approval carries the same held action.
  const listed = (await call({ method: 'GET', url: '/v1/runs?status=awaiting_approval' })).json() as {
    runs: { id: string; actions: Record<string, unknown>[] }[];
  };
  const listedAction = listed.runs.find((run) => run.id === runId)?.actions[0];
  assert.equal(listedAction?.reason, action.reason);
  assert.deepEqual(listedAction?.diff, action.diff);

  assert.equal(
    (
      await call({
        method: 'POST',
        url: `/v1/runs/${runId}/actions/${actionId}/approve`,
        scope: 'approve',
        body: { by: 'alice', reason: 'rollback is safe' },
      })
    ).statusCode,
    200,
  );
  const run = (await waitForRun(runId)) as {
    status: string;
    diagnosis?: { summary: string };
    actions: Record<string, unknown>[];
  };
  assert.equal(run.status, 'completed');
  assert.deepEqual(recording.executed, ['rollout_undo staging/checkout-api']);
  assert.equal(run.actions[0]?.status, 'executed');
  assert.equal(run.actions[0]?.reason, action.reason, 'the reason it was asked for stays');
  assert.equal(run.actions[0]?.decisionReason, 'rollback is safe');
  assert.match(
    run.diagnosis?.summary ?? '',
    /Rolled back Deployment staging\/checkout-api \(approved by alice \(approve#[0-9a-f]{8}\)\)\.$/,
  );
  assert.doesNotMatch(run.diagnosis?.summary ?? '', /Awaiting/);

  const audit = (await call({ method: 'GET', url: `/v1/runs/${runId}/audit` })).json() as {
    type: string;
    payload: Record<string, unknown>;
  }[];
  const types = audit.map((event) => event.type);
  const order = [
    'gate-decision',
    'approval-requested',
    'run-parked',
    'approval',
    'run-resumed',
    'tool-result',
    'diagnosis',
    'run-finished',
  ].map((type) => types.indexOf(type));
  assert.deepEqual(
    [...order].sort((left, right) => left - right),
    order,
    types.join(' '),
  );
  assert.deepEqual(audit.find((event) => event.type === 'approval-requested')?.payload.diff, action.diff);
});

test('an action held while the run still investigates cannot be decided yet: 409 says it is put to a person with the diagnosis', async (t) => {
  const gate = createGate();
  const model = createInvestigatingModel({ firstCalls: [undo] });
  const app = await startTestApp(t, {
    model: {
      name: model.name,
      createTurn: async (request) =>
        request.transcript.length > 1 ? (await gate.wait(), model.createTurn(request)) : model.createTurn(request),
    },
    actNamespaces: ['staging'],
  });
  const runId = (
    await app.call({
      method: 'POST',
      url: '/v1/incidents',
      scope: 'ingestAct',
      body: { text: 'checkout-api in staging keeps restarting', namespace: 'staging', rung: 'ACT' },
    })
  ).json().id as string;
  const running = await app.waitForRun(runId, (run) => (run.actions as unknown[]).length > 0);
  assert.equal(running.status, 'running');
  const actionId = (running.actions as { id: string }[])[0]!.id;
  const early = await app.call({
    method: 'POST',
    url: `/v1/runs/${runId}/actions/${actionId}/approve`,
    scope: 'approve',
  });
  assert.equal(early.statusCode, 409);
  assert.match(early.json().message, /not yet put to a person/);
  gate.open();
  assert.equal((await app.waitForRun(runId, (run) => run.status === 'awaiting_approval')).status, 'awaiting_approval');
});
