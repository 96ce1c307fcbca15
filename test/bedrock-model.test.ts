import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { after, test } from 'node:test';
import { createClaudeModel } from '../src/agent/models/anthropic-model.ts';
import { createBedrockClient, createBedrockModel, type AwsCredentials } from '../src/agent/models/bedrock-model.ts';
import { ModelError, type ModelRequest } from '../src/agent/model.ts';
import { startFakeBedrock, type FakePlatform, type PlatformRequest } from './helpers/fake-bedrock-vertex.ts';
import type { ScriptedAnswer } from './helpers/fake-messages-api.ts';
import { createToolRegistry } from '../src/tools/registry.ts';
import { createRecordingTools, demoDiagnosis } from './helpers/fake-tools.ts';
import { pod, runAgentWith } from './helpers/model-run.ts';

const PROFILE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
/** AWS's documented example keys: they sign like real ones and open nothing. */
const credentials: AwsCredentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};

const servers: FakePlatform[] = [];
after(() => Promise.all(servers.map((server) => server.close())));

async function startBedrock(script: ScriptedAnswer[]): Promise<FakePlatform> {
  const bedrock = await startFakeBedrock(script);
  servers.push(bedrock);
  return bedrock;
}

/** The first request of a run at OBSERVE with the recording tools' specs. */
function firstRequest(): ModelRequest {
  return {
    system: 'You diagnose Kubernetes alerts.',
    trigger: {
      kind: 'alert',
      alert: { labels: { alertname: 'KubePodCrashLooping', namespace: 'staging', pod: pod.name }, annotations: {} },
    },
    transcript: [{ role: 'user', text: 'Why is checkout-api crash-looping?' }],
    tools: createToolRegistry(createRecordingTools().tools)
      .list()
      .map((tool) => ({
        name: tool.name,
        description: tool.description,
        input_schema: { type: 'object', properties: {} },
      })),
    toolChoice: { type: 'auto' },
    signal: AbortSignal.timeout(10_000),
  };
}

const sha256 = (data: string): string => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: string | Buffer, data: string): Buffer => createHmac('sha256', key).update(data, 'utf8').digest();
/** RFC 3986 unreserved characters stay; everything else is percent-encoded, as SigV4 asks. */
const escapeUri = (value: string): string =>
  encodeURIComponent(value).replace(
    /[!'()*]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );

/**
 * The SigV4 signature of `request` recomputed from what arrived on the wire: canonical
 * request (each path segment encoded again, as for every service but S3), string to sign,
 * signing key derived from the secret key, date, region and service.
 */
function recomputeSignature(
  request: Pick<PlatformRequest, 'method' | 'rawPath' | 'headers' | 'rawBody'>,
  secretAccessKey: string,
): { expected: string; actual: string; scope: string } {
  const authorization = String(request.headers.authorization);
  const parsed = /^AWS4-HMAC-SHA256 Credential=([^,]+), SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
    authorization,
  );
  assert.ok(parsed, `a SigV4 authorization header: ${authorization}`);
  const [, credential, signedHeaders, actual] = parsed;
  const scope = credential!.split('/').slice(1).join('/');
  const [path = '', query = ''] = request.rawPath.split('?');
  const canonicalHeaders = signedHeaders!
    .split(';')
    .map(
      (name) =>
        `${name}:${String(request.headers[name] ?? '')
          .trim()
          .replace(/\s+/g, ' ')}\n`,
    )
    .join('');
  const canonicalRequest = [
    request.method,
    path.split('/').map(escapeUri).join('/'),
    query,
    canonicalHeaders,
    signedHeaders,
    sha256(request.rawBody),
  ].join('\n');
  const amzDate = String(request.headers['x-amz-date']);
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  const [date, region, service, terminator] = scope.split('/');
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, date!), region!), service!), terminator!);
  return { expected: hmac(signingKey, stringToSign).toString('hex'), actual: actual!, scope };
}

test('a tool call and then a diagnosis come back from Bedrock as turns', async () => {
  const bedrock = await startBedrock([
    {
      content: [
        { type: 'text', text: 'Checking the pod.' },
        { type: 'tool_use', id: 'toolu_01', name: 'describe_pod', input: pod },
      ],
      usage: { input_tokens: 1200, output_tokens: 40, cache_creation_input_tokens: 3000 },
    },
    { content: [{ type: 'tool_use', id: 'toolu_02', name: 'submit_diagnosis', input: demoDiagnosis }] },
  ]);
  const model = createBedrockModel({
    region: 'us-west-2',
    model: PROFILE,
    credentials,
    baseUrl: bedrock.url,
    maxRetries: 0,
  });
  const first = await model.createTurn(firstRequest());
  assert.equal(model.name, PROFILE);
  assert.equal(first.text, 'Checking the pod.');
  assert.deepEqual(first.calls, [{ id: 'toolu_01', name: 'describe_pod', input: pod }]);
  assert.equal(first.stopReason, 'tool_use');
  assert.deepEqual(first.usage, { input: 1200, output: 40, cacheRead: 0, cacheWrite: 3000 });
  const second = await model.createTurn(firstRequest());
  assert.deepEqual(second.calls, [{ id: 'toolu_02', name: 'submit_diagnosis', input: demoDiagnosis }]);
});

test('the request goes to /model/{id}/invoke, the version in the body and no model field', async () => {
  const bedrock = await startBedrock([{ content: [{ type: 'text', text: 'ok' }] }]);
  await createBedrockModel({
    region: 'us-west-2',
    model: PROFILE,
    credentials,
    baseUrl: bedrock.url,
    maxRetries: 0,
  }).createTurn(firstRequest());
  const [request] = bedrock.requests;
  assert.equal(request!.method, 'POST');
  // The SDK encodes a path segment as RFC 3986 asks: ':' and '@' may stay.
  assert.equal(request!.rawPath, '/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke');
  assert.equal('model' in request!.body, false);
  // SDK 1.x sends the Messages API version it speaks; SDKs before 1.0 sent `bedrock-2023-05-31`.
  assert.match(String(request!.body.anthropic_version), /^\d{4}-\d{2}-\d{2}$|^bedrock-2023-05-31$/);
  assert.equal(request!.headers['anthropic-version'], undefined, 'the version travels in the body only');
});

test('an application inference profile ARN is one path segment, its slash encoded, and still signed right', async () => {
  const arn = 'arn:aws:bedrock:us-west-2:123456789012:application-inference-profile/a1b2c3d4e5f6';
  const bedrock = await startBedrock([{ content: [{ type: 'text', text: 'ok' }] }]);
  await createBedrockModel({
    region: 'us-west-2',
    model: arn,
    credentials,
    baseUrl: bedrock.url,
    maxRetries: 0,
  }).createTurn(firstRequest());
  const request = bedrock.requests[0]!;
  assert.equal(
    request.rawPath,
    '/model/arn:aws:bedrock:us-west-2:123456789012:application-inference-profile%2Fa1b2c3d4e5f6/invoke',
  );
  assert.equal(request.params.modelId, arn);
  const signature = recomputeSignature(request, credentials.secretAccessKey);
  assert.equal(signature.actual, signature.expected);
});

test('prompt caching reaches Bedrock: the system prompt and the last tool carry cache_control, with the 1-hour lifetime when asked', async () => {
  const bedrock = await startBedrock([{ content: [{ type: 'text', text: 'ok' }] }]);
  await createBedrockModel({
    region: 'us-west-2',
    model: PROFILE,
    credentials,
    baseUrl: bedrock.url,
    maxRetries: 0,
    promptCache: '1h',
  }).createTurn(firstRequest());
  const body = bedrock.requests[0]!.body;
  assert.deepEqual((body.system as { cache_control?: unknown }[])[0]!.cache_control, { type: 'ephemeral', ttl: '1h' });
  assert.deepEqual(body.tools!.at(-1)!.cache_control, { type: 'ephemeral', ttl: '1h' });
});

test('the request is signed with SigV4 for bedrock in the region, and the signature is right for what arrived', async () => {
  const bedrock = await startBedrock([{ content: [{ type: 'text', text: 'ok' }] }]);
  await createBedrockModel({
    region: 'eu-central-1',
    model: PROFILE,
    credentials,
    baseUrl: bedrock.url,
    maxRetries: 0,
  }).createTurn(firstRequest());
  const request = bedrock.requests[0]!;
  const amzDate = String(request.headers['x-amz-date']);
  assert.match(amzDate, /^\d{8}T\d{6}Z$/);
  assert.equal(request.headers['x-amz-content-sha256'], sha256(request.rawBody));
  assert.match(
    String(request.headers.authorization),
    new RegExp(
      `^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/${amzDate.slice(0, 8)}/eu-central-1/bedrock/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$`,
    ),
  );
  assert.match(String(request.headers.authorization), /SignedHeaders=[a-z0-9;-]*\bhost\b[a-z0-9;-]*\bx-amz-date\b/);
  const signature = recomputeSignature(request, credentials.secretAccessKey);
  assert.equal(signature.actual, signature.expected);
  // The check tells a wrong signature from a right one: another key, or a body changed on the way.
  assert.notEqual(recomputeSignature(request, 'another-secret-key').expected, signature.actual);
  assert.notEqual(
    recomputeSignature(
      { ...request, rawBody: request.rawBody.replace('crash-looping', 'crash-lopping') },
      credentials.secretAccessKey,
    ).expected,
    signature.actual,
  );
  assert.equal(request.headers['x-amz-security-token'], undefined, 'no session token was given');
  assert.equal(request.headers['x-api-key'], undefined);
});

test('a session token is sent in x-amz-security-token and covered by the signature', async () => {
  const bedrock = await startBedrock([{ content: [{ type: 'text', text: 'ok' }] }]);
  const temporary = { ...credentials, sessionToken: 'FwoGZXIvYXdzEXAMPLEsessiontoken' };
  await createBedrockModel({
    region: 'us-east-1',
    model: PROFILE,
    credentials: temporary,
    baseUrl: bedrock.url,
    maxRetries: 0,
  }).createTurn(firstRequest());
  const request = bedrock.requests[0]!;
  assert.equal(request.headers['x-amz-security-token'], temporary.sessionToken);
  assert.match(String(request.headers.authorization), /SignedHeaders=[a-z0-9;-]*x-amz-security-token/);
  const signature = recomputeSignature(request, credentials.secretAccessKey);
  assert.equal(signature.actual, signature.expected);
});

test('without a base URL the request goes to https://bedrock-runtime.<region>.amazonaws.com, signed for that host', async () => {
  const sent: { url: string; init: RequestInit }[] = [];
  // The SDK's own fetch is swapped for one that answers here: nothing leaves the process.
  const answerLocally = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    sent.push({ url: String(url), init: init ?? {} });
    const message = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: PROFILE,
      content: [{ type: 'text', text: 'ok' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1 },
    };
    return new Response(JSON.stringify(message), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  const client = createBedrockClient({
    region: 'ap-southeast-2',
    model: PROFILE,
    credentials,
    maxRetries: 0,
  }).withOptions({ fetch: answerLocally });
  const turn = await createClaudeModel({ client, model: PROFILE, label: 'Bedrock' }).createTurn(firstRequest());
  assert.equal(turn.text, 'ok');
  const url = new URL(sent[0]!.url);
  assert.equal(url.origin, 'https://bedrock-runtime.ap-southeast-2.amazonaws.com');
  assert.equal(url.pathname, '/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke');
  const headers = Object.fromEntries(new Headers(sent[0]!.init.headers).entries());
  const signature = recomputeSignature(
    {
      method: 'POST',
      rawPath: url.pathname,
      headers: { ...headers, host: url.host },
      rawBody: String(sent[0]!.init.body),
    },
    credentials.secretAccessKey,
  );
  assert.match(signature.scope, /^\d{8}\/ap-southeast-2\/bedrock\/aws4_request$/);
  assert.equal(signature.actual, signature.expected);
});

test('a 429 from Bedrock is a retryable model error that carries retry-after', async () => {
  const bedrock = await startBedrock([
    {
      status: 429,
      errorType: 'ThrottlingException',
      message: 'Too many requests, please wait before trying again.',
      headers: { 'retry-after': '7' },
    },
  ]);
  const model = createBedrockModel({
    region: 'us-west-2',
    model: PROFILE,
    credentials,
    baseUrl: bedrock.url,
    maxRetries: 0,
  });
  const error = await model.createTurn(firstRequest()).then(
    () => assert.fail('the turn should fail'),
    (failure: unknown) => failure,
  );
  assert.ok(error instanceof ModelError);
  assert.equal(error.retryable, true);
  assert.equal(error.retryAfterMs, 7000);
  assert.equal(error.message, 'Bedrock 429: ThrottlingException: Too many requests, please wait before trying again.');
});

test('a throttled request is retried by the SDK, and each attempt carries its own valid signature', async () => {
  const bedrock = await startBedrock([
    { status: 429, errorType: 'ThrottlingException', message: 'Too many requests', headers: { 'retry-after-ms': '5' } },
    { content: [{ type: 'text', text: 'ok' }] },
  ]);
  const turn = await createBedrockModel({
    region: 'us-west-2',
    model: PROFILE,
    credentials,
    baseUrl: bedrock.url,
    maxRetries: 1,
  }).createTurn(firstRequest());
  assert.equal(turn.text, 'ok');
  assert.deepEqual(
    bedrock.requests.map((request) => request.headers['x-stainless-retry-count']),
    ['0', '1'],
  );
  for (const request of bedrock.requests) {
    const signature = recomputeSignature(request, credentials.secretAccessKey);
    assert.equal(signature.actual, signature.expected);
  }
});

test('a 403 from Bedrock is not retryable, and the message names Bedrock and the denial', async () => {
  const denial =
    'User: arn:aws:sts::123456789012:assumed-role/kubewhy/pod is not authorized to perform: bedrock:InvokeModel';
  const bedrock = await startBedrock([{ status: 403, errorType: 'AccessDeniedException', message: denial }]);
  const model = createBedrockModel({
    region: 'us-west-2',
    model: PROFILE,
    credentials,
    baseUrl: bedrock.url,
    maxRetries: 2,
  });
  await assert.rejects(model.createTurn(firstRequest()), (error: unknown) => {
    assert.ok(error instanceof ModelError);
    assert.equal(error.retryable, false);
    assert.equal(error.message, `Bedrock 403: AccessDeniedException: ${denial}`);
    return true;
  });
  assert.equal(bedrock.requests.length, 1, 'a denial is not tried again');
});

test('the agent loop on Bedrock at OBSERVE: reads run, a write is only proposed, the diagnosis is submitted', async () => {
  const bedrock = await startBedrock([
    { content: [{ type: 'tool_use', id: 'toolu_01', name: 'get_pod_logs', input: pod }] },
    {
      content: [
        {
          type: 'tool_use',
          id: 'toolu_02',
          name: 'rollout_undo',
          input: { namespace: 'staging', name: 'checkout-api' },
        },
      ],
    },
    { content: [{ type: 'tool_use', id: 'toolu_03', name: 'submit_diagnosis', input: demoDiagnosis }] },
  ]);
  const { outcome, recording } = await runAgentWith(
    createBedrockModel({ region: 'us-west-2', model: PROFILE, credentials, baseUrl: bedrock.url, maxRetries: 0 }),
    { runId: 'run-bedrock', actNamespaces: ['*'] },
  );
  assert.equal(outcome.status, 'completed');
  assert.equal(outcome.diagnosis?.category, 'bad-credentials');
  assert.equal(outcome.diagnosis?.summary, demoDiagnosis.summary);
  assert.deepEqual(recording.executed, [`get_pod_logs staging/${pod.name}`], 'only the read ran');
  assert.deepEqual(
    outcome.actions.map((action) => [action.tool, action.status]),
    [['rollout_undo', 'proposed']],
  );
  assert.equal(bedrock.requests.length, 3);
  const results = bedrock.requests[1]!.body.messages.at(-1)!.content as {
    type: string;
    tool_use_id: string;
    content: string;
  }[];
  assert.deepEqual(
    results.map((block) => [block.type, block.tool_use_id]),
    [['tool_result', 'toolu_01']],
  );
  assert.match(results[0]!.content, /password authentication failed/);
});
