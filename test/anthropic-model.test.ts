import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ScriptedAnswer } from './helpers/fake-messages-api.ts';
import { demoDiagnosis } from './helpers/fake-tools.ts';
import { pod, runClaude } from './helpers/model-run.ts';

/** A run through the real SDK against the fake Messages API, letting the SDK retry twice unless told otherwise. */
function runWithScript(script: ScriptedAnswer[], options: { maxSteps?: number; maxRetries?: number } = {}) {
  return runClaude(script, { ...options, maxRetries: options.maxRetries ?? 2 });
}

test('a tool round trip with parallel calls: results go back tagged with their tool_use_id', async () => {
  const { api, outcome, recording } = await runWithScript([
    {
      content: [
        { type: 'text', text: 'Looking at the pod and its logs.' },
        { type: 'tool_use', id: 'toolu_01', name: 'describe_pod', input: pod },
        { type: 'tool_use', id: 'toolu_02', name: 'get_pod_logs', input: pod },
      ],
    },
    { content: [{ type: 'tool_use', id: 'toolu_03', name: 'submit_diagnosis', input: demoDiagnosis }] },
  ]);
  assert.equal(outcome.status, 'completed');
  assert.equal(recording.executed.length, 2);
  const second = api.requests[1]!.body;
  const lastMessage = second.messages.at(-1)!;
  assert.equal(lastMessage.role, 'user');
  const blocks = lastMessage.content as { type: string; tool_use_id: string; content: string }[];
  assert.deepEqual(
    blocks.map((block) => [block.type, block.tool_use_id]),
    [
      ['tool_result', 'toolu_01'],
      ['tool_result', 'toolu_02'],
    ],
  );
  assert.match(blocks[1]!.content, /password authentication failed/);
  assert.equal(second.messages.at(-2)!.role, 'assistant');
});

test('the system prompt and the tools carry cache_control, and usage is recorded per call', async () => {
  const { api, outcome } = await runWithScript([
    {
      content: [{ type: 'tool_use', id: 'toolu_01', name: 'describe_pod', input: pod }],
      usage: { input_tokens: 1200, output_tokens: 40, cache_creation_input_tokens: 3000 },
    },
    {
      content: [{ type: 'tool_use', id: 'toolu_02', name: 'submit_diagnosis', input: demoDiagnosis }],
      usage: { input_tokens: 300, output_tokens: 90, cache_read_input_tokens: 3000 },
    },
  ]);
  const body = api.requests[0]!.body;
  assert.deepEqual((body.system as { cache_control?: unknown }[])[0]!.cache_control, { type: 'ephemeral' });
  assert.deepEqual(body.tools!.at(-1)!.cache_control, { type: 'ephemeral' });
  assert.ok(body.tools!.some((tool) => tool.name === 'submit_diagnosis'));
  assert.equal(body.model, 'claude-test');
  const headers = api.requests[0]!.headers;
  assert.ok(
    headers['x-api-key'] === 'sk-ant-test-key-not-real' || headers.authorization === 'Bearer sk-ant-test-key-not-real',
    'the API key is sent',
  );
  assert.deepEqual(outcome.usage, { input: 1500, output: 130, cacheRead: 3000, cacheWrite: 3000 });
});

test('429 and 529 answers are retried by the SDK, then the run succeeds', async () => {
  const { api, outcome } = await runWithScript([
    { status: 429, errorType: 'rate_limit_error', message: 'slow down' },
    { status: 529, errorType: 'overloaded_error', message: 'overloaded' },
    { content: [{ type: 'tool_use', id: 'toolu_01', name: 'submit_diagnosis', input: demoDiagnosis }] },
  ]);
  assert.equal(outcome.status, 'completed');
  assert.equal(api.requests.length, 3);
});

test('an API error that outlasts the retries fails the run with the reason', async () => {
  const { outcome } = await runWithScript(
    [
      { status: 529, errorType: 'overloaded_error', message: 'overloaded' },
      { status: 529, errorType: 'overloaded_error', message: 'overloaded' },
    ],
    { maxRetries: 1 },
  );
  assert.equal(outcome.status, 'failed');
  assert.match(outcome.reason ?? '', /model error: Anthropic API 529/);
});

test('malformed tool input gets an error result, and the model recovers', async () => {
  const { api, outcome, recording } = await runWithScript([
    {
      content: [
        { type: 'tool_use', id: 'toolu_01', name: 'describe_pod', input: { namespace: ['staging'], pod: 'x' } },
      ],
    },
    { content: [{ type: 'tool_use', id: 'toolu_02', name: 'submit_diagnosis', input: demoDiagnosis }] },
  ]);
  assert.equal(outcome.status, 'completed');
  assert.deepEqual(recording.executed, []);
  const result = (api.requests[1]!.body.messages.at(-1)!.content as { is_error?: boolean; content: string }[])[0]!;
  assert.equal(result.is_error, true);
  assert.match(result.content, /Invalid arguments for describe_pod/);
});

test('the step cap forces submit_diagnosis through tool_choice', async () => {
  const { api, outcome } = await runWithScript(
    [
      { content: [{ type: 'tool_use', id: 'toolu_01', name: 'describe_pod', input: pod }] },
      { content: [{ type: 'tool_use', id: 'toolu_02', name: 'submit_diagnosis', input: demoDiagnosis }] },
    ],
    { maxSteps: 2 },
  );
  assert.equal(outcome.status, 'completed');
  assert.deepEqual(api.requests[0]!.body.tool_choice, { type: 'auto' });
  assert.deepEqual(api.requests[1]!.body.tool_choice, { type: 'tool', name: 'submit_diagnosis' });
});

test('a model that never submits ends the run as failed with a reason', async () => {
  const { outcome } = await runWithScript(
    [
      { content: [{ type: 'text', text: 'I think it is fine.' }] },
      { content: [{ type: 'text', text: 'Really, it is fine.' }] },
    ],
    { maxSteps: 2 },
  );
  assert.equal(outcome.status, 'failed');
  assert.match(outcome.reason ?? '', /did not submit a diagnosis/);
});
