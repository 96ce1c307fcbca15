import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAnthropicModel, retryAfterOf } from '../src/agent/models/anthropic-model.ts';
import { chooseModel, countModelFailures, noteFallback } from '../src/agent/models/model-fallback.ts';
import { ModelError, RUN_RETRY_MAX_MS, runRetryDelayMs } from '../src/agent/model.ts';
import { createOfflineModel } from '../src/agent/offline/offline-model.ts';
import { startFakeMessagesApi } from './helpers/fake-messages-api.ts';
import { runClaude } from './helpers/model-run.ts';
import { startTestApp } from './helpers/service-app.ts';

const overloaded = (headers: Record<string, string>) => ({
  status: 529,
  errorType: 'overloaded_error',
  message: 'Overloaded',
  headers,
});

test('a retryable failure that outlasts the SDK retries says when to try the run again, as the API asked', async () => {
  const { outcome, audit } = await runClaude([overloaded({ 'retry-after': '7' })]);
  assert.equal(outcome.status, 'failed');
  assert.match(outcome.reason ?? '', /model error: Anthropic API 529/);
  assert.deepEqual(outcome.retry, { afterMs: 7000 });
  const error = audit.events.find((event) => event.type === 'error');
  assert.equal(error?.payload.retryable, true);
});

test('without retry-after the wait doubles with each attempt of the run', async () => {
  const first = await runClaude([overloaded({})], { attempt: 1 });
  const third = await runClaude(
    [{ status: 500, errorType: 'api_error', message: 'Internal server error', headers: {} }],
    { attempt: 3 },
  );
  assert.deepEqual(first.outcome.retry, { afterMs: 30_000 });
  assert.deepEqual(third.outcome.retry, { afterMs: 120_000 });
});

test('a failure that will not change on a retry (400, 401) says nothing about retrying', async () => {
  for (const answer of [
    { status: 400, errorType: 'invalid_request_error', message: 'messages: roles must alternate' },
    { status: 401, errorType: 'authentication_error', message: 'invalid x-api-key' },
  ]) {
    const { outcome } = await runClaude([answer]);
    assert.equal(outcome.status, 'failed');
    assert.match(outcome.reason ?? '', new RegExp(`Anthropic API ${answer.status}`));
    assert.equal(outcome.retry, undefined);
  }
});

test('the wait before a retry is capped, whatever the attempt or the API asked', () => {
  assert.equal(runRetryDelayMs(new ModelError('x', { retryable: true }), 12), RUN_RETRY_MAX_MS);
  assert.equal(runRetryDelayMs(new ModelError('x', { retryable: true, retryAfterMs: 3_600_000 }), 1), RUN_RETRY_MAX_MS);
  assert.equal(runRetryDelayMs(new ModelError('x', { retryable: true, retryAfterMs: 1500 }), 4), 1500);
});

test('from the configured attempt on, a run whose model keeps failing is diagnosed by the offline engine, and says so', async (t) => {
  // The API asks for a 1 ms wait: the run layer queues the run again at once.
  const api = await startFakeMessagesApi(() => overloaded({ 'retry-after-ms': '1' }));
  t.after(() => api.close());
  const { app, waitForRun } = await startTestApp(t, {
    model: createAnthropicModel({
      apiKey: 'sk-ant-test-key-not-real',
      model: 'claude-test',
      baseUrl: api.url,
      maxRetries: 0,
      timeoutMs: 5000,
    }),
    fallback: { model: createOfflineModel(), afterAttempts: 2 },
    runs: { concurrency: 1, queueSize: 10, dedupWindowMs: 3_600_000 },
    auth: { mode: 'off' },
  });

  const created = await app.inject({
    method: 'POST',
    url: '/v1/incidents',
    payload: { text: 'checkout-api in staging keeps restarting', namespace: 'staging' },
  });
  assert.equal(created.statusCode, 202);
  const id = (created.json() as { id: string }).id;
  const run = await waitForRun(id);
  assert.equal(api.requests.length, 1, 'Claude was asked on the first attempt only');
  const note = 'model claude-test failed 1 time; diagnosed by the offline engine';
  assert.equal(run.status, 'completed');
  assert.match(
    (run.diagnosis as { summary: string }).summary,
    /\(Model claude-test failed 1 time; diagnosed by the offline engine\.\)$/,
  );
  const response = await app.inject({ method: 'GET', url: `/v1/runs/${id}/audit` });
  const body = response.json() as { events?: AuditLine[] } | AuditLine[];
  const events = Array.isArray(body) ? body : (body.events ?? []);
  const errors = events.filter((event) => event.type === 'error').map((event) => event.payload.message);
  assert.equal(errors.length, 2, JSON.stringify(errors));
  assert.match(String(errors[0]), /model error: Anthropic API 529/);
  assert.equal(errors[1], note);
  // The failed attempt that was retried did not end the run in its audit chain: one run-finished, at the real end.
  assert.deepEqual(
    events.filter((event) => event.type === 'run-finished' || event.type === 'error').map((event) => event.type),
    ['error', 'error', 'run-finished'],
  );
});

type AuditLine = { type: string; payload: { message?: string } };

test('retry-after is read as milliseconds, seconds or an HTTP date', () => {
  const now = Date.parse('2026-12-01T10:00:00Z');
  assert.equal(retryAfterOf(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now), 250);
  assert.equal(retryAfterOf(new Headers({ 'retry-after': '9' }), now), 9000);
  assert.equal(retryAfterOf(new Headers({ 'retry-after': 'Tue, 01 Dec 2026 10:00:42 GMT' }), now), 42_000);
  assert.equal(retryAfterOf(new Headers({ 'retry-after': 'soon' }), now), undefined);
  assert.equal(retryAfterOf(undefined, now), undefined);
});

test('the fallback takes over only from the configured attempt, after model failures, and never mid-checkpoint', () => {
  const claude = { name: 'claude-test', createTurn: () => Promise.reject(new Error('unused')) };
  const offline = createOfflineModel();
  const base = { model: claude, fallbackModel: offline, fallbackAfterAttempts: 3, resuming: false };
  assert.equal(chooseModel({ ...base, attempt: 2, modelFailures: 1 }).model, claude, 'before the configured attempt');
  assert.equal(
    chooseModel({ ...base, attempt: 3, modelFailures: 0 }).model,
    claude,
    'started again for another reason (a restart, an approval)',
  );
  assert.equal(
    chooseModel({ ...base, attempt: 3, modelFailures: 2, resuming: true }).model,
    claude,
    'a checkpoint goes on with its own model',
  );
  assert.equal(
    chooseModel({ model: claude, attempt: 9, modelFailures: 8, resuming: false }).model,
    claude,
    'no fallback configured',
  );
  const choice = chooseModel({ ...base, attempt: 3, modelFailures: 2 });
  assert.equal(choice.model, offline);
  assert.equal(choice.fallbackNote, 'model claude-test failed 2 times; diagnosed by the offline engine');
  const failed = noteFallback(
    {
      status: 'failed',
      reason: 'the step cap of 12 was reached without a diagnosis',
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      steps: 12,
      toolCalls: [],
      actions: [],
    },
    choice.fallbackNote!,
  );
  assert.equal(
    failed.reason,
    'the step cap of 12 was reached without a diagnosis (model claude-test failed 2 times; diagnosed by the offline engine)',
  );
});

test('model failures are counted from the retryable error events of the run', () => {
  const events = [
    {
      type: 'error',
      payload: {
        message: 'model error: Anthropic API 529: overloaded_error: Overloaded',
        retryable: true,
        retryAfterMs: 30_000,
      },
    },
    { type: 'error', payload: { message: 'model error: Anthropic API 400: invalid_request_error: bad' } },
    { type: 'tool-result', payload: { retryable: true } },
    { type: 'error', payload: { message: 'model error: Anthropic API 500: api_error: boom', retryable: true } },
  ];
  assert.equal(countModelFailures(events), 2);
});
