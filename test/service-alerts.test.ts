import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createGate, createInvestigatingModel, firingAlert, notification, startTestApp } from './helpers/service-app.ts';

const webhook = '/v1/alerts/alertmanager';

test('a firing alert starts one run with the alert as its trigger', async (t) => {
  const { call, waitForRun } = await startTestApp(t);
  const response = await call({ method: 'POST', url: webhook, scope: 'ingest', body: notification([firingAlert()]) });
  assert.equal(response.statusCode, 202);
  const [result] = response.json().runs;
  assert.equal(result.outcome, 'created');
  assert.equal(result.fingerprint, 'a1b2c3d4e5f60718');

  const run = await waitForRun(result.runId);
  assert.equal(run.status, 'completed');
  assert.equal(run.source, 'alertmanager');
  assert.equal(run.namespace, 'staging');
  assert.equal(run.rung, 'OBSERVE');
  assert.deepEqual(run.alert, { fingerprint: 'a1b2c3d4e5f60718', startsAt: '2026-11-29T09:50:00.123Z', repeats: 0 });
  const trigger = run.trigger as { kind: string; alert: { labels: Record<string, string> } };
  assert.equal(trigger.kind, 'alert');
  assert.equal(trigger.alert.labels.alertname, 'KubePodCrashLooping');
});

test('a repeat of a running or diagnosed alert starts no run and names the run it matched', async (t) => {
  const gate = createGate();
  const { call, waitForRun } = await startTestApp(t, { model: createInvestigatingModel({ gate: gate.wait }) });
  const first = (await call({ method: 'POST', url: webhook, scope: 'ingest', body: notification([firingAlert()]) })).json().runs[0];

  const whileRunning = (await call({ method: 'POST', url: webhook, scope: 'ingest', body: notification([firingAlert()]) })).json().runs[0];
  assert.deepEqual(whileRunning, { fingerprint: first.fingerprint, status: 'firing', outcome: 'duplicate', runId: first.runId });

  gate.open();
  await waitForRun(first.runId);
  const afterDiagnosis = (await call({ method: 'POST', url: webhook, scope: 'ingest', body: notification([firingAlert()]) })).json().runs[0];
  assert.equal(afterDiagnosis.outcome, 'duplicate');
  assert.equal(afterDiagnosis.runId, first.runId);

  const runs = (await call({ method: 'GET', url: '/v1/runs' })).json().runs;
  assert.equal(runs.length, 1);
  assert.equal(runs[0].alert.repeats, 2);
});

test('the same alert firing again later (new startsAt) starts a new run', async (t) => {
  const { call } = await startTestApp(t);
  const first = (await call({ method: 'POST', url: webhook, scope: 'ingest', body: notification([firingAlert()]) })).json().runs[0];
  const again = (await call({ method: 'POST', url: webhook, scope: 'ingest', body: notification([firingAlert({ startsAt: '2026-11-29T11:00:00Z' })]) })).json().runs[0];
  assert.equal(again.outcome, 'created');
  assert.notEqual(again.runId, first.runId);
});

test('after the dedup window a repeat of a diagnosed alert is diagnosed again', async (t) => {
  const { call, waitForRun } = await startTestApp(t, { runs: { dedupWindowMs: 1 } });
  const first = (await call({ method: 'POST', url: webhook, scope: 'ingest', body: notification([firingAlert()]) })).json().runs[0];
  await waitForRun(first.runId);
  await new Promise((resolve) => setTimeout(resolve, 5));
  const later = (await call({ method: 'POST', url: webhook, scope: 'ingest', body: notification([firingAlert()]) })).json().runs[0];
  assert.equal(later.outcome, 'created');
});

test('a run that failed does not swallow the repeat', async (t) => {
  const failing = { name: 'broken', createTurn: async () => Promise.reject(new Error('model down')) };
  const { call, waitForRun } = await startTestApp(t, { model: failing });
  const first = (await call({ method: 'POST', url: webhook, scope: 'ingest', body: notification([firingAlert()]) })).json().runs[0];
  const failed = await waitForRun(first.runId);
  assert.equal(failed.status, 'failed');
  assert.match(String(failed.reason), /model down/);
  const repeat = (await call({ method: 'POST', url: webhook, scope: 'ingest', body: notification([firingAlert()]) })).json().runs[0];
  assert.equal(repeat.outcome, 'created');
});

test('a resolved alert is recorded on its run; a run still queued for it is cancelled as resolved', async (t) => {
  const gate = createGate();
  const { call, waitForRun } = await startTestApp(t, { model: createInvestigatingModel({ gate: gate.wait }), runs: { concurrency: 1 } });
  const running = (await call({ method: 'POST', url: webhook, scope: 'ingest', body: notification([firingAlert({ fingerprint: 'aaaaaaaaaaaaaaaa' })]) })).json().runs[0];
  const queued = (await call({ method: 'POST', url: webhook, scope: 'ingest', body: notification([firingAlert({ fingerprint: 'bbbbbbbbbbbbbbbb' })]) })).json().runs[0];

  const resolved = await call({
    method: 'POST',
    url: webhook,
    scope: 'ingest',
    body: notification([
      firingAlert({ fingerprint: 'aaaaaaaaaaaaaaaa', status: 'resolved', endsAt: '2026-11-29T10:30:00Z' }),
      firingAlert({ fingerprint: 'bbbbbbbbbbbbbbbb', status: 'resolved', endsAt: '2026-11-29T10:31:00Z' }),
      firingAlert({ fingerprint: 'cccccccccccccccc', status: 'resolved' }),
    ]),
  });
  assert.equal(resolved.statusCode, 202);
  assert.deepEqual(
    resolved.json().runs.map((result: { outcome: string; runId?: string }) => [result.outcome, result.runId]),
    [
      ['resolved', running.runId],
      ['cancelled', queued.runId],
      ['unmatched', undefined],
    ],
  );

  const cancelled = await waitForRun(queued.runId);
  assert.equal(cancelled.status, 'failed');
  assert.match(String(cancelled.reason), /cancelled: the alert was resolved before the run started/);
  assert.equal((cancelled.alert as { resolvedAt: string }).resolvedAt, '2026-11-29T10:31:00.000Z');
  assert.equal(cancelled.attempts, 0);

  gate.open();
  const finished = await waitForRun(running.runId);
  assert.equal(finished.status, 'completed');
  assert.equal((finished.alert as { resolvedAt: string }).resolvedAt, '2026-11-29T10:30:00.000Z');
});

test('unknown fields are accepted and a missing fingerprint is derived from the labels', async (t) => {
  const { call } = await startTestApp(t);
  const alert = { ...firingAlert(), fingerprint: undefined, somethingNew: { nested: true } };
  const body = { ...notification([alert]), futureField: 'ignored' };
  const response = await call({ method: 'POST', url: webhook, scope: 'ingest', body });
  assert.equal(response.statusCode, 202);
  const [result] = response.json().runs;
  assert.match(result.fingerprint, /^[0-9a-f]{16}$/);
  const repeat = (await call({ method: 'POST', url: webhook, scope: 'ingest', body })).json().runs[0];
  assert.equal(repeat.outcome, 'duplicate');
});

test('one notification with several alerts starts a run for each, and a repeated one within it only once', async (t) => {
  const { call } = await startTestApp(t);
  const alerts = ['1111111111111111', '2222222222222222', '1111111111111111'].map((fingerprint) => firingAlert({ fingerprint }));
  const response = await call({ method: 'POST', url: webhook, scope: 'ingest', body: notification(alerts) });
  assert.deepEqual(response.json().runs.map((result: { outcome: string }) => result.outcome), ['created', 'created', 'duplicate']);
});

test('a full queue takes what fits and answers 503 with Retry-After; the retry only adds the rest', async (t) => {
  const gate = createGate();
  const { call } = await startTestApp(t, { model: createInvestigatingModel({ gate: gate.wait }), runs: { concurrency: 1, queueSize: 2 } });
  const alerts = ['1', '2', '3', '4'].map((digit) => firingAlert({ fingerprint: digit.repeat(16) }));
  const refused = await call({ method: 'POST', url: webhook, scope: 'ingest', body: notification(alerts) });
  assert.equal(refused.statusCode, 503);
  assert.match(String(refused.headers['retry-after']), /^\d+$/);
  assert.equal(refused.json().error, 'queue-full');
  const outcomes = refused.json().details.runs.map((result: { outcome: string }) => result.outcome);
  assert.deepEqual(outcomes, ['created', 'created', 'created', 'queue-full']);

  gate.open();
  let retry;
  do {
    retry = await call({ method: 'POST', url: webhook, scope: 'ingest', body: notification(alerts) });
  } while (retry.statusCode === 503);
  assert.equal(retry.statusCode, 202);
  assert.equal(retry.json().runs.filter((result: { outcome: string }) => result.outcome === 'created').length, 1);
  const runs = (await call({ method: 'GET', url: '/v1/runs' })).json().runs;
  assert.equal(runs.length, 4);
});
