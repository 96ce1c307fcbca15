import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TranscriptEntry } from '../src/agent/model.ts';
import { CONTEXT_FULL_NOTE, trimOldestToolResults } from '../src/agent/stop-reasons.ts';
import { demoDiagnosis } from './helpers/fake-tools.ts';
import { pod, runClaude } from './helpers/model-run.ts';

const submitCall = (id = 'toolu_submit') => ({
  type: 'tool_use' as const,
  id,
  name: 'submit_diagnosis',
  input: demoDiagnosis,
});

type Block = { type: string; id?: string; text?: string; tool_use_id?: string; content?: string };

test("a refusal fails the run with the model's explanation, never as a diagnosis", async () => {
  const { outcome, audit } = await runClaude([
    {
      content: [{ type: 'text', text: 'I cannot help with that.' }, submitCall()],
      stopReason: 'refusal',
      stopDetails: { type: 'refusal', category: 'cyber', explanation: 'The request could enable exploit development.' },
    },
  ]);
  assert.equal(outcome.status, 'failed');
  assert.equal(outcome.diagnosis, undefined);
  assert.match(
    outcome.reason ?? '',
    /^the model refused: The request could enable exploit development\. \(category cyber\)/,
  );
  assert.ok(!audit.events.some((event) => event.type === 'diagnosis'), 'no diagnosis is recorded');
  const response = audit.events.find((event) => event.type === 'model-response');
  assert.equal(response?.payload.stopReason, 'refusal');
});

test('a refusal without details quotes what the model said', async () => {
  const { outcome } = await runClaude([
    { content: [{ type: 'text', text: 'I will not run commands on this cluster.' }], stopReason: 'refusal' },
  ]);
  assert.equal(outcome.status, 'failed');
  assert.equal(outcome.reason, 'the model refused: I will not run commands on this cluster.');
});

test('max_tokens mid tool call: the unfinished call is dropped, the finished ones run, and the model is told to be shorter', async () => {
  const { api, outcome, recording } = await runClaude([
    {
      content: [
        { type: 'text', text: 'Checking the pod and its logs.' },
        { type: 'tool_use', id: 'toolu_01', name: 'describe_pod', input: pod },
        { type: 'tool_use', id: 'toolu_02', name: 'get_pod_logs', input: { namespace: 'stag' } },
      ],
      stopReason: 'max_tokens',
    },
    { content: [submitCall()] },
  ]);
  assert.equal(outcome.status, 'completed');
  assert.deepEqual(recording.executed, [`describe_pod ${pod.namespace}/${pod.name}`]);
  const messages = api.requests[1]!.body.messages;
  const assistant = messages.at(-2)!.content as Block[];
  assert.deepEqual(
    assistant.filter((block) => block.type === 'tool_use').map((block) => block.id),
    ['toolu_01'],
    'the cut call is not sent back',
  );
  const user = messages.at(-1)!.content as Block[];
  assert.deepEqual(
    user.map((block) => block.type),
    ['tool_result', 'text'],
  );
  assert.equal(user[0]!.tool_use_id, 'toolu_01');
  assert.match(user[1]!.text ?? '', /cut off at the output limit.*Answer shorter/);
});

test('max_tokens on the turn that must submit: asked once more with a longer answer allowed', async () => {
  const { api, outcome } = await runClaude(
    [
      {
        content: [{ type: 'tool_use', id: 'toolu_01', name: 'submit_diagnosis', input: { category: 'bad-cre' } }],
        stopReason: 'max_tokens',
      },
      { content: [submitCall()] },
    ],
    { maxSteps: 1 },
  );
  assert.equal(outcome.status, 'completed');
  assert.equal(api.requests.length, 2);
  assert.equal(api.requests[0]!.body.max_tokens, 4096);
  assert.equal(api.requests[1]!.body.max_tokens, 16_384);
  assert.deepEqual(api.requests[1]!.body.tool_choice, { type: 'tool', name: 'submit_diagnosis' });
  assert.deepEqual(api.requests[1]!.body.messages, api.requests[0]!.body.messages, 'the same turn is asked again');
});

test('max_tokens twice on the turn that must submit fails the run with that reason', async () => {
  const cut = {
    content: [{ type: 'tool_use' as const, id: 'toolu_01', name: 'submit_diagnosis', input: {} }],
    stopReason: 'max_tokens',
  };
  const { api, outcome } = await runClaude([cut, cut, { content: [submitCall()] }], { maxSteps: 1 });
  assert.equal(outcome.status, 'failed');
  assert.match(outcome.reason ?? '', /max_tokens/);
  assert.equal(api.requests.length, 2, 'retried once, not more');
});

test('pause_turn: the paused turn goes back as is, and the model continues it', async () => {
  const paused = [
    { type: 'text' as const, text: 'Searching the runbook.' },
    {
      type: 'server_tool_use' as const,
      id: 'srvtoolu_01',
      name: 'web_search',
      input: { query: 'CreateContainerConfigError' },
    },
  ];
  const { api, outcome } = await runClaude([
    { content: paused, stopReason: 'pause_turn' },
    { content: [submitCall()] },
  ]);
  assert.equal(outcome.status, 'completed');
  const last = api.requests[1]!.body.messages.at(-1)!;
  assert.equal(last.role, 'assistant');
  assert.deepEqual(last.content, paused);
});

test('model_context_window_exceeded: the model must submit now, without the calls it was writing', async () => {
  const { api, outcome, recording } = await runClaude([
    { content: [{ type: 'tool_use', id: 'toolu_01', name: 'describe_pod', input: pod }] },
    {
      content: [
        { type: 'text', text: 'Now the logs.' },
        { type: 'tool_use', id: 'toolu_02', name: 'get_pod_logs', input: { namespace: 'st' } },
      ],
      stopReason: 'model_context_window_exceeded',
    },
    { content: [submitCall()] },
  ]);
  assert.equal(outcome.status, 'completed');
  assert.deepEqual(recording.executed, [`describe_pod ${pod.namespace}/${pod.name}`]);
  const third = api.requests[2]!.body;
  assert.deepEqual(third.tool_choice, { type: 'tool', name: 'submit_diagnosis' });
  const sent = JSON.stringify(third.messages);
  assert.ok(!sent.includes('toolu_02'), 'the unfinished call is not sent back');
  const lastBlocks = third.messages.at(-1)!.content as Block[];
  assert.equal(lastBlocks.at(-1)!.text, CONTEXT_FULL_NOTE);
});

test('model_context_window_exceeded on the turn that must submit fails the run with that reason', async () => {
  const { outcome } = await runClaude(
    [
      { content: [{ type: 'tool_use', id: 'toolu_01', name: 'describe_pod', input: pod }] },
      { content: [{ type: 'text', text: 'The pod' }], stopReason: 'model_context_window_exceeded' },
    ],
    { maxSteps: 2 },
  );
  assert.equal(outcome.status, 'failed');
  assert.match(outcome.reason ?? '', /model_context_window_exceeded/);
});

test('an unknown stop reason is recorded and read as end_turn', async () => {
  const { api, outcome, audit } = await runClaude([
    { content: [{ type: 'text', text: 'Thinking about it.' }], stopReason: 'some_future_reason' },
    { content: [submitCall()] },
  ]);
  assert.equal(outcome.status, 'completed');
  const reasons = audit.events
    .filter((event) => event.type === 'model-response')
    .map((event) => event.payload.stopReason);
  assert.deepEqual(reasons, ['some_future_reason', 'tool_use']);
  const told = api.requests[1]!.body.messages.at(-1)!.content as Block[];
  assert.match(told.at(-1)!.text ?? '', /Continue the investigation/);
});

test('trimming for the context window cuts the oldest half of the tool results to a note and keeps their ids', () => {
  const long = 'x'.repeat(5000);
  const results = (id: string): TranscriptEntry => ({
    role: 'tool-results',
    results: [{ call: { id, name: 'get_pod_logs', input: {} }, result: { ok: true, truncated: false, content: long } }],
  });
  const transcript: TranscriptEntry[] = [
    { role: 'user', text: 'why?' },
    results('a'),
    results('b'),
    results('c'),
    results('d'),
  ];
  const trimmed = trimOldestToolResults(transcript);
  assert.equal(trimmed, 2);
  const contents = transcript.flatMap((entry) =>
    entry.role === 'tool-results'
      ? entry.results.map(({ call, result }) => [call.id, result.content.length < 300])
      : [],
  );
  assert.deepEqual(contents, [
    ['a', true],
    ['b', true],
    ['c', false],
    ['d', false],
  ]);
  const first = transcript[1];
  assert.match(
    first?.role === 'tool-results' ? first.results[0]!.result.content : '',
    /get_pod_logs returned 5000 characters here; cut to fit the context window/,
  );
});
