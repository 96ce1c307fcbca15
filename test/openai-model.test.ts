import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { submitDiagnosisSpec } from '../src/agent/loop.ts';
import { CAPABILITY_ROWS, capabilitiesOf, capabilityRowOf } from '../src/agent/models/model-capabilities.ts';
import { ModelError, type ModelRequest, type TranscriptEntry } from '../src/agent/model.ts';
import { createOpenAiModel, type OpenAiModelOptions } from '../src/agent/models/openai-model.ts';
import { describeTrigger, type Trigger } from '../src/agent/trigger.ts';
import { createToolRegistry } from '../src/tools/registry.ts';
import {
  startFakeChatCompletions,
  startScriptedServer,
  type FakeChatCompletions,
  type ScriptedCompletion,
} from './helpers/fake-chat-completions.ts';
import { runAgentWith } from './helpers/model-run.ts';
import { createRecordingTools, demoDiagnosis } from './helpers/fake-tools.ts';
import { pod } from './helpers/model-run.ts';

const trigger: Trigger = {
  kind: 'alert',
  alert: { labels: { alertname: 'KubePodCrashLooping', namespace: 'staging', pod: pod.name }, annotations: {} },
};

/** A model on the fake server; the SDK does not retry unless told. */
function modelOn(api: FakeChatCompletions, options: Partial<OpenAiModelOptions> = {}) {
  return createOpenAiModel({
    apiKey: 'sk-test-not-real',
    baseUrl: `${api.url}/v1`,
    model: 'gpt-4o',
    maxRetries: 0,
    timeoutMs: 5000,
    ...options,
  });
}

/** A request as the loop makes it on its first step (or forced, with `toolChoice`). */
function requestOf(
  options: { toolChoice?: ModelRequest['toolChoice']; transcript?: TranscriptEntry[] } = {},
): ModelRequest {
  return {
    system: 'You are kubewhy (test).',
    trigger,
    transcript: options.transcript ?? [{ role: 'user', text: describeTrigger(trigger) }],
    tools: [...createToolRegistry(createRecordingTools().tools).specs(), submitDiagnosisSpec],
    toolChoice: options.toolChoice ?? { type: 'auto' },
    signal: new AbortController().signal,
  };
}

async function turnFor(answer: ScriptedCompletion, options: Partial<OpenAiModelOptions> = {}) {
  const api = await startScriptedServer([answer]);
  const turn = await modelOn(api, options).createTurn(requestOf());
  return { turn, request: api.requests[0]! };
}

async function errorFor(script: ScriptedCompletion[], options: Partial<OpenAiModelOptions> = {}): Promise<ModelError> {
  const api = await startScriptedServer(script);
  const error = await modelOn(api, options)
    .createTurn(requestOf())
    .then(
      () => assert.fail('the turn should fail'),
      (failure: unknown) => failure,
    );
  assert.ok(error instanceof ModelError, `a ModelError, not ${String(error)}`);
  return error;
}

const readCall = (id: string, name = 'describe_pod') => ({ id, name, arguments: pod });
const submitCall = (id = 'call_submit') => ({ id, name: 'submit_diagnosis', arguments: { ...demoDiagnosis } });

describe('the wire: requests', () => {
  test('the request carries the system prompt, the trigger as the first user message, and every tool with its JSON schema', async () => {
    const { request } = await turnFor({ content: 'nothing yet' });
    const body = request.body;
    assert.equal(request.method, 'POST');
    assert.equal(request.path, '/v1/chat/completions');
    assert.equal(request.headers.authorization, 'Bearer sk-test-not-real');
    assert.equal(body.model, 'gpt-4o');
    assert.deepEqual(body.messages.slice(0, 2), [
      { role: 'system', content: 'You are kubewhy (test).' },
      { role: 'user', content: describeTrigger(trigger) },
    ]);
    const describePod = body.tools?.find((tool) => tool.function.name === 'describe_pod');
    assert.equal(describePod?.type, 'function');
    assert.equal(describePod?.function.parameters?.type, 'object');
    assert.deepEqual(Object.keys(describePod?.function.parameters?.properties as object), ['namespace', 'name']);
    const submit = body.tools?.find((tool) => tool.function.name === 'submit_diagnosis');
    assert.deepEqual(submit?.function.parameters, submitDiagnosisSpec.input_schema);
    assert.equal(body.tool_choice, 'auto');
    assert.equal(body.parallel_tool_calls, undefined, 'left to the server for a family with parallel calls');
    assert.equal(body.max_completion_tokens, 4096, "OpenAI's own models take max_completion_tokens");
    assert.equal(body.max_tokens, undefined);
  });

  test('a family without parallel calls gets parallel_tool_calls: false and max_tokens', async () => {
    const { request } = await turnFor(
      { content: 'ok' },
      { model: 'meta-llama/Llama-3.1-8B-Instruct', maxTokens: 1000 },
    );
    assert.equal(request.body.parallel_tool_calls, false);
    assert.equal(request.body.max_tokens, 1000);
    assert.equal(request.body.max_completion_tokens, undefined);
  });

  test("Azure: the deployment's path, the api-version and the api-key header", async () => {
    const api = await startScriptedServer([{ content: 'ok' }]);
    const model = createOpenAiModel({
      model: 'gpt-4o',
      apiKey: 'azure-key-not-real',
      azure: { endpoint: api.url, apiVersion: '2024-10-21', deployment: 'kubewhy-gpt4o' },
      maxRetries: 0,
    });
    const turn = await model.createTurn(requestOf());
    assert.equal(turn.text, 'ok');
    const request = api.requests[0]!;
    assert.equal(request.path, '/openai/deployments/kubewhy-gpt4o/chat/completions?api-version=2024-10-21');
    assert.equal(request.headers['api-key'], 'azure-key-not-real');
    assert.equal(request.headers.authorization, undefined);
  });
});

describe('the wire: answers', () => {
  test('parallel tool calls all become calls, with their ids and parsed arguments', async () => {
    const { turn } = await turnFor({
      content: 'Looking at the pod and its logs.',
      toolCalls: [readCall('call_1'), readCall('call_2', 'get_pod_logs')],
    });
    assert.equal(turn.stopReason, 'tool_use');
    assert.equal(turn.text, 'Looking at the pod and its logs.');
    assert.deepEqual(turn.calls, [
      { id: 'call_1', name: 'describe_pod', input: pod },
      { id: 'call_2', name: 'get_pod_logs', input: pod },
    ]);
  });

  const finishReasons: { finishReason: string; answer: ScriptedCompletion; stopReason: string }[] = [
    {
      finishReason: 'tool_calls',
      answer: { toolCalls: [readCall('call_1')], finishReason: 'tool_calls' },
      stopReason: 'tool_use',
    },
    {
      finishReason: 'stop without calls',
      answer: { content: 'All done.', finishReason: 'stop' },
      stopReason: 'end_turn',
    },
    {
      finishReason: 'stop with calls (Ollama)',
      answer: { toolCalls: [readCall('call_1')], finishReason: 'stop' },
      stopReason: 'tool_use',
    },
    { finishReason: 'length', answer: { content: 'I was saying', finishReason: 'length' }, stopReason: 'max_tokens' },
    { finishReason: 'content_filter', answer: { content: '', finishReason: 'content_filter' }, stopReason: 'refusal' },
  ];
  for (const { finishReason, answer, stopReason } of finishReasons) {
    test(`finish_reason ${finishReason} reads as ${stopReason}`, async () => {
      const { turn } = await turnFor(answer);
      assert.equal(turn.stopReason, stopReason);
    });
  }

  test('length: the last call, its arguments cut mid-way, is incomplete; the finished ones stay', async () => {
    const { turn } = await turnFor({
      toolCalls: [readCall('call_1'), { id: 'call_2', name: 'get_pod_logs', arguments: '{"namespace": "stag' }],
      finishReason: 'length',
    });
    assert.equal(turn.stopReason, 'max_tokens');
    assert.deepEqual(
      turn.calls.map((call) => call.id),
      ['call_1'],
    );
    assert.deepEqual(
      turn.incompleteCalls?.map((call) => call.id),
      ['call_2'],
    );
  });

  test("a refusal carries the API's refusal text, or says the content filter stopped it", async () => {
    const refused = await turnFor({ content: null, refusal: 'I cannot help with that request.' });
    assert.equal(refused.turn.stopReason, 'refusal');
    assert.equal(refused.turn.refusal, 'I cannot help with that request.');
    const filtered = await turnFor({ content: '', finishReason: 'content_filter' });
    assert.match(filtered.turn.refusal ?? '', /content filter/);
  });

  test('usage: prompt tokens less the cached ones are input, the cached ones cache reads, completion tokens output', async () => {
    const { turn } = await turnFor({
      content: 'ok',
      usage: { prompt_tokens: 1200, completion_tokens: 40, cached_tokens: 1000 },
    });
    assert.deepEqual(turn.usage, { input: 200, output: 40, cacheRead: 1000, cacheWrite: 0 });
  });

  test('arguments that are not a JSON object never throw: the call keeps them as text, which no schema accepts', async () => {
    const { turn } = await turnFor({
      toolCalls: [
        { id: 'call_1', name: 'describe_pod', arguments: '{namespace: staging' },
        { id: 'call_2', name: 'list_nodes', arguments: '[1, 2]' },
      ],
    });
    assert.deepEqual(turn.calls, [
      { id: 'call_1', name: 'describe_pod', input: '{namespace: staging' },
      { id: 'call_2', name: 'list_nodes', input: '[1, 2]' },
    ]);
  });
});

describe('errors', () => {
  test('429 with retry-after: a retryable ModelError that says how long to wait', async () => {
    const error = await errorFor([
      { status: 429, message: 'Rate limit reached', errorType: 'rate_limit_exceeded', headers: { 'retry-after': '7' } },
    ]);
    assert.equal(error.retryable, true);
    assert.equal(error.retryAfterMs, 7000);
    assert.match(error.message, /429/);
  });

  test('with retries allowed, the SDK retries 429 and 500 answers, then the turn succeeds', async () => {
    const api = await startScriptedServer([
      { status: 429, message: 'slow down' },
      { status: 500, message: 'boom' },
      { content: 'ok' },
    ]);
    const turn = await modelOn(api, { maxRetries: 2 }).createTurn(requestOf());
    assert.equal(turn.text, 'ok');
    assert.equal(api.requests.length, 3);
  });

  for (const status of [400, 401, 403, 404]) {
    test(`${status} is not retryable and quotes the API's message`, async () => {
      const error = await errorFor([{ status, message: `the server said ${status}`, headers: {} }], { maxRetries: 2 });
      assert.equal(error.retryable, false);
      assert.match(error.message, new RegExp(`${status}.*the server said ${status}`));
    });
  }

  test('a refused connection is retryable', async () => {
    const closed = await startFakeChatCompletions([]);
    await closed.close();
    const error = await modelOn(closed)
      .createTurn(requestOf())
      .catch((failure: unknown) => failure);
    assert.ok(error instanceof ModelError);
    assert.equal(error.retryable, true);
  });

  test('a body that is not JSON becomes a retryable ModelError that says so, not a crash', async () => {
    const error = await errorFor([{ malformedBody: '<html>bad gateway</html>' }]);
    assert.match(error.message, /answer is not JSON/);
    assert.equal(error.retryable, true);
  });

  test('an aborted request is a ModelError that is not retried', async () => {
    const api = await startScriptedServer([{ content: 'late' }]);
    const controller = new AbortController();
    controller.abort(new Error('run stopped'));
    const error = await modelOn(api)
      .createTurn({ ...requestOf(), signal: controller.signal })
      .catch((failure: unknown) => failure);
    assert.ok(error instanceof ModelError);
    assert.equal(error.retryable, false);
    assert.match(error.message, /aborted/);
  });
});

describe('the agent loop with Chat Completions', () => {
  test('a read, then a write the OBSERVE gate only proposes, then the diagnosis: the run completes and no write runs', async () => {
    const api = await startScriptedServer([
      { content: 'Looking at the pod.', toolCalls: [readCall('call_1')] },
      {
        content: 'Revision 4 broke the password; rolling back is the remedy.',
        toolCalls: [{ id: 'call_2', name: 'rollout_undo', arguments: { namespace: 'staging', name: 'checkout-api' } }],
      },
      { toolCalls: [submitCall()] },
    ]);
    const { outcome, recording } = await runAgentWith(modelOn(api));
    assert.equal(outcome.status, 'completed');
    assert.equal(outcome.diagnosis?.category, 'bad-credentials');
    assert.deepEqual(recording.executed, [`describe_pod ${pod.namespace}/${pod.name}`], 'the write never ran');
    assert.deepEqual(
      outcome.actions.map((action) => [action.tool, action.status]),
      [['rollout_undo', 'proposed']],
    );
    // Results go back as tool messages tagged with their call's id, after the assistant message that made the call.
    const third = api.requests[2]!.body.messages;
    const toolMessage = third.at(-1)!;
    assert.equal(toolMessage.role, 'tool');
    assert.equal(toolMessage.tool_call_id, 'call_2');
    assert.match(String(toolMessage.content), /not executed: this run is at OBSERVE/);
    assert.deepEqual(third.at(-2)!.tool_calls, [
      {
        id: 'call_2',
        type: 'function',
        function: { name: 'rollout_undo', arguments: '{"namespace":"staging","name":"checkout-api"}' },
      },
    ]);
    assert.match(String(third[3]!.content), /CrashLoopBackOff/, 'the read result reached the model');
  });

  test('malformed arguments reach the model as a readable tool error, and it recovers', async () => {
    const api = await startScriptedServer([
      { toolCalls: [{ id: 'call_1', name: 'describe_pod', arguments: '{"namespace": "staging", "name": ' }] },
      { toolCalls: [submitCall()] },
    ]);
    const { outcome, recording } = await runAgentWith(modelOn(api));
    assert.equal(outcome.status, 'completed');
    assert.deepEqual(recording.executed, []);
    const messages = api.requests[1]!.body.messages;
    const result = messages.at(-1)!;
    assert.equal(result.tool_call_id, 'call_1');
    assert.match(
      String(result.content),
      /^ERROR \(invalid-input\): Your arguments for this call were not a JSON object.*Invalid arguments for describe_pod/s,
    );
    const sentBack = JSON.parse(messages.at(-2)!.tool_calls![0]!.function.arguments) as Record<string, unknown>;
    assert.equal(
      sentBack.invalid_arguments,
      '{"namespace": "staging", "name": ',
      'what the model wrote goes back as a JSON object',
    );
  });

  test('the last step forces submit_diagnosis by name for a family that supports it', async () => {
    const api = await startScriptedServer([{ toolCalls: [readCall('call_1')] }, { toolCalls: [submitCall()] }]);
    const { outcome } = await runAgentWith(modelOn(api), { maxSteps: 2 });
    assert.equal(outcome.status, 'completed');
    assert.equal(api.requests[0]!.body.tool_choice, 'auto');
    assert.deepEqual(api.requests[1]!.body.tool_choice, { type: 'function', function: { name: 'submit_diagnosis' } });
  });

  test("the last step sends tool_choice 'required' for a family that only supports that", async () => {
    const api = await startScriptedServer([{ toolCalls: [readCall('call_1')] }, { toolCalls: [submitCall()] }]);
    const { outcome } = await runAgentWith(modelOn(api, { model: 'mistral-small-latest' }), { maxSteps: 2 });
    assert.equal(outcome.status, 'completed');
    assert.equal(api.requests[1]!.body.tool_choice, 'required');
  });

  test('a family whose server ignores tool_choice (Ollama) is asked for the diagnosis as JSON on the last step', async () => {
    const api = await startScriptedServer([
      { toolCalls: [readCall('call_1')], finishReason: 'stop' },
      { content: JSON.stringify({ diagnosis: demoDiagnosis }) },
    ]);
    const { outcome } = await runAgentWith(modelOn(api, { model: 'qwen3:8b' }), { maxSteps: 2 });
    assert.equal(outcome.status, 'completed');
    assert.equal(outcome.diagnosis?.category, 'bad-credentials');
    const forced = api.requests[1]!.body;
    assert.equal(forced.tools, undefined);
    assert.equal(forced.tool_choice, undefined);
    assert.equal(forced.response_format?.type, 'json_schema');
    assert.deepEqual(forced.response_format?.json_schema?.schema.required, ['diagnosis']);
  });

  test('cut at the output limit on the turn that must submit: asked again with four times the tokens', async () => {
    const api = await startScriptedServer([
      {
        toolCalls: [{ id: 'call_1', name: 'submit_diagnosis', arguments: '{"category": "bad-cre' }],
        finishReason: 'length',
      },
      { toolCalls: [submitCall()] },
    ]);
    const { outcome } = await runAgentWith(modelOn(api), { maxSteps: 1 });
    assert.equal(outcome.status, 'completed');
    assert.equal(api.requests[0]!.body.max_completion_tokens, 4096);
    assert.equal(api.requests[1]!.body.max_completion_tokens, 16_384);
    assert.deepEqual(api.requests[1]!.body.messages, api.requests[0]!.body.messages, 'the same turn is asked again');
  });

  test('a model that never submits is forced on its last step, and the run fails when it ignores that', async () => {
    const api = await startScriptedServer([{ content: 'I think it is fine.' }, { content: 'Really, it is fine.' }]);
    const { outcome } = await runAgentWith(modelOn(api), { maxSteps: 2 });
    assert.deepEqual(api.requests[1]!.body.tool_choice, { type: 'function', function: { name: 'submit_diagnosis' } });
    assert.equal(outcome.status, 'failed');
    assert.match(outcome.reason ?? '', /did not submit a diagnosis when it had to \(the last allowed step\)/);
  });
});

describe('the capability table', () => {
  for (const row of CAPABILITY_ROWS) {
    test(`${row.id}: its examples resolve to it, its counter-examples do not`, () => {
      for (const name of row.examples.match)
        assert.equal(capabilityRowOf(name).id, row.id, `${name} should resolve to ${row.id}`);
      for (const name of row.examples.noMatch)
        assert.notEqual(capabilityRowOf(name).id, row.id, `${name} should not resolve to ${row.id}`);
      assert.ok(
        row.source.length > 0 && row.priorityReason.length > 0,
        'the row says where its knowledge comes from and why it ranks where it does',
      );
    });
  }

  test('overrides from configuration win over the row', () => {
    assert.equal(capabilitiesOf('llama3.1:8b').namedToolChoice, false);
    assert.equal(capabilitiesOf('llama3.1:8b', { namedToolChoice: true }).namedToolChoice, true);
  });
});
