import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createGate, createInvestigatingModel, startTestApp } from './helpers/service-app.ts';

const incident = { text: 'checkout-api in staging keeps restarting', namespace: 'staging' };

test('an incident is stored and queued before the 202, then diagnosed', async (t) => {
  const gate = createGate();
  const { call, waitForRun } = await startTestApp(t, { model: createInvestigatingModel({ gate: gate.wait }) });
  const response = await call({ method: 'POST', url: '/v1/incidents', scope: 'ingest', body: incident });
  assert.equal(response.statusCode, 202);
  const accepted = response.json();
  assert.equal(response.headers.location, `/v1/runs/${accepted.id}`);
  assert.match(accepted.id, /^[0-9a-f-]{36}$/);

  const stored = await call({ method: 'GET', url: `/v1/runs/${accepted.id}` });
  assert.equal(stored.statusCode, 200);
  assert.deepEqual(stored.json().trigger, { kind: 'incident', ...incident });
  assert.ok(['queued', 'running'].includes(stored.json().status));

  gate.open();
  const run = await waitForRun(accepted.id);
  assert.equal(run.status, 'completed');
  assert.equal((run.diagnosis as { category: string }).category, 'bad-credentials');
  assert.equal(run.attempts, 1);
  assert.deepEqual(run.usage, { input: 200, output: 40, cacheRead: 0, cacheWrite: 0 });
});

test('?wait answers 200 with the finished run when it ends in time, 202 with its state when not', async (t) => {
  const gate = createGate();
  const { call } = await startTestApp(t, { model: createInvestigatingModel({ gate: gate.wait }) });
  const slow = await call({ method: 'POST', url: '/v1/incidents?wait=1', scope: 'ingest', body: incident });
  assert.equal(slow.statusCode, 202);
  assert.ok(['queued', 'running'].includes(slow.json().status));

  gate.open();
  const fast = await call({ method: 'POST', url: '/v1/incidents?wait=30', scope: 'ingest', body: incident });
  assert.equal(fast.statusCode, 200);
  assert.equal(fast.json().status, 'completed');
  assert.equal(fast.json().diagnosis.culprit.name, 'checkout-api');
});

test('lists runs newest first, page by page, and filters by status', async (t) => {
  const { call, waitForRun } = await startTestApp(t);
  const ids: string[] = [];
  for (let index = 0; index < 5; index++) {
    const response = await call({
      method: 'POST',
      url: '/v1/incidents',
      scope: 'ingest',
      body: { text: `incident ${index}` },
    });
    ids.push(response.json().id);
  }
  for (const id of ids) await waitForRun(id);

  const first = await call({ method: 'GET', url: '/v1/runs?limit=2' });
  assert.deepEqual(
    first.json().runs.map((run: { id: string }) => run.id),
    [ids[4], ids[3]],
  );
  const second = await call({ method: 'GET', url: `/v1/runs?limit=2&cursor=${first.json().nextCursor}` });
  assert.deepEqual(
    second.json().runs.map((run: { id: string }) => run.id),
    [ids[2], ids[1]],
  );
  const third = await call({ method: 'GET', url: `/v1/runs?limit=2&cursor=${second.json().nextCursor}` });
  assert.deepEqual(
    third.json().runs.map((run: { id: string }) => run.id),
    [ids[0]],
  );
  assert.equal(third.json().nextCursor, undefined);

  const completed = await call({ method: 'GET', url: '/v1/runs?status=completed' });
  assert.equal(completed.json().runs.length, 5);
  const queued = await call({ method: 'GET', url: '/v1/runs?status=queued' });
  assert.equal(queued.json().runs.length, 0);
});

test('a run nobody knows is a 404 in the error shape', async (t) => {
  const { call } = await startTestApp(t);
  for (const url of ['/v1/runs/no-such-run', '/v1/runs/no-such-run/audit']) {
    const response = await call({ method: 'GET', url });
    assert.equal(response.statusCode, 404);
    assert.deepEqual(response.json(), { error: 'not-found', message: 'no run no-such-run' });
  }
});

test('the audit endpoint gives the run events in order, as JSON or NDJSON', async (t) => {
  const { call, waitForRun } = await startTestApp(t);
  const { id } = (await call({ method: 'POST', url: '/v1/incidents', scope: 'ingest', body: incident })).json();
  await waitForRun(id);

  const json = await call({ method: 'GET', url: `/v1/runs/${id}/audit` });
  assert.equal(json.statusCode, 200);
  const events = json.json() as { seq: number; type: string }[];
  assert.equal(events[0]?.type, 'run-created');
  assert.equal(events.at(-1)?.type, 'run-finished');
  assert.deepEqual(
    events.map((event) => event.seq),
    events.map((_event, index) => index + 1),
  );

  const requests: { url: string; headers: Record<string, string> }[] = [
    { url: `/v1/runs/${id}/audit?format=ndjson`, headers: {} },
    { url: `/v1/runs/${id}/audit`, headers: { accept: 'application/x-ndjson' } },
  ];
  for (const request of requests) {
    const ndjson = await call({ method: 'GET', ...request });
    assert.match(String(ndjson.headers['content-type']), /^application\/x-ndjson/);
    const lines = ndjson.body
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(lines, events);
  }
});

test('at most `concurrency` runs are diagnosed at once', async (t) => {
  const gate = createGate();
  const { call, app } = await startTestApp(t, {
    model: createInvestigatingModel({ gate: gate.wait }),
    runs: { concurrency: 2 },
  });
  for (let index = 0; index < 5; index++)
    await call({ method: 'POST', url: '/v1/incidents', scope: 'ingest', body: { text: `incident ${index}` } });
  await until(() => gate.waiting() === 2);
  assert.equal(app.runService.inProgress(), 2);
  assert.equal(app.runService.queueDepth(), 3);
  const running = await call({ method: 'GET', url: '/v1/runs?status=running' });
  assert.equal(running.json().runs.length, 2);
  gate.open();
});

test('a full queue answers 503 with Retry-After and stores nothing', async (t) => {
  const gate = createGate();
  const { call } = await startTestApp(t, {
    model: createInvestigatingModel({ gate: gate.wait }),
    runs: { concurrency: 1, queueSize: 2 },
  });
  const statuses: number[] = [];
  for (let index = 0; index < 4; index++) {
    statuses.push(
      (await call({ method: 'POST', url: '/v1/incidents', scope: 'ingest', body: { text: `incident ${index}` } }))
        .statusCode,
    );
    // The first run leaves the queue for the single worker once its first turn is asked for.
    if (index === 0) await until(() => gate.waiting() === 1);
  }
  assert.deepEqual(statuses, [202, 202, 202, 503]);
  const refused = await call({ method: 'POST', url: '/v1/incidents', scope: 'ingest', body: incident });
  assert.equal(refused.statusCode, 503);
  assert.equal(refused.json().error, 'queue-full');
  assert.match(String(refused.headers['retry-after']), /^\d+$/);
  const all = await call({ method: 'GET', url: '/v1/runs' });
  assert.equal(all.json().runs.length, 3);
  gate.open();
});

test('a run past its deadline fails with the reason', async (t) => {
  const never = createGate();
  const { call, waitForRun } = await startTestApp(t, {
    model: createInvestigatingModel({ gate: never.wait }),
    limits: { runTimeoutMs: 200 },
  });
  const { id } = (await call({ method: 'POST', url: '/v1/incidents', scope: 'ingest', body: incident })).json();
  const run = await waitForRun(id);
  assert.equal(run.status, 'failed');
  assert.match(String(run.reason), /timeout of 200 ms/);
});

test('every response carries a request id, the caller’s when it sends a plain one', async (t) => {
  const { call } = await startTestApp(t);
  const given = await call({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'trace-42' } });
  assert.equal(given.headers['x-request-id'], 'trace-42');
  const generated = await call({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'bad id\nwith newline' } });
  assert.match(String(generated.headers['x-request-id']), /^[0-9a-f-]{36}$/);
});

test('health, readiness and the OpenAPI document', async (t) => {
  const { call } = await startTestApp(t);
  assert.deepEqual((await call({ method: 'GET', url: '/healthz', scope: null })).json(), { status: 'ok' });
  const ready = await call({ method: 'GET', url: '/readyz', scope: null });
  assert.equal(ready.statusCode, 200);
  assert.deepEqual(ready.json(), { status: 'ok', checks: { store: 'ok', cluster: 'ok' } });

  const document = (await call({ method: 'GET', url: '/openapi.json', scope: null })).json();
  assert.equal(document.openapi, '3.1.0');
  for (const path of [
    '/v1/alerts/alertmanager',
    '/v1/incidents',
    '/v1/runs',
    '/v1/runs/{id}',
    '/v1/runs/{id}/audit',
    '/v1/runs/{id}/actions/{actionId}/approve',
    '/v1/runs/{id}/actions/{actionId}/reject',
  ]) {
    assert.ok(document.paths[path], `${path} is documented`);
  }
  const incidentBody = document.paths['/v1/incidents'].post.requestBody.content['application/json'].schema;
  assert.deepEqual(incidentBody.required, ['text']);
  assert.deepEqual(document.paths['/v1/incidents'].post.security, [{ bearer: [] }]);
});

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}
