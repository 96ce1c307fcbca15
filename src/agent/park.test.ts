/**
 * Parking and resuming a run, with the real offline engine reading the real mock cluster:
 * a held rollback parks the run with a checkpoint that goes through JSON (as the store
 * keeps it), and the run resumed from it with a decision ends as an uninterrupted run
 * would, with the write run only when approved.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { startMockCluster } from '../../mock-cluster/index.ts';
import { createKubeCluster } from '../cluster/kube-adapter.ts';
import { createToolRegistry, defaultTools } from '../tools/registry.ts';
import { parseCheckpoint, serializeCheckpoint } from './checkpoint.ts';
import type { Action } from './diagnosis.ts';
import { runAgent, type RunAgentInput, type RunOutcome } from './loop.ts';
import { createOfflineModel } from './offline/offline-model.ts';
import { createMemoryRunAudit } from './run-audit.ts';

const SCENARIO = 'mock-cluster/scenarios/checkout-secret-rotation';
const LIMITS = { maxSteps: 12, tokenBudget: 400_000, timeoutMs: 60_000, approvalTtlMs: 60_000, toolOutputBytes: 16_384 };

async function startRun(t: TestContext) {
  const mock = await startMockCluster({ scenario: SCENARIO });
  t.after(() => mock.close());
  const audit = createMemoryRunAudit();
  const base: RunAgentInput = {
    runId: 'run-park',
    trigger: { kind: 'incident', text: 'checkout-api in staging keeps restarting', namespace: 'staging' },
    rung: 'ACT',
    model: createOfflineModel(),
    registry: createToolRegistry(defaultTools()),
    cluster: createKubeCluster({ kubeconfigPath: mock.kubeconfigPath }),
    policy: { actNamespaces: ['staging'] },
    audit,
    limits: LIMITS,
  };
  const parked = await runAgent(base);
  return { mock, audit, base, parked };
}

function decide(outcome: RunOutcome, status: 'approved' | 'rejected' | 'expired'): Action[] {
  return outcome.actions.map((action) => (action.status === 'awaiting_approval' ? { ...action, status, decidedBy: 'alice', decidedAt: new Date().toISOString() } : action));
}

async function revisionOf(mock: Awaited<ReturnType<typeof startMockCluster>>): Promise<string | undefined> {
  const response = await fetch(`${mock.url}/apis/apps/v1/namespaces/staging/deployments/checkout-api`);
  const deployment = (await response.json()) as { metadata?: { annotations?: Record<string, string> } };
  return deployment.metadata?.annotations?.['deployment.kubernetes.io/revision'];
}

test('without a broker a held rollback parks the run: a checkpoint, no diagnosis yet, nothing written', async (t) => {
  const { mock, parked } = await startRun(t);
  assert.equal(parked.status, 'parked');
  assert.ok(parked.checkpoint);
  assert.equal(parked.diagnosis, undefined);
  assert.deepEqual(parked.actions.map((action) => [action.tool, action.status]), [['rollout_undo', 'awaiting_approval']]);
  assert.ok(parked.actions[0]?.expiresAt);
  assert.deepEqual(parked.checkpoint.turn.heldActionIds, [parked.actions[0]?.id]);
  const before = await revisionOf(mock);
  assert.ok(before);
});

test('resumed from its stored checkpoint with an approval, the rollback runs and the run completes with its diagnosis', async (t) => {
  const { mock, audit, base, parked } = await startRun(t);
  const before = await revisionOf(mock);
  const stored = parseCheckpoint(serializeCheckpoint(parked.checkpoint!));
  const resumed = await runAgent({ ...base, resume: { checkpoint: stored, actions: decide(parked, 'approved') } });
  assert.equal(resumed.status, 'completed', resumed.reason);
  assert.equal(resumed.diagnosis?.category, 'bad-credentials');
  assert.deepEqual(resumed.diagnosis?.culprit, { kind: 'Deployment', namespace: 'staging', name: 'checkout-api' });
  assert.deepEqual(resumed.actions.map((action) => [action.tool, action.status]), [['rollout_undo', 'executed']]);
  assert.notEqual(await revisionOf(mock), before, 'the rollback changed the Deployment');
  const types = audit.events.map((event) => event.type);
  assert.equal(types.filter((type) => type === 'run-finished').length, 1, 'the parked attempt did not finish the run');
  assert.ok(types.includes('run-resumed'));
  // The resumed attempt goes on from the parked step: no step is repeated.
  assert.ok(resumed.steps > stored.step);
  assert.equal(new Set(resumed.toolCalls.map((call) => `${call.step} ${call.id}`)).size, resumed.toolCalls.length);
});

for (const decision of ['rejected', 'expired'] as const) {
  test(`resumed with the action ${decision}, nothing is written and the model is told`, async (t) => {
    const { mock, audit, base, parked } = await startRun(t);
    const before = await revisionOf(mock);
    const resumed = await runAgent({ ...base, resume: { checkpoint: parseCheckpoint(serializeCheckpoint(parked.checkpoint!)), actions: decide(parked, decision) } });
    assert.equal(resumed.status, 'completed', resumed.reason);
    assert.deepEqual(resumed.actions.map((action) => action.status), [decision]);
    assert.equal(await revisionOf(mock), before);
    const result = audit.events.find((event) => event.type === 'tool-result' && event.payload.tool === 'rollout_undo');
    assert.match(String(result?.payload.content), decision === 'rejected' ? /was rejected by alice/ : /expired without a decision/);
  });
}

test('an approval is checked again at resume: a policy that no longer allows ACT there wins, and nothing runs', async (t) => {
  const { mock, base, parked } = await startRun(t);
  const before = await revisionOf(mock);
  const resumed = await runAgent({ ...base, policy: { actNamespaces: [] }, resume: { checkpoint: parked.checkpoint!, actions: decide(parked, 'approved') } });
  assert.equal(resumed.status, 'completed', resumed.reason);
  assert.equal(resumed.actions[0]?.status, 'failed');
  assert.match(String(resumed.actions[0]?.result), /not executed: the gate would now propose it/);
  assert.equal(await revisionOf(mock), before);
});

test('a stored checkpoint that is not what the loop wrote is refused with what is wrong', () => {
  assert.throws(() => parseCheckpoint('{'), /not JSON/);
  assert.throws(() => parseCheckpoint(JSON.stringify({ version: 2 })), /invalid: version/);
});
