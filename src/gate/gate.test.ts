import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import type { Tool } from '../tools/tool.ts';
import { decideToolCall } from './gate.ts';
import { createInMemoryApprovalBroker } from './approvals.ts';
import { effectiveRung } from './rung.ts';

function fakeTool(name: string, risk: Tool['risk']): Tool {
  return {
    name,
    description: name,
    risk,
    input: z.object({ namespace: z.string().describe('namespace'), name: z.string().describe('name') }),
    run: async () => ({ ok: true, content: 'ran', truncated: false }),
  };
}

const rolloutUndo = fakeTool('rollout_undo', 'write');
const listPods = fakeTool('list_pods', 'read');
const args = { namespace: 'staging', name: 'checkout-api' };
const knownTools = ['list_pods', 'rollout_undo'];

test('read calls execute at every rung', () => {
  for (const runRung of ['OBSERVE', 'ACT'] as const) {
    const decision = decideToolCall({ tool: listPods, toolName: 'list_pods', rawInput: args, runRung, policy: { actNamespaces: [] }, knownTools });
    assert.equal(decision.decision, 'execute');
  }
});

test('a write call at OBSERVE becomes a proposal', () => {
  const decision = decideToolCall({ tool: rolloutUndo, toolName: 'rollout_undo', rawInput: args, runRung: 'OBSERVE', policy: { actNamespaces: ['staging'] }, knownTools });
  assert.equal(decision.decision, 'propose');
});

test('a write call at ACT is held only where policy allows ACT, and proposed elsewhere', () => {
  const policy = { actNamespaces: ['staging'] };
  assert.equal(decideToolCall({ tool: rolloutUndo, toolName: 'rollout_undo', rawInput: args, runRung: 'ACT', policy, knownTools }).decision, 'hold');
  const elsewhere = decideToolCall({ tool: rolloutUndo, toolName: 'rollout_undo', rawInput: { ...args, namespace: 'prod' }, runRung: 'ACT', policy, knownTools });
  assert.equal(elsewhere.decision, 'propose');
  assert.equal(elsewhere.rung, 'OBSERVE');
});

test('policy defaults to OBSERVE everywhere: ACT requested without an ACT namespace stays OBSERVE', () => {
  assert.equal(effectiveRung({ requested: 'ACT', policy: { actNamespaces: [] }, namespace: 'staging' }), 'OBSERVE');
  assert.equal(effectiveRung({ requested: 'OBSERVE', policy: { actNamespaces: ['*'] }, namespace: 'staging' }), 'OBSERVE');
});

test('a namespace outside the allowlist is refused before anything runs', () => {
  const decision = decideToolCall({ tool: listPods, toolName: 'list_pods', rawInput: { namespace: 'kube-system', name: 'x' }, runRung: 'ACT', policy: { actNamespaces: ['*'], allowedNamespaces: ['staging'] }, knownTools });
  assert.equal(decision.decision, 'refuse');
  assert.equal(decision.decision === 'refuse' && decision.error, 'namespace-not-allowed');
});

test('invalid arguments and unknown tools are refused with a message the model can use', () => {
  const invalid = decideToolCall({ tool: rolloutUndo, toolName: 'rollout_undo', rawInput: { namespace: 7 }, runRung: 'ACT', policy: { actNamespaces: ['*'] }, knownTools });
  assert.equal(invalid.decision, 'refuse');
  assert.match(invalid.decision === 'refuse' ? invalid.reason : '', /namespace/);
  const unknown = decideToolCall({ tool: undefined, toolName: 'kubectl_exec', rawInput: {}, runRung: 'ACT', policy: { actNamespaces: ['*'] }, knownTools });
  assert.match(unknown.decision === 'refuse' ? unknown.reason : '', /list_pods, rollout_undo/);
});

test('a held action resolves when a person decides, and expires at its deadline otherwise', async () => {
  const broker = createInMemoryApprovalBroker();
  const signal = new AbortController().signal;
  const waiting = broker.waitForDecision({ runId: 'r', actionId: 'a1', tool: 'rollout_undo', args, expiresAt: new Date(Date.now() + 60_000) }, signal);
  assert.deepEqual(broker.pending().map((action) => action.actionId), ['a1']);
  assert.equal(broker.decide('a1', { decision: 'approved', by: 'alice' }), true);
  assert.deepEqual(await waiting, { decision: 'approved', by: 'alice' });
  assert.equal(broker.decide('a1', { decision: 'rejected' }), false);
  const expired = await broker.waitForDecision({ runId: 'r', actionId: 'a2', tool: 'scale', args, expiresAt: new Date(Date.now() - 1) }, signal);
  assert.equal(expired.decision, 'expired');
});
