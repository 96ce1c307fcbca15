/**
 * Each provider chosen by settings alone, end to end: `kubewhy serve` with KUBEWHY_MODEL=openai
 * or bedrock (and their settings from the environment) diagnoses an incident through the
 * provider's SDK against a local server that speaks its wire, in the worker threads that
 * build the model from the settings.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { startFakeBedrock } from './helpers/fake-bedrock-vertex.ts';
import { startFakeChatCompletions } from './helpers/fake-chat-completions.ts';
import { startServiceProcess } from './helpers/service-process.ts';

const INGEST = 'providers-ingest-token-0123456789';
const DIAGNOSIS = {
  category: 'bad-credentials',
  culprit: { kind: 'Deployment', namespace: 'staging', name: 'checkout-api' },
  summary: 'checkout-api presents a rotated-out password to Postgres',
  evidence: ['password authentication failed for user "checkout"'],
  confidence: 'high',
};

async function diagnoseWith(
  t: TestContext,
  environment: Record<string, string>,
): Promise<{ run: Record<string, unknown> }> {
  const directory = await mkdtemp(join(tmpdir(), 'kubewhy-providers-'));
  t.after(() => rm(directory, { recursive: true, force: true }));
  const service = await startServiceProcess({
    KUBEWHY_DATA_DIR: directory,
    KUBEWHY_TOKEN_INGEST: INGEST,
    KUBEWHY_TOKEN_READ: 'providers-read-token-0123456789',
    KUBEWHY_MODEL_MAX_RETRIES: '0',
    KUBEWHY_RUN_WORKERS: '1',
    ...environment,
  });
  t.after(() => service.kill());
  const response = await service.request({
    method: 'POST',
    path: '/v1/incidents?wait=60',
    token: INGEST,
    body: { text: 'checkout-api in staging keeps restarting', namespace: 'staging' },
  });
  assert.equal(response.status, 200, response.text);
  return { run: response.body as Record<string, unknown> };
}

test('KUBEWHY_MODEL=openai with OPENAI_BASE_URL: an OpenAI-compatible server diagnoses, a read tool first', async (t) => {
  const server = await startFakeChatCompletions([
    {
      toolCalls: [{ id: 'call-1', name: 'list_pods', arguments: { namespace: 'staging' } }],
      usage: { prompt_tokens: 900, completion_tokens: 40 },
    },
    {
      toolCalls: [{ id: 'call-2', name: 'submit_diagnosis', arguments: DIAGNOSIS }],
      usage: { prompt_tokens: 1500, completion_tokens: 120 },
    },
  ]);
  t.after(() => server.close());
  const { run } = await diagnoseWith(t, {
    KUBEWHY_MODEL: 'openai',
    KUBEWHY_MODEL_NAME: 'qwen3:8b',
    OPENAI_BASE_URL: `${server.url}/v1`,
  });
  assert.equal(run.status, 'completed', JSON.stringify(run));
  assert.equal((run.diagnosis as { category: string }).category, 'bad-credentials');
  assert.deepEqual(run.usage, { input: 2400, output: 160, cacheRead: 0, cacheWrite: 0 });
  assert.equal(server.requests[0]!.body.model, 'qwen3:8b');
  // The pod list went back to the model as a tool message, answering its call.
  const toolMessage = server.requests[1]!.body.messages.find((message) => message.role === 'tool');
  assert.equal(toolMessage?.tool_call_id, 'call-1');
  assert.match(String(toolMessage?.content), /checkout-api/);
});

test('KUBEWHY_MODEL=bedrock with AWS keys in the environment: Bedrock diagnoses, the requests signed for the region', async (t) => {
  const bedrock = await startFakeBedrock([
    {
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'submit_diagnosis', input: DIAGNOSIS }],
      usage: { input_tokens: 1200, output_tokens: 90 },
    },
  ]);
  t.after(() => bedrock.close());
  const { run } = await diagnoseWith(t, {
    KUBEWHY_MODEL: 'bedrock',
    KUBEWHY_MODEL_NAME: 'eu.anthropic.claude-sonnet-4-5-20250929-v1:0',
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'AKIAKUBEWHYTEST00001',
    AWS_SECRET_ACCESS_KEY: 'kubewhy-test-secret-access-key-not-real',
    KUBEWHY_MODEL_BASE_URL: bedrock.url,
  });
  assert.equal(run.status, 'completed', JSON.stringify(run));
  assert.equal((run.diagnosis as { category: string }).category, 'bad-credentials');
  const [request] = bedrock.requests;
  assert.equal(request?.params.modelId, 'eu.anthropic.claude-sonnet-4-5-20250929-v1:0');
  assert.match(
    String(request?.headers.authorization),
    /^AWS4-HMAC-SHA256 Credential=AKIAKUBEWHYTEST00001\/\d{8}\/eu-west-1\/bedrock\/aws4_request, SignedHeaders=[^,]+, Signature=[0-9a-f]{64}$/,
  );
});
