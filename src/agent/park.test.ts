/**
 * Parking and resuming a run, with the real offline engine reading the real mock cluster:
 * a held rollback is put to a person only with the diagnosis, so the run parks once it is
 * diagnosed, with a checkpoint that goes through JSON (as the store keeps it); the run
 * resumed from it with a decision ends as an uninterrupted run would, with the write run
 * only when approved and the summary saying what became of it.
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
const LIMITS = {
  maxSteps: 12,
  tokenBudget: 400_000,
  timeoutMs: 60_000,
  approvalTtlMs: 60_000,
  toolOutputBytes: 16_384,
};

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
  return outcome.actions.map((action) =>
    action.status === 'awaiting_approval'
      ? { ...action, status, decidedBy: 'alice', decidedAt: new Date().toISOString() }
      : action,
  );
}

async function revisionOf(mock: Awaited<ReturnType<typeof startMockCluster>>): Promise<string | undefined> {
  const response = await fetch(`${mock.url}/apis/apps/v1/namespaces/staging/deployments/checkout-api`);
  const deployment = (await response.json()) as { metadata?: { annotations?: Record<string, string> } };
  return deployment.metadata?.annotations?.['deployment.kubernetes.io/revision'];
}

test('without a broker a held rollback parks the run once it is diagnosed: the diagnosis, the reason and the diff to decide on, nothing written', async (t) => {
  const { mock, parked, audit } = await startRun(t);
  assert.equal(parked.status, 'parked');
  assert.ok(parked.checkpoint);
  assert.equal(parked.diagnosis?.category, 'bad-credentials');
  assert.match(
    parked.diagnosis?.summary ?? '',
    /Awaiting a person's approval: rolling back Deployment staging\/checkout-api to revision 3/,
  );
  assert.doesNotMatch(parked.diagnosis?.summary ?? '', /Proposed remediation/);
  assert.deepEqual(
    parked.actions.map((action) => [action.tool, action.status]),
    [['rollout_undo', 'awaiting_approval']],
  );
  const [action] = parked.actions;
  assert.ok(action?.expiresAt);
  assert.match(action?.reason ?? '', /roll back to revision 3/);
  assert.ok(
    action?.diff?.some((line) =>
      /env DB_PASSWORD: secretKeyRef checkout-db\/password-old → secretKeyRef checkout-db\/password$/.test(line),
    ),
    JSON.stringify(action?.diff),
  );
  assert.deepEqual(parked.checkpoint.turn.heldActionIds, [action?.id]);
  assert.deepEqual(
    parked.checkpoint.diagnosed?.held.map((held) => held.actionId),
    [action?.id],
  );
  // Asked for only after the diagnosis was submitted, and audited with what the person reads.
  const types = audit.events.map((event) => event.type);
  const submitted = audit.events.findLastIndex((event) => event.type === 'model-response');
  assert.ok(types.indexOf('approval-requested') > submitted, types.join(' '));
  assert.deepEqual(audit.events.find((event) => event.type === 'approval-requested')?.payload.diff, action?.diff);
  assert.ok(
    !types.includes('tool-result') ||
      !audit.events.some((event) => event.type === 'tool-result' && event.payload.tool === 'rollout_undo'),
    'the held call has no result until it is decided',
  );
  const before = await revisionOf(mock);
  assert.equal(before, '4', 'the dry run persisted nothing');
});

test('resumed from its stored checkpoint with an approval, the rollback runs and the run completes with its diagnosis', async (t) => {
  const { mock, audit, base, parked } = await startRun(t);
  const before = await revisionOf(mock);
  const stored = parseCheckpoint(serializeCheckpoint(parked.checkpoint!));
  const resumed = await runAgent({ ...base, resume: { checkpoint: stored, actions: decide(parked, 'approved') } });
  assert.equal(resumed.status, 'completed', resumed.reason);
  assert.equal(resumed.diagnosis?.category, 'bad-credentials');
  assert.deepEqual(resumed.diagnosis?.culprit, { kind: 'Deployment', namespace: 'staging', name: 'checkout-api' });
  assert.deepEqual(
    resumed.actions.map((action) => [action.tool, action.status]),
    [['rollout_undo', 'executed']],
  );
  assert.match(
    resumed.diagnosis?.summary ?? '',
    /Rolled back Deployment staging\/checkout-api to revision 3 \(approved by alice\)\.$/,
  );
  assert.notEqual(await revisionOf(mock), before, 'the rollback changed the Deployment');
  const types = audit.events.map((event) => event.type);
  // The loop writes no end: the run's owner does (runs/lifecycle.ts); neither attempt ended the run here.
  assert.equal(types.filter((type) => type === 'run-finished').length, 0, 'the loop wrote no end of the run');
  assert.ok(types.includes('run-resumed'));
  // The diagnosis was in when the run parked: the resumed attempt asks the model nothing more.
  assert.equal(resumed.steps, stored.step);
  assert.equal(types.filter((type) => type === 'model-request').length, stored.step);
  assert.equal(new Set(resumed.toolCalls.map((call) => `${call.step} ${call.id}`)).size, resumed.toolCalls.length);
});

for (const decision of ['rejected', 'expired'] as const) {
  test(`resumed with the action ${decision}, nothing is written and the summary says so`, async (t) => {
    const { mock, audit, base, parked } = await startRun(t);
    const before = await revisionOf(mock);
    const resumed = await runAgent({
      ...base,
      resume: {
        checkpoint: parseCheckpoint(serializeCheckpoint(parked.checkpoint!)),
        actions: decide(parked, decision),
      },
    });
    assert.equal(resumed.status, 'completed', resumed.reason);
    assert.deepEqual(
      resumed.actions.map((action) => action.status),
      [decision],
    );
    assert.match(
      resumed.diagnosis?.summary ?? '',
      decision === 'rejected'
        ? /Not done: rolling back Deployment staging\/checkout-api to its previous revision was rejected by alice\./
        : /Not done: .* expired without a decision/,
    );
    assert.equal(await revisionOf(mock), before);
    const result = audit.events.find((event) => event.type === 'tool-result' && event.payload.tool === 'rollout_undo');
    assert.match(
      String(result?.payload.content),
      decision === 'rejected' ? /was rejected by alice/ : /expired without a decision/,
    );
  });
}

test('an approval is checked again at resume: a policy that no longer allows ACT there wins, and nothing runs', async (t) => {
  const { mock, base, parked } = await startRun(t);
  const before = await revisionOf(mock);
  const resumed = await runAgent({
    ...base,
    policy: { actNamespaces: [] },
    resume: { checkpoint: parked.checkpoint!, actions: decide(parked, 'approved') },
  });
  assert.equal(resumed.status, 'completed', resumed.reason);
  assert.equal(resumed.actions[0]?.status, 'failed');
  assert.match(String(resumed.actions[0]?.result), /not executed: the gate would now propose it/);
  assert.equal(await revisionOf(mock), before);
});

test('a stored checkpoint that is not what the loop wrote is refused with what is wrong', () => {
  assert.throws(() => parseCheckpoint('{'), /not JSON/);
  assert.throws(() => parseCheckpoint(JSON.stringify({ version: 2 })), /invalid: version/);
});
