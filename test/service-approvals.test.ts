import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createInvestigatingModel, startTestApp, type TestApp } from './helpers/service-app.ts';

const undo = { id: 'call-undo', name: 'rollout_undo', input: { namespace: 'staging', name: 'checkout-api' } };

async function startHeldRun(t: Parameters<typeof startTestApp>[0]): Promise<TestApp & { runId: string; actionId: string }> {
  const app = await startTestApp(t, { model: createInvestigatingModel({ firstCalls: [undo] }), actNamespaces: ['staging'] });
  const response = await app.call({ method: 'POST', url: '/v1/incidents', scope: 'ingest', body: { text: 'checkout-api in staging keeps restarting', namespace: 'staging', rung: 'ACT' } });
  const runId = response.json().id as string;
  const held = await app.waitForRun(runId, (run) => run.status === 'awaiting_approval');
  const actions = held.actions as { id: string; tool: string; status: string }[];
  assert.deepEqual(actions.map((action) => [action.tool, action.status]), [['rollout_undo', 'awaiting_approval']]);
  return { ...app, runId, actionId: actions[0]!.id };
}

test('a held action is visible on the run; approving it runs it and the run goes on', async (t) => {
  const { call, waitForRun, recording, runId, actionId } = await startHeldRun(t);
  assert.deepEqual(recording.executed, []);

  const approved = await call({ method: 'POST', url: `/v1/runs/${runId}/actions/${actionId}/approve`, scope: 'approve', body: { by: 'alice', reason: 'rollback is safe' } });
  assert.equal(approved.statusCode, 200);
  assert.equal(approved.json().decision, 'approved');
  assert.match(approved.json().by, /^alice \(approve#[0-9a-f]{8}\)$/);

  const run = await waitForRun(runId);
  assert.equal(run.status, 'completed');
  assert.deepEqual(recording.executed, ['rollout_undo staging/checkout-api']);
  assert.equal((run.actions as { status: string }[])[0]?.status, 'executed');

  const audit = (await call({ method: 'GET', url: `/v1/runs/${runId}/audit` })).json() as { type: string; time: string; payload: Record<string, unknown> }[];
  const approval = audit.find((event) => event.type === 'approval');
  assert.equal(approval?.payload.decision, 'approved');
  assert.equal(approval?.payload.by, approved.json().by);
  assert.equal(approval?.payload.reason, 'rollback is safe');
  assert.ok(approval?.time);
});

test('rejecting a held action means it never runs; the token alone names who decided', async (t) => {
  const { call, waitForRun, recording, runId, actionId } = await startHeldRun(t);
  const rejected = await call({ method: 'POST', url: `/v1/runs/${runId}/actions/${actionId}/reject`, scope: 'approve' });
  assert.equal(rejected.statusCode, 200);
  assert.match(rejected.json().by, /^approve#[0-9a-f]{8}$/);
  const run = await waitForRun(runId);
  assert.equal(run.status, 'completed');
  assert.equal((run.actions as { status: string }[])[0]?.status, 'rejected');
  assert.deepEqual(recording.executed, []);
});

test('deciding twice is a 409; an unknown run or action is a 404', async (t) => {
  const { call, waitForRun, runId, actionId } = await startHeldRun(t);
  assert.equal((await call({ method: 'POST', url: `/v1/runs/${runId}/actions/${actionId}/approve`, scope: 'approve' })).statusCode, 200);
  await waitForRun(runId);
  const again = await call({ method: 'POST', url: `/v1/runs/${runId}/actions/${actionId}/reject`, scope: 'approve' });
  assert.equal(again.statusCode, 409);
  assert.deepEqual(again.json(), { error: 'conflict', message: `action ${actionId} is not awaiting approval: it is executed`, details: { status: 'executed' } });

  const unknownAction = await call({ method: 'POST', url: `/v1/runs/${runId}/actions/act-nope/approve`, scope: 'approve' });
  assert.equal(unknownAction.statusCode, 404);
  assert.equal(unknownAction.json().message, `run ${runId} has no action act-nope`);
  const unknownRun = await call({ method: 'POST', url: `/v1/runs/no-run/actions/${actionId}/approve`, scope: 'approve' });
  assert.equal(unknownRun.statusCode, 404);
});

test('a proposed action (OBSERVE) cannot be approved', async (t) => {
  const { call, waitForRun } = await startTestApp(t, { model: createInvestigatingModel({ firstCalls: [undo] }) });
  const { id } = (await call({ method: 'POST', url: '/v1/incidents', scope: 'ingest', body: { text: 'checkout-api keeps restarting', namespace: 'staging' } })).json();
  const run = await waitForRun(id);
  const action = (run.actions as { id: string; status: string }[])[0]!;
  assert.equal(action.status, 'proposed');
  const response = await call({ method: 'POST', url: `/v1/runs/${id}/actions/${action.id}/approve`, scope: 'approve' });
  assert.equal(response.statusCode, 409);
  assert.match(response.json().message, /it is proposed/);
});
