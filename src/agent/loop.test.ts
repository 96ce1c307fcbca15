import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createInMemoryApprovalBroker, type ApprovalBroker } from '../gate/approvals.ts';
import type { LadderPolicy, Rung } from '../gate/rung.ts';
import { createToolRegistry } from '../tools/registry.ts';
import { createRecordingTools, createScriptedModel, demoDiagnosis, unusedCluster } from '../../test/helpers/fake-tools.ts';
import { runAgent } from './loop.ts';
import type { ToolCall } from './model.ts';
import { createMemoryRunAudit } from './run-audit.ts';
import { isLastStep, stepCapReached, tokenBudgetExceeded, deadlinePassed } from './stop-conditions.ts';

const submit = (input: unknown = demoDiagnosis): ToolCall => ({ id: 'call-submit', name: 'submit_diagnosis', input });
const undo: ToolCall = { id: 'call-undo', name: 'rollout_undo', input: { namespace: 'staging', name: 'checkout-api' } };

function setup(options: { turns: (ToolCall[] | string)[]; rung?: Rung; policy?: LadderPolicy; approvals?: ApprovalBroker; maxSteps?: number; tokenBudget?: number }) {
  const recording = createRecordingTools();
  const model = createScriptedModel(options.turns);
  const audit = createMemoryRunAudit();
  const run = () =>
    runAgent({
      runId: 'run-1',
      trigger: { kind: 'incident', text: 'checkout-api in staging keeps restarting' },
      rung: options.rung ?? 'OBSERVE',
      model,
      registry: createToolRegistry(recording.tools),
      cluster: unusedCluster,
      policy: options.policy ?? { actNamespaces: [] },
      approvals: options.approvals ?? createInMemoryApprovalBroker(),
      audit,
      limits: { maxSteps: options.maxSteps ?? 6, tokenBudget: options.tokenBudget ?? 100_000, timeoutMs: 10_000, approvalTtlMs: 10_000, toolOutputBytes: 8192 },
    });
  return { recording, model, audit, run };
}

test('runs the tool calls of one turn and returns every result tagged with its call id', async () => {
  const { recording, model, run } = setup({
    turns: [
      [
        { id: 'call-a', name: 'describe_pod', input: { namespace: 'staging', name: 'checkout-api-7d9f8c6b5-x2k4q' } },
        { id: 'call-b', name: 'get_pod_logs', input: { namespace: 'staging', name: 'checkout-api-7d9f8c6b5-x2k4q' } },
      ],
      [submit()],
    ],
  });
  const outcome = await run();
  assert.equal(outcome.status, 'completed');
  assert.equal(outcome.diagnosis?.category, 'bad-credentials');
  assert.deepEqual(recording.executed.sort(), ['describe_pod staging/checkout-api-7d9f8c6b5-x2k4q', 'get_pod_logs staging/checkout-api-7d9f8c6b5-x2k4q']);
  const results = model.requests[1]!.transcript.at(-1);
  assert.equal(results?.role, 'tool-results');
  assert.deepEqual(results?.role === 'tool-results' && results.results.map((entry) => entry.call.id), ['call-a', 'call-b']);
});

test('records a write call at OBSERVE as a proposed action without running it', async () => {
  const { recording, run } = setup({ turns: [[undo], [submit()]] });
  const outcome = await run();
  assert.deepEqual(recording.executed, []);
  assert.deepEqual(outcome.diagnosis?.actions.map((action) => [action.tool, action.status]), [['rollout_undo', 'proposed']]);
  assert.deepEqual(outcome.diagnosis?.actions[0]?.args, { namespace: 'staging', name: 'checkout-api' });
  assert.equal(outcome.toolCalls[0]?.action, 'proposed', 'the trail says the write was only proposed');
});

test('holds a write call at ACT until approved, then runs it', async () => {
  const approvals = createInMemoryApprovalBroker({ onHeld: (action) => setImmediate(() => approvals.decide(action.actionId, { decision: 'approved', by: 'alice' })) });
  const { recording, run } = setup({ turns: [[undo], [submit()]], rung: 'ACT', policy: { actNamespaces: ['staging'] }, approvals });
  const outcome = await run();
  assert.deepEqual(recording.executed, ['rollout_undo staging/checkout-api']);
  assert.equal(outcome.diagnosis?.actions[0]?.status, 'executed');
  assert.equal(outcome.toolCalls[0]?.action, 'executed');
});

test('a rejected or expired held action never runs, and the model is told', async () => {
  for (const decide of ['reject', 'expire'] as const) {
    const approvals = createInMemoryApprovalBroker({
      onHeld: (action) => setImmediate(() => (decide === 'reject' ? approvals.decide(action.actionId, { decision: 'rejected', by: 'bob' }) : undefined)),
    });
    const { recording, model, run } = setup({ turns: [[undo], [submit()]], rung: 'ACT', policy: { actNamespaces: ['staging'] }, approvals });
    const limitsApprovalTtl = decide === 'expire';
    if (limitsApprovalTtl) {
      // An approval window of zero: the action expires as soon as it is held.
      const outcome = await runAgent({
        runId: 'run-expire',
        trigger: { kind: 'incident', text: 'x' },
        rung: 'ACT',
        model,
        registry: createToolRegistry(recording.tools),
        cluster: unusedCluster,
        policy: { actNamespaces: ['staging'] },
        approvals,
        audit: createMemoryRunAudit(),
        limits: { maxSteps: 4, tokenBudget: 100_000, timeoutMs: 10_000, approvalTtlMs: 0, toolOutputBytes: 8192 },
      });
      assert.equal(outcome.diagnosis?.actions[0]?.status, 'expired');
    } else {
      const outcome = await run();
      assert.equal(outcome.diagnosis?.actions[0]?.status, 'rejected');
    }
    assert.deepEqual(recording.executed, []);
    const told = model.requests[1]!.transcript.at(-1);
    assert.match(told?.role === 'tool-results' ? told.results[0]!.result.content : '', /Not executed/);
  }
});

test('forces submit_diagnosis on the last allowed step', async () => {
  const read: ToolCall = { id: 'call-read', name: 'describe_pod', input: { namespace: 'staging', name: 'p' } };
  const { model, run } = setup({ turns: [[read], [{ ...read, id: 'call-2', input: { namespace: 'staging', name: 'q' } }], [submit()]], maxSteps: 3 });
  const outcome = await run();
  assert.equal(outcome.status, 'completed');
  assert.deepEqual(model.requests.map((request) => request.toolChoice), [{ type: 'auto' }, { type: 'auto' }, { type: 'tool', name: 'submit_diagnosis' }]);
});

test('a model that never submits ends the run as failed with the reason', async () => {
  const { run } = setup({ turns: ['thinking...', 'still thinking', 'no idea'], maxSteps: 3 });
  const outcome = await run();
  assert.equal(outcome.status, 'failed');
  assert.match(outcome.reason ?? '', /did not submit a diagnosis/);
});

test('unknown tools, invalid arguments and an invalid diagnosis come back as errors the model reads', async () => {
  const { model, run } = setup({
    turns: [
      [
        { id: 'c1', name: 'kubectl_exec', input: { command: 'rm -rf /' } },
        { id: 'c2', name: 'describe_pod', input: { namespace: 42 } },
      ],
      [submit({ category: 'everything-is-broken' })],
      [submit()],
    ],
  });
  const outcome = await run();
  assert.equal(outcome.status, 'completed');
  const first = model.requests[1]!.transcript.at(-1);
  const contents = first?.role === 'tool-results' ? first.results.map((entry) => entry.result) : [];
  assert.deepEqual(contents.map((result) => (result.ok ? 'ok' : result.error)), ['unknown-tool', 'invalid-input']);
  assert.match(contents[0]!.content, /describe_pod/);
  const second = model.requests[2]!.transcript.at(-1);
  assert.match(second?.role === 'tool-results' ? second.results[0]!.result.content : '', /diagnosis is invalid/);
});

test('an identical call repeated in one run does not reach the tool twice', async () => {
  const read = (id: string): ToolCall => ({ id, name: 'describe_pod', input: { name: 'p', namespace: 'staging' } });
  const { recording, model, run } = setup({ turns: [[read('c1')], [read('c2')], [submit()]] });
  await run();
  assert.equal(recording.executed.length, 1);
  const repeat = model.requests[2]!.transcript.at(-1);
  assert.match(repeat?.role === 'tool-results' ? repeat.results[0]!.result.content : '', /already answered/);
});

test('the token budget stops a run that keeps asking', async () => {
  const read = (id: string, name: string): ToolCall[] => [{ id, name: 'describe_pod', input: { namespace: 'staging', name } }];
  const { run } = setup({ turns: [read('c1', 'a'), read('c2', 'b'), read('c3', 'c')], tokenBudget: 100, maxSteps: 10 });
  const outcome = await run();
  assert.equal(outcome.status, 'failed');
  assert.match(outcome.reason ?? '', /token budget/);
});

test('every step is audited in order, ending with run-finished', async () => {
  const { audit, run } = setup({ turns: [[undo], [submit()]] });
  await run();
  const types = audit.events.map((event) => event.type);
  assert.deepEqual(types, ['model-request', 'model-response', 'tool-call', 'gate-decision', 'tool-result', 'model-request', 'model-response', 'diagnosis', 'run-finished']);
});

test('stop checks are small named functions', () => {
  const limits = { maxSteps: 3, tokenBudget: 1000, deadline: new Date(Date.now() + 60_000) };
  assert.equal(stepCapReached(3, limits), undefined);
  assert.match(stepCapReached(4, limits) ?? '', /step cap of 3/);
  assert.equal(isLastStep(3, limits), true);
  assert.match(tokenBudgetExceeded({ input: 900, output: 100, cacheRead: 0, cacheWrite: 0 }, limits) ?? '', /token budget/);
  assert.match(deadlinePassed(new Date(Date.now() + 120_000), limits) ?? '', /deadline/);
});
