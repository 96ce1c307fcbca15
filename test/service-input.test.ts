import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import fc from 'fast-check';
import { buildServiceApp } from '../src/app/service.ts';
import { createLogger } from '../src/logger.ts';
import { openDatabase } from '../src/store/database.ts';
import { createToolRegistry } from '../src/tools/registry.ts';
import { SECRET_SHAPES } from './fixtures/secret-canary/shapes.ts';
import { createRecordingTools, unusedCluster } from './helpers/fake-tools.ts';
import {
  createInvestigatingModel,
  firingAlert,
  notification,
  startTestApp,
  TEST_LIMITS,
  TOKENS,
  type TestApp,
} from './helpers/service-app.ts';

const webhook = '/v1/alerts/alertmanager';

function assertClientError(
  response: Awaited<ReturnType<TestApp['call']>>,
  status: number,
  error: string,
  message: RegExp,
): void {
  assert.equal(response.statusCode, status, response.body);
  const body = response.json();
  assert.equal(body.error, error);
  assert.match(body.message, message);
}

test('malformed JSON is a 400 that says so', async (t) => {
  const { call } = await startTestApp(t);
  assertClientError(
    await call({
      method: 'POST',
      url: webhook,
      scope: 'ingest',
      body: '{"alerts": [',
      headers: { 'content-type': 'application/json' },
    }),
    400,
    'malformed-json',
    /not valid JSON/,
  );
  assertClientError(
    await call({
      method: 'POST',
      url: '/v1/incidents',
      scope: 'ingest',
      body: '',
      headers: { 'content-type': 'application/json' },
    }),
    400,
    'bad-request',
    /body is empty/,
  );
});

test('wrong types and missing fields are a 400 naming each problem', async (t) => {
  const { call } = await startTestApp(t);
  const missing = await call({ method: 'POST', url: webhook, scope: 'ingest', body: { version: '4' } });
  assertClientError(missing, 400, 'invalid-request', /body\.alerts/);

  const wrongTypes = await call({
    method: 'POST',
    url: webhook,
    scope: 'ingest',
    body: notification([{ ...firingAlert(), status: 'burning', labels: { a: 1 }, startsAt: 'yesterday' }]),
  });
  assertClientError(wrongTypes, 400, 'invalid-request', /body\.alerts\.0\.status/);
  const paths = wrongTypes.json().details.problems.map((problem: { path: string }) => problem.path);
  assert.deepEqual(paths.sort(), ['body.alerts.0.labels.a', 'body.alerts.0.startsAt', 'body.alerts.0.status']);

  assertClientError(
    await call({
      method: 'POST',
      url: webhook,
      scope: 'ingest',
      body: { ...notification([firingAlert()]), version: '5' },
    }),
    400,
    'invalid-request',
    /version/,
  );
  assertClientError(
    await call({ method: 'POST', url: '/v1/incidents', scope: 'ingest', body: { text: '   ' } }),
    400,
    'invalid-request',
    /body\.text/,
  );
  assertClientError(
    await call({
      method: 'POST',
      url: '/v1/incidents',
      scope: 'ingest',
      body: { text: 'x', namespace: 'Not_A_Namespace' },
    }),
    400,
    'invalid-request',
    /namespace/,
  );
  assertClientError(
    await call({ method: 'POST', url: '/v1/incidents', scope: 'ingest', body: { text: 'x', rung: 'ROOT' } }),
    400,
    'invalid-request',
    /rung/,
  );
  assertClientError(
    await call({ method: 'POST', url: '/v1/incidents', scope: 'ingest', body: { text: 'x', nmespace: 'staging' } }),
    400,
    'invalid-request',
    /nmespace/,
  );
  assertClientError(
    await call({ method: 'POST', url: '/v1/incidents?wait=soon', scope: 'ingest', body: { text: 'x' } }),
    400,
    'invalid-request',
    /querystring\.wait/,
  );
  assertClientError(
    await call({ method: 'GET', url: '/v1/runs?limit=0' }),
    400,
    'invalid-request',
    /querystring\.limit/,
  );
  assertClientError(
    await call({ method: 'GET', url: '/v1/runs?status=done' }),
    400,
    'invalid-request',
    /querystring\.status/,
  );
});

test('a body over the limit is a 413, another content type a 415, a prototype-poisoning body a 400', async (t) => {
  const { call } = await startTestApp(t, { bodyLimitBytes: 4096, webhookBodyLimitBytes: 8192 });
  assertClientError(
    await call({ method: 'POST', url: '/v1/incidents', scope: 'ingest', body: { text: 'x'.repeat(5000) } }),
    413,
    'payload-too-large',
    /larger than the limit of 4096 bytes/,
  );
  // The webhook has its own, larger limit (one notification is a whole alert group): 5 KB passes, 10 KB does not.
  const group = (size: number): Record<string, unknown> =>
    notification([{ ...firingAlert(), annotations: { description: 'x'.repeat(size) } }]);
  assert.equal((await call({ method: 'POST', url: webhook, scope: 'ingest', body: group(5000) })).statusCode, 202);
  assertClientError(
    await call({ method: 'POST', url: webhook, scope: 'ingest', body: group(10_000) }),
    413,
    'payload-too-large',
    /larger than the limit of 8192 bytes/,
  );
  assertClientError(
    await call({
      method: 'POST',
      url: '/v1/incidents',
      scope: 'ingest',
      body: 'checkout is down',
      headers: { 'content-type': 'text/plain' },
    }),
    415,
    'unsupported-media-type',
    /application\/json/,
  );
  const poisoned = '{"text": "x", "__proto__": {"admin": true}}';
  const response = await call({
    method: 'POST',
    url: '/v1/incidents',
    scope: 'ingest',
    body: poisoned,
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(response.statusCode, 400);
  assert.ok(response.json().message);
});

test('an unknown route is a 404 in the error shape', async (t) => {
  const { call } = await startTestApp(t);
  const response = await call({ method: 'GET', url: '/v2/everything?x=1' });
  assert.equal(response.statusCode, 404);
  assert.deepEqual(response.json(), { error: 'not-found', message: 'no route GET /v2/everything' });
});

test('fuzz: 2,000 generated and mutated payloads per POST route, never a 5xx', async (t) => {
  // Each run proposes a rollout undo, so the approval routes meet a real action that is not held (409).
  const model = createInvestigatingModel({
    firstCalls: [{ id: 'call-undo', name: 'rollout_undo', input: { namespace: 'staging', name: 'checkout-api' } }],
  });
  const { call, waitForRun } = await startTestApp(t, { model, runs: { queueSize: 1_000_000, concurrency: 2 } });
  const incident = await call({
    method: 'POST',
    url: '/v1/incidents',
    scope: 'ingest',
    body: { text: 'checkout is down' },
  });
  const runId = incident.json().id as string;
  const actionId = ((await waitForRun(runId)).actions as { id: string }[])[0]!.id;
  const targets = [
    {
      url: () => webhook,
      scope: 'ingest' as const,
      valid: notification([firingAlert(), firingAlert({ fingerprint: 'ffffffffffffffff', status: 'resolved' })]),
    },
    {
      url: () => '/v1/incidents?wait=0',
      scope: 'ingest' as const,
      valid: { text: 'checkout-api in staging keeps restarting', namespace: 'staging', rung: 'ACT' },
    },
    {
      url: (segment: string) => `/v1/runs/${runId}/actions/${encodeURIComponent(segment)}/approve`,
      scope: 'approve' as const,
      valid: { by: 'alice', reason: 'looks right' },
    },
    {
      url: (segment: string) => `/v1/runs/${encodeURIComponent(segment)}/actions/${actionId}/reject`,
      scope: 'approve' as const,
      valid: { reason: 'no' },
    },
  ];
  for (const target of targets) {
    await fc.assert(
      fc.asyncProperty(
        payloadArbitrary(target.valid),
        fc.oneof(fc.constantFrom(runId, actionId), fc.string({ maxLength: 40 })),
        contentTypeArbitrary,
        async (payload, segment, contentType) => {
          const response = await call({
            method: 'POST',
            url: target.url(segment || 'x'),
            scope: target.scope,
            body: payload,
            headers: contentType ? { 'content-type': contentType } : {},
          });
          assert.ok(
            response.statusCode < 500,
            `${response.statusCode} for ${target.url(segment)}: ${payload.slice(0, 200)} → ${response.body.slice(0, 300)}`,
          );
          if (response.statusCode >= 400) {
            const body = response.json();
            assert.equal(typeof body.error, 'string');
            assert.equal(typeof body.message, 'string');
          }
        },
      ),
      { numRuns: 2000 },
    );
  }
  // The process is still up and serving.
  assert.equal((await call({ method: 'GET', url: '/healthz' })).statusCode, 200);
});

const contentTypeArbitrary = fc.oneof(
  { weight: 8, arbitrary: fc.constant('application/json') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/json; charset=latin1',
    ),
  },
);

/** Bodies as text: arbitrary JSON, raw strings, the valid payload truncated, or mutated at random paths. */
function payloadArbitrary(valid: unknown): fc.Arbitrary<string> {
  const text = JSON.stringify(valid);
  const mutation = fc.record({
    path: fc.array(fc.nat(), { minLength: 1, maxLength: 5 }),
    replacement: fc.oneof(
      fc.constant(DELETE),
      fc.jsonValue({ maxDepth: 3 }),
      fc.string({ maxLength: 20_000 }),
      fc.constantFrom(null, -1, 1e308, '', '0001-01-01T00:00:00Z', [], {}),
    ),
  });
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(text) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value) ?? 'null') },
    { weight: 1, arbitrary: fc.string({ maxLength: 300 }) },
    { weight: 1, arbitrary: fc.nat({ max: text.length }).map((length) => text.slice(0, length)) },
    {
      weight: 5,
      arbitrary: fc
        .array(mutation, { minLength: 1, maxLength: 3 })
        .map(
          (mutations) =>
            JSON.stringify(
              mutations.reduce<unknown>(
                (value, step) => mutate(value, step.path, step.replacement),
                structuredClone(valid),
              ),
            ) ?? '',
        ),
    },
  );
}

const DELETE = Symbol('delete');

/** Follows `path` (each step picks a key or index modulo the size) and replaces or deletes what it reaches. */
function mutate(value: unknown, path: number[], replacement: unknown): unknown {
  if (value === null || typeof value !== 'object' || path.length === 0)
    return replacement === DELETE ? undefined : replacement;
  const container = value as Record<string, unknown>;
  const keys = Object.keys(container);
  if (keys.length === 0) return replacement === DELETE ? value : replacement;
  const [step = 0, ...rest] = path;
  const key = keys[step % keys.length]!;
  if (rest.length === 0 || container[key] === null || typeof container[key] !== 'object') {
    if (replacement === DELETE) delete container[key];
    else container[key] = replacement;
    return value;
  }
  container[key] = mutate(container[key], rest, replacement);
  return value;
}

test('fuzz: secrets of every shape in incidents and alerts never reach API answers, the audit or the log', async (t) => {
  let logText = '';
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logText += chunk.toString('utf8');
      done();
    },
  });
  const database = openDatabase(':memory:');
  const app = await buildServiceApp({
    database,
    agent: {
      model: createInvestigatingModel(),
      registry: createToolRegistry(createRecordingTools().tools),
      cluster: unusedCluster,
      policy: { actNamespaces: [] },
      limits: TEST_LIMITS,
    },
    runs: { concurrency: 2, queueSize: 1000, dedupWindowMs: 1, maxAttempts: 3, shutdownGraceMs: 1000 },
    auth: { mode: 'tokens', tokens: { ingest: [TOKENS.ingest], read: [TOKENS.read], approve: [TOKENS.approve] } },
    bodyLimitBytes: 65_536,
    logger: createLogger({ level: 'trace', destination: logStream }),
    checkCluster: async () => ({ ok: true }),
  });
  t.after(async () => {
    await app.close();
    database.close();
  });
  const call = (method: 'GET' | 'POST', url: string, scope: keyof typeof TOKENS, body?: unknown) =>
    app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${TOKENS[scope]}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { payload: JSON.stringify(body) } : {}),
    });
  const leaked = (text: string): string[] =>
    SECRET_SHAPES.filter((shape) => text.includes(shape.canary)).map((shape) => shape.id);

  const shapes = fc.subarray(SECRET_SHAPES, { minLength: 1, maxLength: 4 });
  let serial = 0;
  await fc.assert(
    fc.asyncProperty(
      shapes,
      fc.constantFrom('incident', 'labels', 'annotations'),
      fc.constantFrom('checkout is down', 'cart pods restart'),
      async (chosen, where, sentence) => {
        const secretText = chosen.map((shape) => shape.text).join('\n');
        serial++;
        const alert = { ...firingAlert({ fingerprint: serial.toString(16).padStart(16, '0') }) } as {
          labels: Record<string, string>;
          annotations: Record<string, string>;
        };
        if (where === 'labels')
          alert.labels = {
            ...alert.labels,
            ...Object.fromEntries(chosen.map((shape, index) => [`detail_${index}`, shape.text.replaceAll('\n', ' ')])),
          };
        if (where === 'annotations')
          alert.annotations = { summary: 'Pod is crash looping.', description: `${sentence}\n${secretText}` };
        const posted =
          where === 'incident'
            ? await call('POST', '/v1/incidents?wait=5', 'ingest', { text: `${sentence}\n${secretText}` })
            : await call('POST', '/v1/alerts/alertmanager', 'ingest', notification([alert]));
        assert.ok(posted.statusCode < 300, posted.body);
        assert.deepEqual(leaked(posted.body), [], posted.body);
        const runs = await call('GET', '/v1/runs?limit=5', 'read');
        assert.deepEqual(leaked(runs.body), [], runs.body);
        for (const run of (runs.json() as { runs: { id: string }[] }).runs) {
          const view = await call('GET', `/v1/runs/${run.id}`, 'read');
          assert.deepEqual(leaked(view.body), [], view.body);
          const audit = await call('GET', `/v1/runs/${run.id}/audit`, 'read');
          assert.equal(audit.statusCode, 200, audit.body);
          assert.deepEqual(leaked(audit.body), [], audit.body);
        }
      },
    ),
    { numRuns: 60 },
  );
  await app.close();
  assert.ok(logText.length > 0, 'the service logged nothing');
  assert.deepEqual(leaked(logText), []);
});
