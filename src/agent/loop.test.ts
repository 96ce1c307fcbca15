import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createInMemoryApprovalBroker, type ApprovalBroker, type HeldAction } from '../gate/approvals.ts';
import type { LadderPolicy, Rung } from '../gate/rung.ts';
import { createToolRegistry } from '../tools/registry.ts';
import {
  createRecordingTools,
  createScriptedModel,
  demoDiagnosis,
  unusedCluster,
} from '../../test/helpers/fake-tools.ts';
import { runAgent } from './loop.ts';
import type { Model, ModelRequest, ModelTurn, TokenUsage, ToolCall } from './model.ts';
import { createMemoryRunAudit } from './run-audit.ts';
import {
  isLastStep,
  stepCapReached,
  tokenBudgetExceeded,
  tokenBudgetNearlyUsed,
  deadlinePassed,
  weighUsage,
} from './stop-conditions.ts';

const submit = (input: unknown = demoDiagnosis): ToolCall => ({ id: 'call-submit', name: 'submit_diagnosis', input });
const undo: ToolCall = { id: 'call-undo', name: 'rollout_undo', input: { namespace: 'staging', name: 'checkout-api' } };

function setup(options: {
  turns: (ToolCall[] | string)[];
  rung?: Rung;
  policy?: LadderPolicy;
  approvals?: ApprovalBroker;
  maxSteps?: number;
  tokenBudget?: number;
}) {
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
      limits: {
        maxSteps: options.maxSteps ?? 6,
        tokenBudget: options.tokenBudget ?? 100_000,
        timeoutMs: 10_000,
        approvalTtlMs: 10_000,
        toolOutputBytes: 8192,
      },
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
  assert.deepEqual(recording.executed.sort(), [
    'describe_pod staging/checkout-api-7d9f8c6b5-x2k4q',
    'get_pod_logs staging/checkout-api-7d9f8c6b5-x2k4q',
  ]);
  const results = model.requests[1]!.transcript.at(-1);
  assert.equal(results?.role, 'tool-results');
  assert.deepEqual(results?.role === 'tool-results' && results.results.map((entry) => entry.call.id), [
    'call-a',
    'call-b',
  ]);
});

test('records a write call at OBSERVE as a proposed action without running it', async () => {
  const { recording, run } = setup({ turns: [[undo], [submit()]] });
  const outcome = await run();
  assert.deepEqual(recording.executed, []);
  assert.deepEqual(
    outcome.diagnosis?.actions.map((action) => [action.tool, action.status]),
    [['rollout_undo', 'proposed']],
  );
  assert.deepEqual(outcome.diagnosis?.actions[0]?.args, { namespace: 'staging', name: 'checkout-api' });
  assert.equal(outcome.toolCalls[0]?.action, 'proposed', 'the trail says the write was only proposed');
});

test('holds a write call at ACT until approved, then runs it', async () => {
  const approvals = createInMemoryApprovalBroker({
    onHeld: (action) => setImmediate(() => approvals.decide(action.actionId, { decision: 'approved', by: 'alice' })),
  });
  const { recording, run } = setup({
    turns: [[undo], [submit()]],
    rung: 'ACT',
    policy: { actNamespaces: ['staging'] },
    approvals,
  });
  const outcome = await run();
  assert.deepEqual(recording.executed, ['rollout_undo staging/checkout-api']);
  assert.equal(outcome.diagnosis?.actions[0]?.status, 'executed');
  assert.equal(outcome.toolCalls[0]?.action, 'executed');
});

test('a rejected or expired held action never runs; its call is answered with why, and the summary says so', async () => {
  for (const decide of ['reject', 'expire'] as const) {
    const approvals = createInMemoryApprovalBroker({
      onHeld: (action) =>
        setImmediate(() =>
          decide === 'reject'
            ? approvals.decide(action.actionId, { decision: 'rejected', by: 'bob', reason: 'not during the sale' })
            : undefined,
        ),
    });
    const recording = createRecordingTools();
    const audit = createMemoryRunAudit();
    const outcome = await runAgent({
      runId: `run-${decide}`,
      trigger: { kind: 'incident', text: 'x' },
      rung: 'ACT',
      model: createScriptedModel([[undo], [submit()]]),
      registry: createToolRegistry(recording.tools),
      cluster: unusedCluster,
      policy: { actNamespaces: ['staging'] },
      approvals,
      audit,
      // An approval window of zero: the action expires as soon as it is put to a person.
      limits: {
        maxSteps: 4,
        tokenBudget: 100_000,
        timeoutMs: 10_000,
        approvalTtlMs: decide === 'expire' ? 0 : 10_000,
        toolOutputBytes: 8192,
      },
    });
    assert.equal(outcome.status, 'completed');
    assert.equal(outcome.diagnosis?.actions[0]?.status, decide === 'reject' ? 'rejected' : 'expired');
    assert.deepEqual(recording.executed, []);
    const result = audit.events.find((event) => event.type === 'tool-result' && event.payload.tool === 'rollout_undo');
    assert.match(String(result?.payload.content), /Not executed/);
    assert.match(
      outcome.diagnosis?.summary ?? '',
      decide === 'reject'
        ? /Not done: rolling back Deployment staging\/checkout-api .*was rejected by bob: not during the sale\.$/
        : /Not done: rolling back .* expired without a decision/,
    );
  }
});

test('forces submit_diagnosis on the last allowed step', async () => {
  const read: ToolCall = { id: 'call-read', name: 'describe_pod', input: { namespace: 'staging', name: 'p' } };
  const { model, run } = setup({
    turns: [[read], [{ ...read, id: 'call-2', input: { namespace: 'staging', name: 'q' } }], [submit()]],
    maxSteps: 3,
  });
  const outcome = await run();
  assert.equal(outcome.status, 'completed');
  assert.deepEqual(
    model.requests.map((request) => request.toolChoice),
    [{ type: 'auto' }, { type: 'auto' }, { type: 'tool', name: 'submit_diagnosis' }],
  );
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
  assert.deepEqual(
    contents.map((result) => (result.ok ? 'ok' : result.error)),
    ['unknown-tool', 'invalid-input'],
  );
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

test('the token budget stops a run whose first turn alone uses it up', async () => {
  const read = (id: string, name: string): ToolCall[] => [
    { id, name: 'describe_pod', input: { namespace: 'staging', name } },
  ];
  const { run } = setup({ turns: [read('c1', 'a'), read('c2', 'b'), read('c3', 'c')], tokenBudget: 100, maxSteps: 10 });
  const outcome = await run();
  assert.equal(outcome.status, 'failed');
  assert.match(outcome.reason ?? '', /token budget/);
});

test("every step is audited in order, ending with the diagnosis; the run's end is its owner's to write", async () => {
  const { audit, run } = setup({ turns: [[undo], [submit()]] });
  await run();
  const types = audit.events.map((event) => event.type);
  assert.deepEqual(types, [
    'model-request',
    'model-response',
    'tool-call',
    'gate-decision',
    'tool-result',
    'model-request',
    'model-response',
    'diagnosis',
  ]);
});

test('stop checks are small named functions', () => {
  const limits = { maxSteps: 3, tokenBudget: 1000, deadline: new Date(Date.now() + 60_000) };
  assert.equal(stepCapReached(3, limits), undefined);
  assert.match(stepCapReached(4, limits) ?? '', /step cap of 3/);
  assert.equal(isLastStep(3, limits), true);
  assert.match(
    tokenBudgetExceeded({ input: 900, output: 100, cacheRead: 0, cacheWrite: 0 }, limits) ?? '',
    /token budget/,
  );
  assert.match(deadlinePassed(new Date(Date.now() + 120_000), limits) ?? '', /deadline/);
});

/** Reads a new pod each turn (submitting when told to), every turn costing `usageOf(step)`. */
function createMeteredModel(usageOf: (step: number) => TokenUsage): Model & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    name: 'metered',
    requests,
    async createTurn(request): Promise<ModelTurn> {
      requests.push(request);
      const step = requests.length;
      const usage = usageOf(step);
      if (request.toolChoice.type === 'tool') return { text: '', calls: [submit()], stopReason: 'tool_use', usage };
      return {
        text: '',
        calls: [{ id: `call-${step}`, name: 'describe_pod', input: { namespace: 'staging', name: `pod-${step}` } }],
        stopReason: 'tool_use',
        usage,
      };
    },
  };
}

function runMetered(model: Model, limits: { maxSteps: number; tokenBudget: number }) {
  return runAgent({
    runId: 'run-metered',
    trigger: { kind: 'incident', text: 'checkout-api in staging keeps restarting' },
    rung: 'OBSERVE',
    model,
    registry: createToolRegistry(createRecordingTools().tools),
    cluster: unusedCluster,
    policy: { actNamespaces: [] },
    audit: createMemoryRunAudit(),
    limits: { ...limits, timeoutMs: 10_000, approvalTtlMs: 10_000, toolOutputBytes: 8192 },
  });
}

test('a run nearing its token budget is made to submit its diagnosis instead of stopping without one', async () => {
  // 8k tokens a turn against a budget of 72k: the budget ran out after step 9 of 12, with no diagnosis.
  const model = createMeteredModel(() => ({ input: 8000, output: 0, cacheRead: 0, cacheWrite: 0 }));
  const outcome = await runMetered(model, { maxSteps: 12, tokenBudget: 72_000 });
  assert.equal(outcome.status, 'completed');
  assert.equal(outcome.diagnosis?.category, 'bad-credentials');
  assert.equal(outcome.steps, 9);
  assert.deepEqual(
    model.requests.map((request) => request.toolChoice.type),
    [...Array<string>(8).fill('auto'), 'tool'],
  );
  assert.equal(weighUsage(outcome.usage), 72_000, 'the forced turn fits the budget');
});

test('cache reads weigh a tenth of an input token, so a cached transcript does not use the budget up', async () => {
  // Each turn reads the transcript so far from the cache and writes 8k new tokens to it.
  const model = createMeteredModel((step) => ({
    input: 2000,
    output: 300,
    cacheRead: 8000 * (step - 1),
    cacheWrite: 8000,
  }));
  const outcome = await runMetered(model, { maxSteps: 12, tokenBudget: 400_000 });
  assert.equal(outcome.status, 'completed');
  assert.equal(outcome.steps, 12, 'it investigated until the last step');
  const raw = outcome.usage.input + outcome.usage.output + outcome.usage.cacheRead + outcome.usage.cacheWrite;
  assert.ok(raw > 400_000, `counted at full weight, ${raw} tokens would have gone past the budget`);
  assert.equal(weighUsage(outcome.usage), 2000 * 12 + 300 * 12 * 5 + Math.ceil(8000 * 66 * 0.1) + 8000 * 12 * 1.25);
});

test('usage is weighed by price: cache writes 1.25× (5 minutes) or 2× (1 hour), cache reads 0.1×, output 5×', () => {
  assert.equal(weighUsage({ input: 1000, output: 0, cacheRead: 0, cacheWrite: 0 }), 1000);
  assert.equal(weighUsage({ input: 0, output: 1000, cacheRead: 0, cacheWrite: 0 }), 5000);
  assert.equal(weighUsage({ input: 0, output: 0, cacheRead: 1000, cacheWrite: 0 }), 100);
  assert.equal(weighUsage({ input: 0, output: 0, cacheRead: 0, cacheWrite: 1000 }), 1250);
  assert.equal(weighUsage({ input: 0, output: 0, cacheRead: 0, cacheWrite: 1000, cacheWrite1h: 1000 }), 2000);
  assert.equal(
    weighUsage({ input: 0, output: 0, cacheRead: 0, cacheWrite: 1000, cacheWrite1h: 400 }),
    600 * 1.25 + 400 * 2,
  );
});

test('the budget check estimates the next turn from the last one and its growth', () => {
  const limits = { maxSteps: 12, tokenBudget: 100_000, deadline: new Date(Date.now() + 60_000) };
  const turn = (input: number): TokenUsage => ({ input, output: 0, cacheRead: 0, cacheWrite: 0 });
  assert.equal(
    tokenBudgetNearlyUsed({ usage: turn(0), turns: [], limits }),
    undefined,
    'no turn yet, nothing to estimate from',
  );
  assert.equal(tokenBudgetNearlyUsed({ usage: turn(60_000), turns: [turn(30_000)], limits }), undefined);
  assert.match(
    tokenBudgetNearlyUsed({ usage: turn(70_000), turns: [turn(30_000)], limits }) ?? '',
    /nearly used \(70000 used; the next turn is estimated at 30000\)/,
  );
  // 20k then 30k: the next is estimated at 40k.
  assert.equal(tokenBudgetNearlyUsed({ usage: turn(50_000), turns: [turn(20_000), turn(30_000)], limits }), undefined);
  assert.match(
    tokenBudgetNearlyUsed({ usage: turn(60_000), turns: [turn(20_000), turn(30_000)], limits }) ?? '',
    /estimated at 40000/,
  );
});

test('at ACT a write called before the diagnosis is held, not run: the model goes on, and a person is asked only with the diagnosis, the reason and the diff', async () => {
  const asked: HeldAction[] = [];
  let modelTurnsWhenAsked = -1;
  const approvals = createInMemoryApprovalBroker({
    onHeld: (action) => {
      asked.push(action);
      modelTurnsWhenAsked = model.requests.length;
      setImmediate(() => approvals.decide(action.actionId, { decision: 'approved', by: 'alice' }));
    },
  });
  const recording = createRecordingTools();
  const audit = createMemoryRunAudit();
  const model = createScriptedModel([[undo], [submit()]]);
  const outcome = await runAgent({
    runId: 'run-held',
    trigger: { kind: 'incident', text: 'checkout-api in staging keeps restarting' },
    rung: 'ACT',
    model,
    registry: createToolRegistry(recording.tools),
    cluster: unusedCluster,
    policy: { actNamespaces: ['staging'] },
    approvals,
    audit,
    limits: { maxSteps: 6, tokenBudget: 100_000, timeoutMs: 10_000, approvalTtlMs: 10_000, toolOutputBytes: 8192 },
  });
  assert.equal(outcome.status, 'completed');

  // The model was told at once that its call is held for a person, with its diagnosis.
  const told = model.requests[1]!.transcript.at(-1);
  assert.match(
    told?.role === 'tool-results' ? told.results[0]!.result.content : '',
    /Held as action act-\w+: not run now\. Once you submit your diagnosis, it is put to a person together with the diagnosis/,
  );

  // The person was asked once, after the model's last turn, seeing what they decide on.
  assert.equal(asked.length, 1);
  assert.equal(modelTurnsWhenAsked, 2, 'asked only after the diagnosis was submitted');
  const [held] = asked;
  assert.equal(held?.diagnosis?.summary, demoDiagnosis.summary);
  assert.deepEqual(held?.diagnosis?.evidence, demoDiagnosis.evidence);
  assert.equal(held?.diagnosis?.culprit, 'Deployment/staging/checkout-api');
  assert.match(
    held?.reason ?? '',
    /^For the diagnosis \(bad-credentials, high confidence\): checkout-api crash-loops since revision 4/,
  );
  assert.deepEqual(held?.diff, [
    'rollout_undo staging/checkout-api: app: image shop/checkout:1.5.0 → shop/checkout:1.4.2',
  ]);

  // Approved, it ran, and the summary says what was done rather than what was proposed.
  assert.deepEqual(recording.executed, ['rollout_undo staging/checkout-api']);
  assert.equal(outcome.diagnosis?.actions[0]?.status, 'executed');
  assert.deepEqual(outcome.diagnosis?.actions[0]?.diff, held?.diff);
  assert.equal(
    outcome.diagnosis?.summary,
    `${demoDiagnosis.summary} Rolled back Deployment staging/checkout-api (approved by alice).`,
  );
  assert.equal(outcome.toolCalls[0]?.action, 'executed', 'the trail follows the action');

  // Every step audited, in order: the hold, the diagnosis turn, the request to a person, the decision, the result.
  const types = audit.events.map((event) => event.type);
  assert.deepEqual(types, [
    'model-request',
    'model-response',
    'tool-call',
    'gate-decision',
    'model-request',
    'model-response',
    'approval-requested',
    'approval',
    'tool-result',
    'diagnosis',
  ]);
  assert.match(String(audit.events[3]?.payload.told), /^Held as action/);
});

test('a held action whose dry run fails is not put to a person: it fails, and the summary says why', async () => {
  const recording = createRecordingTools();
  const undoTool = recording.tools.find((tool) => tool.name === 'rollout_undo');
  assert.ok(undoTool && undoTool.risk !== 'read');
  undoTool.dryRun = async () => ({
    ok: false,
    error: 'conflict',
    content: 'conflict: the Deployment changed meanwhile',
  });
  const approvals = createInMemoryApprovalBroker({
    onHeld: () => assert.fail('nobody is asked about an action whose dry run failed'),
  });
  const outcome = await runAgent({
    runId: 'run-dry-run-fails',
    trigger: { kind: 'incident', text: 'x' },
    rung: 'ACT',
    model: createScriptedModel([[undo], [submit()]]),
    registry: createToolRegistry(recording.tools),
    cluster: unusedCluster,
    policy: { actNamespaces: ['staging'] },
    approvals,
    audit: createMemoryRunAudit(),
    limits: { maxSteps: 6, tokenBudget: 100_000, timeoutMs: 10_000, approvalTtlMs: 10_000, toolOutputBytes: 8192 },
  });
  assert.equal(outcome.status, 'completed');
  assert.equal(outcome.actions[0]?.status, 'failed');
  assert.deepEqual(recording.executed, []);
  assert.match(
    outcome.diagnosis?.summary ?? '',
    /Not done: rolling back Deployment staging\/checkout-api .*failed: Not put to a person: the server-side dry run .* failed/,
  );
});

test('a held action of a run that ends without a diagnosis is never put to a person: it expires', async () => {
  const approvals = createInMemoryApprovalBroker({ onHeld: () => assert.fail('nobody is asked without a diagnosis') });
  const { recording, run } = setup({
    turns: [[undo], 'still thinking', 'still thinking'],
    rung: 'ACT',
    policy: { actNamespaces: ['staging'] },
    approvals,
    maxSteps: 3,
  });
  const outcome = await run();
  assert.equal(outcome.status, 'failed');
  assert.deepEqual(recording.executed, []);
  assert.equal(outcome.actions[0]?.status, 'expired');
  assert.match(outcome.actions[0]?.decisionReason ?? '', /never put to a person/);
});
