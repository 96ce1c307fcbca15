import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { createInvestigatingModel, firingAlert, notification, startTestApp } from './helpers/service-app.ts';

const promtool = spawnSync('promtool', ['--version']).status === 0;

/** The value of one series in Prometheus text format, 0 when absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

test('the counters move as runs go through', async (t) => {
  const undo = { id: 'call-undo', name: 'rollout_undo', input: { namespace: 'staging', name: 'checkout-api' } };
  const describe = {
    id: 'call-describe',
    name: 'describe_pod',
    input: { namespace: 'staging', name: 'checkout-api-7d9f8c6b5-x2k4q' },
  };
  const { call, waitForRun } = await startTestApp(t, {
    model: createInvestigatingModel({
      firstCalls: [describe, undo, { id: 'call-made-up', name: 'made_up_tool', input: {} }],
    }),
  });
  const before = (await call({ method: 'GET', url: '/metrics', scope: null })).body;
  assert.equal(sample(before, 'kubewhy_runs_total{trigger="alert",outcome="completed"}'), 0);
  assert.equal(sample(before, 'kubewhy_build_info{version="test"}'), 1);

  const created = (
    await call({ method: 'POST', url: '/v1/alerts/alertmanager', scope: 'ingest', body: notification([firingAlert()]) })
  ).json().runs[0];
  await waitForRun(created.runId);
  await call({
    method: 'POST',
    url: '/v1/alerts/alertmanager',
    scope: 'ingest',
    body: notification([firingAlert(), firingAlert({ status: 'resolved' })]),
  });
  await call({ method: 'POST', url: '/v1/alerts/alertmanager', scope: null, body: notification([firingAlert()]) });
  await call({ method: 'POST', url: '/v1/incidents', scope: 'ingest', body: { nothing: true } });

  const after = (await call({ method: 'GET', url: '/metrics', scope: null })).body;
  const expectations: [string, number][] = [
    ['kubewhy_runs_total{trigger="alert",outcome="completed"}', 1],
    ['kubewhy_alerts_received_total{status="firing"}', 2],
    ['kubewhy_alerts_received_total{status="resolved"}', 1],
    ['kubewhy_alerts_deduplicated_total', 1],
    ['kubewhy_webhook_requests_total{route="/v1/alerts/alertmanager",outcome="accepted"}', 2],
    ['kubewhy_webhook_requests_total{route="/v1/alerts/alertmanager",outcome="unauthorized"}', 1],
    ['kubewhy_webhook_requests_total{route="/v1/incidents",outcome="invalid"}', 1],
    ['kubewhy_model_requests_total{model="fake-investigator",outcome="ok"}', 2],
    ['kubewhy_model_tokens_total{model="fake-investigator",type="input"}', 200],
    ['kubewhy_model_request_duration_seconds_count{model="fake-investigator"}', 2],
    ['kubewhy_tool_calls_total{tool="describe_pod",risk="read",outcome="ok"}', 1],
    ['kubewhy_tool_calls_total{tool="rollout_undo",risk="write",outcome="ok"}', 1],
    ['kubewhy_tool_calls_total{tool="unknown",risk="unknown",outcome="unknown-tool"}', 1],
    ['kubewhy_gate_decisions_total{risk="write",decision="propose"}', 1],
    ['kubewhy_gate_decisions_total{risk="read",decision="execute"}', 1],
    ['kubewhy_diagnoses_total{category="bad-credentials"}', 1],
    ['kubewhy_run_duration_seconds_count', 1],
    ['kubewhy_runs_in_progress', 0],
    ['kubewhy_run_queue_depth', 0],
  ];
  for (const [series, value] of expectations) assert.equal(sample(after, series), value, series);
  assert.ok(!after.includes(created.runId), 'no run id in any label');
  assert.ok(!after.includes('a1b2c3d4e5f60718'), 'no fingerprint in any label');
  assert.match(after, /^process_cpu_seconds_total /m);
});

test(
  'promtool check metrics finds nothing to fix',
  { skip: promtool ? false : 'promtool is not installed (Debian package prometheus)' },
  async (t) => {
    const { call, waitForRun } = await startTestApp(t);
    const { id } = (
      await call({ method: 'POST', url: '/v1/incidents', scope: 'ingest', body: { text: 'checkout is down' } })
    ).json();
    await waitForRun(id);
    const text = (await call({ method: 'GET', url: '/metrics', scope: null })).body;
    const result = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    assert.equal(result.status, 0, `${result.stdout}${result.stderr}`);
    assert.equal(`${result.stdout}${result.stderr}`.trim(), '');
  },
);
