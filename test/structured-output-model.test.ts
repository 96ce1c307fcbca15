import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createOpenAiModel, type OpenAiModelOptions } from '../src/agent/models/openai-model.ts';
import { JSON_REMINDER, NOT_A_STEP, parseStep } from '../src/agent/models/structured-output-model.ts';
import { startScriptedServer, type FakeChatCompletions } from './helpers/fake-chat-completions.ts';
import { runAgentWith } from './helpers/model-run.ts';
import { demoDiagnosis } from './helpers/fake-tools.ts';
import { pod } from './helpers/model-run.ts';

/** A family without tool calling (gemma) on the fake server, unless told otherwise. */
function modelOn(api: FakeChatCompletions, options: Partial<OpenAiModelOptions> = {}) {
  return createOpenAiModel({
    baseUrl: `${api.url}/v1`,
    model: 'gemma3:12b',
    maxRetries: 0,
    timeoutMs: 5000,
    ...options,
  });
}

const step = (value: unknown) => ({ content: JSON.stringify(value) });
const rollback = { name: 'rollout_undo', input: { namespace: 'staging', name: 'checkout-api' } };

test('a family without tools: no tools on the wire, a json_schema response format, and the tools with their schemas in the system prompt', async () => {
  const api = await startScriptedServer([step({ diagnosis: demoDiagnosis })]);
  const { outcome } = await runAgentWith(modelOn(api));
  assert.equal(outcome.status, 'completed');
  const body = api.requests[0]!.body;
  assert.equal(body.tools, undefined);
  assert.equal(body.tool_choice, undefined);
  assert.equal(body.response_format?.type, 'json_schema');
  const schema = body.response_format?.json_schema?.schema as {
    properties: { calls: { items: { properties: { name: { enum: string[] } } } } };
  };
  assert.deepEqual(schema.properties.calls.items.properties.name.enum, [
    'describe_pod',
    'get_pod_logs',
    'rollout_undo',
    'delete_pod',
  ]);
  const system = String(body.messages[0]!.content);
  assert.match(system, /- describe_pod: describe_pod \(test double\)\n {2}input \(JSON schema\): \{"type":"object"/);
  assert.match(system, /\{"diagnosis": \{\.\.\.\}\}, where the diagnosis follows this JSON schema: \{/);
  assert.match(String(body.messages[1]!.content), /Alert firing: KubePodCrashLooping/);
});

test('a JSON step with a read and a write goes through the gate: the read runs, the write is only proposed; a JSON diagnosis ends the run', async () => {
  const api = await startScriptedServer([
    step({
      reason: 'Revision 4 broke the password; rolling back is the remedy.',
      calls: [{ name: 'describe_pod', input: pod }, rollback],
    }),
    step({ diagnosis: demoDiagnosis }),
  ]);
  const { outcome, recording } = await runAgentWith(modelOn(api));
  assert.equal(outcome.status, 'completed');
  assert.equal(outcome.diagnosis?.category, 'bad-credentials');
  assert.deepEqual(recording.executed, [`describe_pod ${pod.namespace}/${pod.name}`], 'the write never ran');
  assert.deepEqual(
    outcome.actions.map((action) => [action.tool, action.status, action.reason]),
    [
      [
        'rollout_undo',
        'proposed',
        'write call not executed: this run is at OBSERVE. It is recorded as a proposed action for a person to review.',
      ],
    ],
  );
  const messages = api.requests[1]!.body.messages;
  assert.deepEqual(
    messages.map((message) => message.role),
    ['system', 'user', 'assistant', 'user'],
    'roles alternate, as Gemma requires',
  );
  assert.deepEqual(JSON.parse(String(messages[2]!.content)), {
    reason: 'Revision 4 broke the password; rolling back is the remedy.',
    calls: [{ name: 'describe_pod', input: pod }, rollback],
  });
  assert.match(
    String(messages[3]!.content),
    /Result of describe_pod \(call call_\w+\):\npod checkout-api-7d9f8c6b5-x2k4q: CrashLoopBackOff/,
  );
  assert.match(
    String(messages[3]!.content),
    /Result of rollout_undo \(call call_\w+\):\nwrite call not executed: this run is at OBSERVE/,
  );
});

test('JSON in a code fence, after a <think> block, without a response format, is read', async () => {
  const answer = `<think>The {logs} say the password fails.</think>\nHere is my step:\n\`\`\`json\n${JSON.stringify({ diagnosis: demoDiagnosis }, null, 2)}\n\`\`\``;
  const api = await startScriptedServer([{ content: answer }]);
  const { outcome } = await runAgentWith(modelOn(api, { model: 'deepseek-r1:8b' }));
  assert.equal(outcome.status, 'completed');
  assert.equal(
    api.requests[0]!.body.response_format,
    undefined,
    'deepseek-r1 takes no response format: the prompt asks',
  );
});

test('garbage gives a turn without calls, and the next request tells the model to answer in JSON', async () => {
  const api = await startScriptedServer([
    { content: 'The pod looks unhappy, I would check the logs.' },
    step({ diagnosis: demoDiagnosis }),
  ]);
  const { outcome, audit } = await runAgentWith(modelOn(api));
  assert.equal(outcome.status, 'completed');
  const response = audit.events.find((event) => event.type === 'model-response');
  assert.deepEqual(response?.payload.toolCalls, []);
  assert.ok(String(response?.payload.text).startsWith(NOT_A_STEP), 'the turn says its answer was not a JSON step');
  const messages = api.requests[1]!.body.messages;
  assert.equal(
    messages.at(-2)!.content,
    'The pod looks unhappy, I would check the logs.',
    'the model sees what it wrote',
  );
  assert.ok(String(messages.at(-1)!.content).endsWith(JSON_REMINDER), 'and is told to answer with one JSON object');
  assert.equal(api.requests.length, 2);
});

test('the last step asks for the diagnosis only: the schema requires it and the prompt says so', async () => {
  const api = await startScriptedServer([step({ diagnosis: demoDiagnosis })]);
  const { outcome } = await runAgentWith(modelOn(api), { maxSteps: 1 });
  assert.equal(outcome.status, 'completed');
  const body = api.requests[0]!.body;
  assert.deepEqual(body.response_format?.json_schema?.schema.required, ['diagnosis']);
  assert.match(String(body.messages.at(-1)!.content), /You must finish now/);
});

test('a family with JSON mode only gets response_format json_object', async () => {
  const api = await startScriptedServer([step({ diagnosis: demoDiagnosis })]);
  const { outcome } = await runAgentWith(
    modelOn(api, { model: 'my-local-model', capabilities: { toolCalling: false, responseFormat: 'json_object' } }),
  );
  assert.equal(outcome.status, 'completed');
  assert.deepEqual(api.requests[0]!.body.response_format, { type: 'json_object' });
});

test('an invalid call in a JSON step is refused by the tool validation in words the model reads', async () => {
  const api = await startScriptedServer([
    step({ calls: [{ name: 'describe_pod', input: { pod: 'x' } }] }),
    step({ diagnosis: demoDiagnosis }),
  ]);
  const { outcome, recording } = await runAgentWith(modelOn(api));
  assert.equal(outcome.status, 'completed');
  assert.deepEqual(recording.executed, []);
  assert.match(
    String(api.requests[1]!.body.messages.at(-1)!.content),
    /Result of describe_pod \(call call_\w+\) failed: ERROR \(invalid-input\)\nInvalid arguments for describe_pod/,
  );
});

test('reading a step: the first JSON object with calls or a diagnosis; prose around it is ignored', () => {
  assert.deepEqual(
    parseStep(
      'Sure! {"calls": [{"name": "describe_pod", "arguments": {"namespace": "a", "name": "b"}}]} Done.',
    )?.calls.map(({ name, input }) => ({ name, input })),
    [{ name: 'describe_pod', input: { namespace: 'a', name: 'b' } }],
  );
  assert.equal(
    parseStep('{"note": "no step here"} {"diagnosis": {"category": "no-issue"}}')?.calls[0]?.name,
    'submit_diagnosis',
  );
  assert.equal(
    parseStep('{"calls": [ {"name": "describe_pod", "input": {"namespace": "a"'),
    undefined,
    'a cut answer is no step',
  );
  assert.equal(parseStep('no JSON at all'), undefined);
});
