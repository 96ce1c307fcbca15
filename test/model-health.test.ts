import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAnthropicModel } from '../src/agent/models/anthropic-model.ts';
import { createModelHealth, trackModelHealth } from '../src/agent/models/model-health.ts';
import type { ModelRequest } from '../src/agent/model.ts';
import { startFakeMessagesApi, type ScriptedAnswer } from './helpers/fake-messages-api.ts';
import { demoDiagnosis } from './helpers/fake-tools.ts';
import { startTestApp } from './helpers/service-app.ts';

const request = (signal = new AbortController().signal): ModelRequest => ({
  system: 's',
  trigger: { kind: 'incident', text: 'x' },
  transcript: [],
  tools: [],
  toolChoice: { type: 'auto' },
  signal,
});

test('the model counts as degraded after 3 failed calls in a row, and recovers on the next success', async () => {
  let clock = new Date('2026-12-01T10:00:00Z');
  const health = createModelHealth({ now: () => clock });
  let failing = true;
  const model = trackModelHealth(
    {
      name: 'flaky',
      async createTurn() {
        if (failing) throw new Error('Anthropic API 500: Internal server error');
        return {
          text: 'ok',
          calls: [],
          stopReason: 'end_turn',
          usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
        };
      },
    },
    health,
  );
  const attempt = () => model.createTurn(request()).catch(() => undefined);
  await attempt();
  await attempt();
  assert.equal(health.status().state, 'ok');
  clock = new Date('2026-12-01T10:05:00Z');
  await attempt();
  assert.deepEqual(health.status(), {
    state: 'degraded',
    consecutiveFailures: 3,
    lastError: 'Anthropic API 500: Internal server error',
    failingSince: new Date('2026-12-01T10:00:00Z'),
  });
  failing = false;
  await attempt();
  assert.deepEqual(health.status(), { state: 'ok', consecutiveFailures: 0 });
});

test('a call the run aborted (shutdown, timeout) is not counted against the model', async () => {
  const health = createModelHealth({ degradedAfter: 1 });
  const controller = new AbortController();
  const model = trackModelHealth(
    {
      name: 'slow',
      createTurn: async () => {
        controller.abort(new Error('shutting down'));
        throw new Error('aborted');
      },
    },
    health,
  );
  await assert.rejects(model.createTurn(request(controller.signal)));
  assert.equal(health.status().consecutiveFailures, 0);
});

test("/readyz says degraded with the model's last error while Claude keeps answering 500, and a gauge counts the failures", async (t) => {
  let answer: ScriptedAnswer = {
    status: 500,
    errorType: 'api_error',
    message: 'Internal server error',
    headers: { 'retry-after-ms': '1' },
  };
  const api = await startFakeMessagesApi(() => answer);
  t.after(() => api.close());
  const { app, waitForRun } = await startTestApp(t, {
    model: createAnthropicModel({
      apiKey: 'sk-ant-test-key-not-real',
      model: 'claude-test',
      baseUrl: api.url,
      maxRetries: 0,
      timeoutMs: 5000,
    }),
    runs: { concurrency: 1, queueSize: 10, dedupWindowMs: 3_600_000 },
    auth: { mode: 'off' },
  });

  const ready = async () => {
    const response = await app.inject({ method: 'GET', url: '/readyz' });
    return {
      statusCode: response.statusCode,
      body: response.json() as { status: string; checks: Record<string, string> },
    };
  };
  const gauge = async () => {
    const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    return Number(/^kubewhy_model_consecutive_failures (\d+)$/m.exec(text)?.[1]);
  };
  assert.deepEqual(await ready(), { statusCode: 200, body: { status: 'ok', checks: { store: 'ok', cluster: 'ok' } } });
  assert.equal(await gauge(), 0);

  const diagnose = async (): Promise<Record<string, unknown>> => {
    const created = await app.inject({
      method: 'POST',
      url: '/v1/incidents',
      payload: { text: `checkout-api restarts (${api.requests.length})`, namespace: 'staging' },
    });
    return waitForRun((created.json() as { id: string }).id);
  };
  const failed = await diagnose();
  assert.equal(failed.status, 'failed');
  assert.ok(api.requests.length >= 3, `the run's attempts each called the model (${api.requests.length})`);

  const degraded = await ready();
  assert.equal(degraded.statusCode, 200, 'still ready: ingest works while the model fails');
  assert.equal(degraded.body.status, 'degraded');
  assert.match(
    degraded.body.checks.model ?? '',
    new RegExp(`^degraded: ${api.requests.length} calls failed in a row since \\S+; last error: Anthropic API 500`),
  );
  assert.equal(await gauge(), api.requests.length);

  answer = { content: [{ type: 'tool_use', id: 'toolu_01', name: 'submit_diagnosis', input: demoDiagnosis }] };
  const completed = await diagnose();
  assert.equal(completed.status, 'completed');
  assert.deepEqual(await ready(), { statusCode: 200, body: { status: 'ok', checks: { store: 'ok', cluster: 'ok' } } });
  assert.equal(await gauge(), 0);
});
