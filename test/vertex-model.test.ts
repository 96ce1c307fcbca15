import assert from 'node:assert/strict';
import { subscribe } from 'node:diagnostics_channel';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createClaudeModel } from '../src/agent/models/anthropic-model.ts';
import { ModelError, type ModelRequest } from '../src/agent/model.ts';
import { createVertexClient, createVertexModel, type VertexModelOptions } from '../src/agent/models/vertex-model.ts';
import { startFakeMetadataServer, startFakeVertex, type FakePlatform } from './helpers/fake-bedrock-vertex.ts';
import type { ScriptedAnswer } from './helpers/fake-messages-api.ts';
import { demoDiagnosis } from './helpers/fake-tools.ts';
import { pod } from './helpers/model-run.ts';

// Application Default Credentials, wherever they look, find only what is local: no key
// file, an empty gcloud config, and a metadata server on 127.0.0.1 that counts its callers.
const metadata = await startFakeMetadataServer('ya29.from-the-metadata-server');
delete process.env.GOOGLE_APPLICATION_CREDENTIALS;
delete process.env.METADATA_SERVER_DETECTION;
delete process.env.GCE_METADATA_IP;
process.env.CLOUDSDK_CONFIG = mkdtempSync(join(tmpdir(), 'kubewhy-gcloud-'));
process.env.GCE_METADATA_HOST = metadata.host;

// Every HTTP request this file's code starts, through node:http (google-auth-library) or fetch (the SDK).
const requestedHosts: string[] = [];
subscribe('http.client.request.start', (message) =>
  requestedHosts.push(String((message as { request: { host: string } }).request.host)),
);
subscribe('undici:request:create', (message) =>
  requestedHosts.push(new URL((message as { request: { origin: string } }).request.origin).hostname),
);

const MODEL = 'claude-sonnet-4-5@20250929';
const servers: FakePlatform[] = [];
after(() => Promise.all([metadata.close(), ...servers.map((server) => server.close())]));

async function startVertex(script: ScriptedAnswer[]): Promise<FakePlatform> {
  const vertex = await startFakeVertex(script);
  servers.push(vertex);
  return vertex;
}

/** A token source that hands out a new token each time and counts the calls. */
function createTokenSource(): { accessToken: () => Promise<string>; calls: () => number } {
  let calls = 0;
  return { accessToken: async () => `ya29.token-${++calls}`, calls: () => calls };
}

function vertexOptions(vertex: FakePlatform, overrides: Partial<VertexModelOptions> = {}): VertexModelOptions {
  // The SDK's default base URL ends in /v1, and so does one pointed at the fake.
  return {
    region: 'europe-west1',
    projectId: 'shop-prod',
    model: MODEL,
    baseUrl: `${vertex.url}/v1`,
    maxRetries: 0,
    accessToken: createTokenSource().accessToken,
    ...overrides,
  };
}

function firstRequest(): ModelRequest {
  return {
    system: 'You diagnose Kubernetes alerts.',
    trigger: {
      kind: 'alert',
      alert: { labels: { alertname: 'KubePodCrashLooping', namespace: 'staging', pod: pod.name }, annotations: {} },
    },
    transcript: [{ role: 'user', text: 'Why is checkout-api crash-looping?' }],
    tools: [{ name: 'describe_pod', description: 'Describes a pod', input_schema: { type: 'object', properties: {} } }],
    toolChoice: { type: 'auto' },
    signal: AbortSignal.timeout(10_000),
  };
}

async function failureOf(promise: Promise<unknown>): Promise<ModelError> {
  const error = await promise.then(
    () => assert.fail('the turn should fail'),
    (failure: unknown) => failure,
  );
  assert.ok(error instanceof ModelError, `a ModelError: ${String(error)}`);
  return error;
}

test('a tool call and then a diagnosis come back from Vertex AI as turns, each request with a fresh token from the source', async () => {
  const vertex = await startVertex([
    {
      content: [
        { type: 'text', text: 'Checking the pod.' },
        { type: 'tool_use', id: 'toolu_01', name: 'describe_pod', input: pod },
      ],
    },
    {
      content: [{ type: 'tool_use', id: 'toolu_02', name: 'submit_diagnosis', input: demoDiagnosis }],
      usage: { input_tokens: 300, output_tokens: 90, cache_read_input_tokens: 3000 },
    },
  ]);
  const tokens = createTokenSource();
  const model = createVertexModel(vertexOptions(vertex, { accessToken: tokens.accessToken }));
  const first = await model.createTurn(firstRequest());
  assert.equal(first.text, 'Checking the pod.');
  assert.deepEqual(first.calls, [{ id: 'toolu_01', name: 'describe_pod', input: pod }]);
  const second = await model.createTurn(firstRequest());
  assert.deepEqual(second.calls, [{ id: 'toolu_02', name: 'submit_diagnosis', input: demoDiagnosis }]);
  assert.deepEqual(second.usage, { input: 300, output: 90, cacheRead: 3000, cacheWrite: 0 });
  assert.equal(tokens.calls(), 2);
  assert.deepEqual(
    vertex.requests.map((request) => request.headers.authorization),
    ['Bearer ya29.token-1', 'Bearer ya29.token-2'],
  );
});

test('the project, region and model are in the rawPredict path; the version is in the body, the model is not', async () => {
  const vertex = await startVertex([{ content: [{ type: 'text', text: 'ok' }] }]);
  await createVertexModel(vertexOptions(vertex)).createTurn(firstRequest());
  const request = vertex.requests[0]!;
  assert.equal(
    request.rawPath,
    '/v1/projects/shop-prod/locations/europe-west1/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict',
  );
  assert.deepEqual(request.params, { project: 'shop-prod', region: 'europe-west1', model: MODEL });
  assert.equal('model' in request.body, false);
  // SDK 1.x sends the Messages API version it speaks; SDKs before 1.0 sent `vertex-2023-10-16`.
  assert.match(String(request.body.anthropic_version), /^\d{4}-\d{2}-\d{2}$|^vertex-2023-10-16$/);
  assert.equal(request.headers['anthropic-version'], undefined, 'the version travels in the body only');
  assert.equal(request.headers['x-api-key'], undefined);
});

test('a synchronous token source works as well, and the prompt cache marks reach Vertex', async () => {
  const vertex = await startVertex([{ content: [{ type: 'text', text: 'ok' }] }]);
  await createVertexModel(
    vertexOptions(vertex, { accessToken: () => 'ya29.minted-by-the-operator', promptCache: '1h' }),
  ).createTurn(firstRequest());
  const request = vertex.requests[0]!;
  assert.equal(request.headers.authorization, 'Bearer ya29.minted-by-the-operator');
  assert.deepEqual((request.body.system as { cache_control?: unknown }[])[0]!.cache_control, {
    type: 'ephemeral',
    ttl: '1h',
  });
  assert.deepEqual(request.body.tools!.at(-1)!.cache_control, { type: 'ephemeral', ttl: '1h' });
});

test('with a token source, Application Default Credentials are never consulted', async () => {
  const vertex = await startVertex([{ content: [{ type: 'text', text: 'ok' }] }]);
  const asked = metadata.requests.length;
  const model = createVertexModel(vertexOptions(vertex));
  await model.createTurn(firstRequest());
  assert.equal(metadata.requests.length, asked, 'the metadata server was not asked');
});

test('without a token source, the token comes from Application Default Credentials (here a local metadata server), asked at the first request', async () => {
  const vertex = await startVertex([{ content: [{ type: 'text', text: 'ok' }] }]);
  const { accessToken: _none, ...withoutToken } = vertexOptions(vertex);
  const asked = metadata.requests.length;
  const model = createVertexModel(withoutToken);
  assert.equal(metadata.requests.length, asked, 'creating the model looks nothing up');
  await model.createTurn(firstRequest());
  assert.equal(vertex.requests[0]!.headers.authorization, 'Bearer ya29.from-the-metadata-server');
  const lookups = metadata.requests.slice(asked);
  assert.ok(lookups.some((path) => path.startsWith('/computeMetadata/v1/instance/service-accounts/default/token')));
  assert.ok(
    !lookups.some((path) => path.includes('project-id')),
    'the project is known: not looked up (nor the gcloud CLI run for it)',
  );
});

test("without a base URL the request goes to the region's aiplatform endpoint", async () => {
  const sent: string[] = [];
  const answerLocally = async (url: string | URL | Request): Promise<Response> => {
    sent.push(String(url));
    const message = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: MODEL,
      content: [{ type: 'text', text: 'ok' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    };
    return new Response(JSON.stringify(message), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  for (const region of ['us-east5', 'global']) {
    const client = createVertexClient({
      region,
      projectId: 'shop-prod',
      model: MODEL,
      accessToken: () => 'ya29.local',
      maxRetries: 0,
    }).withOptions({ fetch: answerLocally });
    await createClaudeModel({ client, model: MODEL, label: 'Vertex AI' }).createTurn(firstRequest());
  }
  assert.deepEqual(sent, [
    'https://us-east5-aiplatform.googleapis.com/v1/projects/shop-prod/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict',
    'https://aiplatform.googleapis.com/v1/projects/shop-prod/locations/global/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict',
  ]);
});

test('a 429 from Vertex AI is a retryable model error that carries retry-after', async () => {
  const vertex = await startVertex([
    {
      status: 429,
      errorType: 'RESOURCE_EXHAUSTED',
      message: 'Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model',
      headers: { 'retry-after': '12' },
    },
  ]);
  const error = await failureOf(createVertexModel(vertexOptions(vertex)).createTurn(firstRequest()));
  assert.equal(error.retryable, true);
  assert.equal(error.retryAfterMs, 12_000);
  assert.match(error.message, /^Vertex AI 429: RESOURCE_EXHAUSTED: Quota exceeded/);
});

test('a 403 from Vertex AI is not retryable, and the message names Vertex AI and the denial', async () => {
  const denial =
    "Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/shop-prod/locations/europe-west1/publishers/anthropic/models/claude-sonnet-4-5@20250929'";
  const vertex = await startVertex([{ status: 403, errorType: 'PERMISSION_DENIED', message: denial }]);
  const error = await failureOf(createVertexModel(vertexOptions(vertex, { maxRetries: 2 })).createTurn(firstRequest()));
  assert.equal(error.retryable, false);
  assert.equal(error.message, `Vertex AI 403: PERMISSION_DENIED: ${denial}`);
  assert.equal(vertex.requests.length, 1, 'a denial is not tried again');
});

test('a token source that fails ends the turn as a retryable error that says so, and the next turn asks it again', async () => {
  const vertex = await startVertex([{ content: [{ type: 'text', text: 'ok' }] }]);
  let calls = 0;
  const flaky = async (): Promise<string> => {
    calls += 1;
    if (calls === 1) throw new Error('token endpoint unreachable');
    return 'ya29.second-try';
  };
  const model = createVertexModel(vertexOptions(vertex, { accessToken: flaky }));
  const error = await failureOf(model.createTurn(firstRequest()));
  assert.equal(error.retryable, true);
  assert.match(error.message, /^Vertex AI no status: .*Google OAuth credentials/);
  assert.equal(vertex.requests.length, 0, 'nothing was sent without a token');
  await model.createTurn(firstRequest());
  assert.equal(vertex.requests[0]!.headers.authorization, 'Bearer ya29.second-try');
});

test('no request of this file left 127.0.0.1', () => {
  assert.ok(requestedHosts.length > 0, 'requests were seen');
  assert.deepEqual([...new Set(requestedHosts)], ['127.0.0.1']);
});
