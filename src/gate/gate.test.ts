import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { defaultTools } from '../tools/registry.ts';
import type { ReadTool, WriteTool } from '../tools/tool.ts';
import { approve, decideToolCall, isApprovedAction, type GateDecision, type HoldDecision } from './gate.ts';
import { createInMemoryApprovalBroker } from './approvals.ts';
import { effectiveRung } from './rung.ts';

const targetInput = z.object({ namespace: z.string().describe('namespace'), name: z.string().describe('name') });
const ran = async () => ({ ok: true as const, content: 'ran', truncated: false });

const rolloutUndo: WriteTool<typeof targetInput> = {
  name: 'rollout_undo',
  description: 'rollout_undo',
  risk: 'write',
  input: targetInput,
  run: ran,
  dryRun: ran,
};
const listPods: ReadTool<typeof targetInput> = {
  name: 'list_pods',
  description: 'list_pods',
  risk: 'read',
  input: targetInput,
  run: ran,
};
const args = { namespace: 'staging', name: 'checkout-api' };
const knownTools = ['list_pods', 'rollout_undo'];

test('read calls execute at every rung', () => {
  for (const runRung of ['OBSERVE', 'ACT'] as const) {
    const decision = decideToolCall({
      tool: listPods,
      toolName: 'list_pods',
      rawInput: args,
      runRung,
      policy: { actNamespaces: [] },
      knownTools,
    });
    assert.equal(decision.decision, 'execute');
  }
});

test('a write call at OBSERVE becomes a proposal', () => {
  const decision = decideToolCall({
    tool: rolloutUndo,
    toolName: 'rollout_undo',
    rawInput: args,
    runRung: 'OBSERVE',
    policy: { actNamespaces: ['staging'] },
    knownTools,
  });
  assert.equal(decision.decision, 'propose');
});

test('a write call at ACT is held only where policy allows ACT, and proposed elsewhere', () => {
  const policy = { actNamespaces: ['staging'] };
  assert.equal(
    decideToolCall({ tool: rolloutUndo, toolName: 'rollout_undo', rawInput: args, runRung: 'ACT', policy, knownTools })
      .decision,
    'hold',
  );
  const elsewhere = decideToolCall({
    tool: rolloutUndo,
    toolName: 'rollout_undo',
    rawInput: { ...args, namespace: 'prod' },
    runRung: 'ACT',
    policy,
    knownTools,
  });
  assert.equal(elsewhere.decision, 'propose');
  assert.equal(elsewhere.rung, 'OBSERVE');
});

test('policy defaults to OBSERVE everywhere: ACT requested without an ACT namespace stays OBSERVE', () => {
  assert.equal(effectiveRung({ requested: 'ACT', policy: { actNamespaces: [] }, namespace: 'staging' }), 'OBSERVE');
  assert.equal(
    effectiveRung({ requested: 'OBSERVE', policy: { actNamespaces: ['*'] }, namespace: 'staging' }),
    'OBSERVE',
  );
});

test('a namespace outside the allowlist is refused before anything runs', () => {
  const decision = decideToolCall({
    tool: listPods,
    toolName: 'list_pods',
    rawInput: { namespace: 'kube-system', name: 'x' },
    runRung: 'ACT',
    policy: { actNamespaces: ['*'], allowedNamespaces: ['staging'] },
    knownTools,
  });
  assert.equal(decision.decision, 'refuse');
  assert.equal(decision.decision === 'refuse' && decision.error, 'namespace-not-allowed');
});

test('invalid arguments and unknown tools are refused with a message the model can use', () => {
  const invalid = decideToolCall({
    tool: rolloutUndo,
    toolName: 'rollout_undo',
    rawInput: { namespace: 7 },
    runRung: 'ACT',
    policy: { actNamespaces: ['*'] },
    knownTools,
  });
  assert.equal(invalid.decision, 'refuse');
  assert.match(invalid.decision === 'refuse' ? invalid.reason : '', /namespace/);
  const unknown = decideToolCall({
    tool: undefined,
    toolName: 'kubectl_exec',
    rawInput: {},
    runRung: 'ACT',
    policy: { actNamespaces: ['*'] },
    knownTools,
  });
  assert.match(unknown.decision === 'refuse' ? unknown.reason : '', /list_pods, rollout_undo/);
});

test('a held action resolves when a person decides, and expires at its deadline otherwise', async () => {
  const broker = createInMemoryApprovalBroker();
  const signal = new AbortController().signal;
  const waiting = broker.waitForDecision(
    { runId: 'r', actionId: 'a1', tool: 'rollout_undo', args, expiresAt: new Date(Date.now() + 60_000) },
    signal,
  );
  assert.deepEqual(
    broker.pending().map((action) => action.actionId),
    ['a1'],
  );
  assert.equal(broker.decide('a1', { decision: 'approved', by: 'alice' }), true);
  assert.deepEqual(await waiting, { decision: 'approved', by: 'alice' });
  assert.equal(broker.decide('a1', { decision: 'rejected' }), false);
  const expired = await broker.waitForDecision(
    { runId: 'r', actionId: 'a2', tool: 'scale', args, expiresAt: new Date(Date.now() - 1) },
    signal,
  );
  assert.equal(expired.decision, 'expired');
});

function holdOf(decision: GateDecision): HoldDecision {
  assert.equal(decision.decision, 'hold', `expected a hold, got ${JSON.stringify(decision)}`);
  return decision as HoldDecision;
}

const actEverywhere = { actNamespaces: ['*'] };
const approval = { by: 'alice', at: new Date('2026-01-02T03:04:05Z'), runId: 'run-1', actionId: 'act-1' };

test('an approved hold carries the tool, the validated input, the run, the action and who approved when', () => {
  const hold = holdOf(
    decideToolCall({
      tool: rolloutUndo,
      toolName: 'rollout_undo',
      rawInput: args,
      runRung: 'ACT',
      policy: actEverywhere,
      knownTools,
    }),
  );
  const approved = approve(hold, approval);
  assert.equal(approved.toolName, 'rollout_undo');
  assert.deepEqual(approved.input, args);
  assert.equal(approved.runId, 'run-1');
  assert.equal(approved.actionId, 'act-1');
  assert.equal(approved.approval.by, 'alice');
  assert.equal(approved.approval.at.toISOString(), '2026-01-02T03:04:05.000Z');
  assert.ok(isApprovedAction(approved));
  // The approval is a snapshot: what happens to the hold afterwards changes nothing.
  hold.input.name = 'something-else';
  assert.equal(approved.input.name, 'checkout-api');
  assert.throws(() => Object.assign(approved.input, { name: 'other' }), TypeError);
});

test('a held action parked and resumed is decided again from its stored arguments, then approved', () => {
  const stored = JSON.parse(
    JSON.stringify({
      tool: 'rollout_undo',
      args: holdOf(
        decideToolCall({
          tool: rolloutUndo,
          toolName: 'rollout_undo',
          rawInput: args,
          runRung: 'ACT',
          policy: actEverywhere,
          knownTools,
        }),
      ).input,
    }),
  );
  const resumed = decideToolCall({
    tool: rolloutUndo,
    toolName: stored.tool,
    rawInput: stored.args,
    runRung: 'ACT',
    policy: actEverywhere,
    knownTools,
  });
  assert.equal(approve(holdOf(resumed), approval).toolName, 'rollout_undo');
  // Policy narrowed meanwhile: the same stored call is only proposed now, and a proposal cannot be approved.
  const narrowed = decideToolCall({
    tool: rolloutUndo,
    toolName: stored.tool,
    rawInput: stored.args,
    runRung: 'ACT',
    policy: { actNamespaces: ['prod'] },
    knownTools,
  });
  assert.equal(narrowed.decision, 'propose');
  assert.throws(
    () => approve(narrowed as unknown as HoldDecision, approval),
    /only a hold decision made by decideToolCall/,
  );
});

test('a hold the gate did not make, or an approval without a person, cannot be approved', () => {
  const forged = {
    decision: 'hold',
    rung: 'ACT',
    toolName: 'delete_pod',
    risk: 'destructive',
    input: args,
    reason: 'forged',
  } as unknown as HoldDecision;
  assert.throws(() => approve(forged, approval), /only a hold decision made by decideToolCall/);
  const hold = holdOf(
    decideToolCall({
      tool: rolloutUndo,
      toolName: 'rollout_undo',
      rawInput: args,
      runRung: 'ACT',
      policy: actEverywhere,
      knownTools,
    }),
  );
  assert.throws(() => approve(hold, { ...approval, by: ' ' }), /who approved/);
  assert.throws(() => approve(hold, { ...approval, at: new Date(Number.NaN) }), /time/);
});

test('a look-alike of an approved action is not one', () => {
  const approved = approve(
    holdOf(
      decideToolCall({
        tool: rolloutUndo,
        toolName: 'rollout_undo',
        rawInput: args,
        runRung: 'ACT',
        policy: actEverywhere,
        knownTools,
      }),
    ),
    approval,
  );
  assert.equal(isApprovedAction({ ...approved }), false);
  assert.equal(isApprovedAction(Object.create(Object.getPrototypeOf(approved))), false);
  assert.equal(isApprovedAction(undefined), false);
});

describe('names are checked as Kubernetes checks them', () => {
  const tools = new Map(defaultTools().map((tool) => [tool.name, tool]));
  const decide = (toolName: string, rawInput: Record<string, unknown>): GateDecision =>
    decideToolCall({
      tool: tools.get(toolName),
      toolName,
      rawInput,
      runRung: 'ACT',
      policy: actEverywhere,
      knownTools: [...tools.keys()],
    });

  for (const namespace of ['../kube-system', 'Kube-System', 'a/b', '', 'a'.repeat(64), '-shop', 'shop.', 'shop_1']) {
    test(`namespace ${JSON.stringify(namespace)} is refused as invalid input, saying what a valid name looks like`, () => {
      for (const [toolName, rawInput] of [
        ['scale', { namespace, name: 'web', replicas: 1 }],
        ['delete_pod', { namespace, name: 'web-0' }],
        ['list_pods', { namespace }],
        ['get_pod_logs', { namespace, name: 'web-0' }],
      ] as const) {
        const decision = decide(toolName, rawInput);
        assert.equal(decision.decision, 'refuse', `${toolName} ${JSON.stringify(rawInput)}`);
        assert.equal(decision.decision === 'refuse' && decision.error, 'invalid-input');
        assert.match(
          decision.decision === 'refuse' ? decision.reason : '',
          /namespace: .*(lowercase letters, digits and "-"|cannot be empty|at most 63 characters)/,
        );
      }
    });
  }

  test('object and container names are refused when no object could have them', () => {
    for (const rawInput of [
      { namespace: 'shop', name: '../etc' },
      { namespace: 'shop', name: 'Web' },
      { namespace: 'shop', name: 'a/b' },
      { namespace: 'shop', name: 'a'.repeat(254) },
      { namespace: 'shop', name: 'web-0', container: 'App' },
      { namespace: 'shop', name: 'web-0', container: 'a'.repeat(64) },
    ]) {
      const decision = decide('get_pod_logs', rawInput);
      assert.equal(decision.decision === 'refuse' && decision.error, 'invalid-input', JSON.stringify(rawInput));
      assert.match(
        decision.decision === 'refuse' ? decision.reason : '',
        /is not a valid (object|container) name|at most (253|63) characters/,
      );
    }
  });

  test('ordinary names pass: labels, dotted subdomains, names at their longest', () => {
    const longestLabel = 'a'.repeat(63);
    const longestSubdomain = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`;
    assert.equal(longestSubdomain.length, 253);
    assert.equal(decide('scale', { namespace: 'shop', name: 'checkout-api', replicas: 2 }).decision, 'hold');
    assert.equal(
      decide('get_pod_logs', { namespace: longestLabel, name: 'checkout-api-7d9f8c6b5-x2k4q', container: 'app' })
        .decision,
      'execute',
    );
    assert.equal(decide('list_nodes', { name: 'ip-10-0-1-23.eu-west-1.compute.internal' }).decision, 'execute');
    assert.equal(decide('describe_pod', { namespace: 'kube-system', name: longestSubdomain }).decision, 'execute');
  });
});
