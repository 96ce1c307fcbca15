import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  createGate,
  createInvestigatingModel,
  firingAlert,
  notification,
  startTestApp,
  type TestApp,
} from './helpers/service-app.ts';

const webhook = '/v1/alerts/alertmanager';

interface Result {
  fingerprint: string;
  status: string;
  outcome: string;
  runId?: string;
}

/** A firing alert about `pod` (in namespace staging) or with the given labels; the fingerprint is derived by kubewhy unless given. */
function podAlert(input: {
  pod?: string;
  labels?: Record<string, string>;
  alertname?: string;
  fingerprint?: string;
  startsAt?: string;
  status?: 'firing' | 'resolved';
  endsAt?: string;
}): Record<string, unknown> {
  const base = firingAlert({
    ...(input.startsAt ? { startsAt: input.startsAt } : {}),
    ...(input.status ? { status: input.status } : {}),
    ...(input.endsAt ? { endsAt: input.endsAt } : {}),
  });
  delete base.fingerprint;
  const labels = input.labels ?? {
    alertname: input.alertname ?? 'KubePodCrashLooping',
    namespace: 'staging',
    pod: input.pod ?? 'checkout-api-7d9f8c6b5-x2k4q',
    severity: 'warning',
  };
  return { ...base, labels, ...(input.fingerprint ? { fingerprint: input.fingerprint } : {}) };
}

async function send(
  call: TestApp['call'],
  alerts: Record<string, unknown>[],
): Promise<{ statusCode: number; results: Result[]; body: Record<string, unknown>; headers: Record<string, unknown> }> {
  const response = await call({ method: 'POST', url: webhook, scope: 'ingest', body: notification(alerts) });
  const body = response.json() as Record<string, unknown>;
  const results = (
    response.statusCode === 202 ? body.runs : (body.details as { runs: Result[] } | undefined)?.runs
  ) as Result[];
  return { statusCode: response.statusCode, results, body, headers: response.headers };
}

function counterValue(metrics: string, outcome: string): number {
  const match = new RegExp(`^kubewhy_alert_outcomes_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(metrics);
  return Number(match?.[1] ?? 0);
}

async function listRuns(call: TestApp['call']): Promise<Record<string, unknown>[]> {
  return (await call({ method: 'GET', url: '/v1/runs' })).json().runs as Record<string, unknown>[];
}

test('a firing alert starts one run with the alert as its trigger, and the run lists it', async (t) => {
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
  const alerts = run.alerts as {
    fingerprint: string;
    alertname: string;
    status: string;
    startsAt: string;
    repeats: number;
  }[];
  assert.equal(run.alertCount, 1);
  assert.deepEqual(
    alerts.map(({ fingerprint, alertname, status, startsAt, repeats }) => ({
      fingerprint,
      alertname,
      status,
      startsAt,
      repeats,
    })),
    [
      {
        fingerprint: 'a1b2c3d4e5f60718',
        alertname: 'KubePodCrashLooping',
        status: 'firing',
        startsAt: '2026-11-29T09:50:00.123Z',
        repeats: 0,
      },
    ],
  );
});

test('a repeat of a running or diagnosed alert starts no run and names the run it matched', async (t) => {
  const gate = createGate();
  const { call, waitForRun } = await startTestApp(t, { model: createInvestigatingModel({ gate: gate.wait }) });
  const first = (
    await call({ method: 'POST', url: webhook, scope: 'ingest', body: notification([firingAlert()]) })
  ).json().runs[0];

  const whileRunning = (
    await call({ method: 'POST', url: webhook, scope: 'ingest', body: notification([firingAlert()]) })
  ).json().runs[0];
  assert.deepEqual(whileRunning, {
    fingerprint: first.fingerprint,
    status: 'firing',
    outcome: 'duplicate',
    runId: first.runId,
  });

  gate.open();
  await waitForRun(first.runId);
  const afterDiagnosis = (
    await call({ method: 'POST', url: webhook, scope: 'ingest', body: notification([firingAlert()]) })
  ).json().runs[0];
  assert.equal(afterDiagnosis.outcome, 'duplicate');
  assert.equal(afterDiagnosis.runId, first.runId);

  const runs = await listRuns(call);
  assert.equal(runs.length, 1);
  assert.equal((runs[0]!.alert as { repeats: number }).repeats, 2);
});

test('two pods of one Deployment, and its other alerts, are one incident: one run lists them all', async (t) => {
  const gate = createGate();
  const { call, waitForRun } = await startTestApp(t, { model: createInvestigatingModel({ gate: gate.wait }) });
  const { results } = await send(call, [
    podAlert({ pod: 'checkout-api-7d9f8c6b5-x2k4q' }),
    podAlert({ pod: 'checkout-api-7d9f8c6b5-p6ff5' }),
    podAlert({
      labels: {
        alertname: 'KubeDeploymentReplicasMismatch',
        namespace: 'staging',
        deployment: 'checkout-api',
        job: 'kube-state-metrics',
      },
    }),
    podAlert({ pod: 'cart-6f58f6bfb9-mjcbt' }),
  ]);
  assert.deepEqual(
    results.map((result) => result.outcome),
    ['created', 'attached', 'attached', 'created'],
  );
  assert.equal(results[1]!.runId, results[0]!.runId);
  assert.equal(results[2]!.runId, results[0]!.runId);
  assert.notEqual(results[3]!.runId, results[0]!.runId);

  // A later notification with a new pod of the same Deployment joins the open run too.
  const later = await send(call, [podAlert({ pod: 'checkout-api-7d9f8c6b5-zsggr', alertname: 'KubePodNotReady' })]);
  assert.deepEqual(
    later.results.map((result) => [result.outcome, result.runId]),
    [['attached', results[0]!.runId]],
  );

  gate.open();
  const run = await waitForRun(results[0]!.runId!);
  assert.equal(run.alertCount, 4);
  // The Deployment's alert, broader than a pod's, became the trigger of the run its notification created.
  assert.equal(
    (run.trigger as { alert: { labels: Record<string, string> } }).alert.labels.alertname,
    'KubeDeploymentReplicasMismatch',
  );
  assert.deepEqual(
    (run.alerts as { alertname: string }[]).map((alert) => alert.alertname),
    ['KubePodCrashLooping', 'KubePodCrashLooping', 'KubeDeploymentReplicasMismatch', 'KubePodNotReady'],
  );
  assert.equal((await listRuns(call)).length, 2);

  const metrics = (await call({ method: 'GET', url: '/metrics', scope: null })).body;
  assert.match(metrics, /^kubewhy_alert_outcomes_total\{outcome="created"\} 2$/m);
  assert.match(metrics, /^kubewhy_alert_outcomes_total\{outcome="attached"\} 3$/m);
});

test('the same alert firing again (new startsAt) while its run is open or freshly diagnosed joins that run', async (t) => {
  const { call, waitForRun } = await startTestApp(t);
  const first = (
    await call({ method: 'POST', url: webhook, scope: 'ingest', body: notification([firingAlert()]) })
  ).json().runs[0];
  await waitForRun(first.runId);
  const again = (
    await call({
      method: 'POST',
      url: webhook,
      scope: 'ingest',
      body: notification([firingAlert({ startsAt: '2026-11-29T11:00:00Z' })]),
    })
  ).json().runs[0];
  assert.equal(again.outcome, 'attached');
  assert.equal(again.runId, first.runId);
});

test('after the dedup window a repeat of a diagnosed alert is diagnosed again', async (t) => {
  const { call, waitForRun } = await startTestApp(t, { runs: { dedupWindowMs: 1 } });
  const first = (
    await call({ method: 'POST', url: webhook, scope: 'ingest', body: notification([firingAlert()]) })
  ).json().runs[0];
  await waitForRun(first.runId);
  await new Promise((resolve) => setTimeout(resolve, 5));
  const later = (
    await call({ method: 'POST', url: webhook, scope: 'ingest', body: notification([firingAlert()]) })
  ).json().runs[0];
  assert.equal(later.outcome, 'created');
});

test('a failed run holds its incident back for a backoff that doubles per failure; then a repeat starts a new run', async (t) => {
  const failing = { name: 'broken', createTurn: async () => Promise.reject(new Error('model down')) };
  const { call, waitForRun } = await startTestApp(t, {
    model: failing,
    runs: { failureBackoffMs: 300, failureBackoffMaxMs: 60_000, maxAttempts: 1 },
  });
  const first = (await send(call, [podAlert({})])).results[0]!;
  const failed = await waitForRun(first.runId!);
  assert.equal(failed.status, 'failed');
  assert.match(String(failed.reason), /model down/);

  // Within the backoff: a repeat of the failed run, whichever pod of the incident fires.
  const held = (await send(call, [podAlert({}), podAlert({ pod: 'checkout-api-7d9f8c6b5-p6ff5' })])).results;
  assert.deepEqual(
    held.map((result) => [result.outcome, result.runId]),
    [
      ['duplicate', first.runId],
      ['duplicate', first.runId],
    ],
  );

  const retried = await pollOutcome(call, podAlert({}), 'created');
  assert.ok(Date.now() - Date.parse(String(failed.finishedAt)) >= 300);
  await waitForRun(retried.runId!);
  // The second failure in a row waits twice as long: at once, it is held back again.
  const heldAgain = (await send(call, [podAlert({})])).results[0]!;
  assert.deepEqual([heldAgain.outcome, heldAgain.runId], ['duplicate', retried.runId]);

  const metrics = (await call({ method: 'GET', url: '/metrics', scope: null })).body;
  assert.ok(counterValue(metrics, 'backoff') >= 3, 'held-back alerts are counted as backoff');
});

/** Sends `alert` until its outcome is `outcome` (polling, for a backoff to pass). */
async function pollOutcome(call: TestApp['call'], alert: Record<string, unknown>, outcome: string): Promise<Result> {
  for (let attempt = 0; attempt < 2000; attempt++) {
    const result = (await send(call, [alert])).results[0]!;
    if (result.outcome === outcome) return result;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`the alert never came out ${outcome}`);
}

test('a resolved alert is recorded on its run; a run still queued is cancelled once all of its alerts resolved', async (t) => {
  const gate = createGate();
  const { call, waitForRun } = await startTestApp(t, {
    model: createInvestigatingModel({ gate: gate.wait }),
    runs: { concurrency: 1, nodeIncidentHoldMs: 0 },
  });
  const running = (await send(call, [podAlert({ pod: 'cart-6f58f6bfb9-mjcbt', fingerprint: 'aaaaaaaaaaaaaaaa' })]))
    .results[0]!;
  const queued = (
    await send(call, [
      podAlert({ pod: 'checkout-api-7d9f8c6b5-x2k4q', fingerprint: 'bbbbbbbbbbbbbbbb' }),
      podAlert({ pod: 'checkout-api-7d9f8c6b5-p6ff5', fingerprint: 'dddddddddddddddd' }),
    ])
  ).results;
  assert.deepEqual(
    queued.map((result) => result.outcome),
    ['created', 'attached'],
  );

  const firstResolved = await send(call, [
    podAlert({
      pod: 'cart-6f58f6bfb9-mjcbt',
      fingerprint: 'aaaaaaaaaaaaaaaa',
      status: 'resolved',
      endsAt: '2026-11-29T10:30:00Z',
    }),
    podAlert({
      pod: 'checkout-api-7d9f8c6b5-x2k4q',
      fingerprint: 'bbbbbbbbbbbbbbbb',
      status: 'resolved',
      endsAt: '2026-11-29T10:31:00Z',
    }),
    podAlert({ pod: 'nothing-6f58f6bfb9-mjcbt', fingerprint: 'cccccccccccccccc', status: 'resolved' }),
  ]);
  assert.equal(firstResolved.statusCode, 202);
  // One of the queued run's two alerts still fires: the run stays queued.
  assert.deepEqual(
    firstResolved.results.map((result) => [result.outcome, result.runId]),
    [
      ['resolved', running.runId],
      ['resolved', queued[0]!.runId],
      ['unmatched', undefined],
    ],
  );
  const stillQueued = (await call({ method: 'GET', url: `/v1/runs/${queued[0]!.runId}` })).json();
  assert.equal(stillQueued.status, 'queued');
  assert.deepEqual(
    stillQueued.alerts.map((alert: { status: string }) => alert.status),
    ['resolved', 'firing'],
  );

  const lastResolved = await send(call, [
    podAlert({
      pod: 'checkout-api-7d9f8c6b5-p6ff5',
      fingerprint: 'dddddddddddddddd',
      status: 'resolved',
      endsAt: '2026-11-29T10:32:00Z',
    }),
  ]);
  assert.deepEqual(
    lastResolved.results.map((result) => [result.outcome, result.runId]),
    [['cancelled', queued[0]!.runId]],
  );

  const cancelled = await waitForRun(queued[0]!.runId!);
  assert.equal(cancelled.status, 'failed');
  assert.match(String(cancelled.reason), /cancelled: the alert was resolved before the run started/);
  assert.equal((cancelled.alert as { resolvedAt: string }).resolvedAt, '2026-11-29T10:32:00.000Z');
  assert.equal(cancelled.attempts, 0);

  gate.open();
  const finished = await waitForRun(running.runId!);
  assert.equal(finished.status, 'completed');
  assert.equal((finished.alert as { resolvedAt: string }).resolvedAt, '2026-11-29T10:30:00.000Z');

  // The incident fires again after its run was cancelled: no backoff. The other run has since diagnosed checkout-api
  // (this model names it whatever the alert), so it answers for that workload now: the alert joins it.
  const refired = (
    await send(call, [podAlert({ pod: 'checkout-api-7d9f8c6b5-x2k4q', startsAt: '2026-11-29T11:00:00Z' })])
  ).results[0]!;
  assert.deepEqual([refired.outcome, refired.runId], ['attached', running.runId]);
});

test('an alert sent without its fingerprint is the same alert as with the one Alertmanager gives it', async (t) => {
  const { call } = await startTestApp(t);
  // Alertmanager reports d48c33ff3a5fc78a for these labels (alert-intake.test.ts).
  const labels = {
    alertname: 'KubePodCrashLooping',
    namespace: 'staging',
    pod: 'checkout-api-7d9f8c6b5-x2k4q',
    container: 'app',
    severity: 'warning',
  };
  const withFingerprint = (await send(call, [podAlert({ labels, fingerprint: 'd48c33ff3a5fc78a' })])).results[0]!;
  assert.equal(withFingerprint.outcome, 'created');
  const alert = { ...podAlert({ labels }), somethingNew: { nested: true } };
  const body = { ...notification([alert]), futureField: 'ignored' };
  const response = await call({ method: 'POST', url: webhook, scope: 'ingest', body });
  assert.equal(response.statusCode, 202);
  assert.deepEqual(response.json().runs, [
    { fingerprint: 'd48c33ff3a5fc78a', status: 'firing', outcome: 'duplicate', runId: withFingerprint.runId },
  ]);
  assert.equal((await listRuns(call)).length, 1);
});

test('alerts about a node correlate on the node; alerts about nothing in particular each start their own run', async (t) => {
  const { call } = await startTestApp(t);
  const { results } = await send(call, [
    podAlert({ labels: { alertname: 'KubeNodeNotReady', node: 'worker-1', job: 'kube-state-metrics' } }),
    podAlert({ labels: { alertname: 'KubeNodePressure', node: 'worker-1', condition: 'MemoryPressure' } }),
    podAlert({ labels: { alertname: 'KubeCPUOvercommit', severity: 'warning' } }),
    podAlert({ labels: { alertname: 'KubeMemoryOvercommit', severity: 'warning' } }),
  ]);
  assert.deepEqual(
    results.map((result) => result.outcome),
    ['created', 'attached', 'created', 'created'],
  );
  assert.equal(results[1]!.runId, results[0]!.runId);
});

test('one notification: a repeated alert within it counts once', async (t) => {
  const { call } = await startTestApp(t);
  const alerts = ['1111111111111111', '2222222222222222', '1111111111111111'].map((fingerprint, index) =>
    podAlert({ labels: { alertname: `Custom${index % 2}`, team: 'x' }, fingerprint }),
  );
  const { results } = await send(call, alerts);
  assert.deepEqual(
    results.map((result) => result.outcome),
    ['created', 'created', 'duplicate'],
  );
});

test('a full queue refuses a notification that needs a run whole (503, Retry-After, nothing kept); the retry takes all of it', async (t) => {
  const gate = createGate();
  const { call } = await startTestApp(t, {
    model: createInvestigatingModel({ gate: gate.wait }),
    runs: { concurrency: 1, queueSize: 1 },
  });
  // Room for two (a free worker and one queue place), but a notification is taken whole: all three.
  const whole = await send(
    call,
    ['alpha', 'beta', 'gamma'].map((name) => podAlert({ pod: `${name}-7d9f8c6b5-x2k4q` })),
  );
  assert.equal(whole.statusCode, 202);
  assert.deepEqual(
    whole.results.map((result) => result.outcome),
    ['created', 'created', 'created'],
  );

  const alerts = [
    podAlert({ pod: 'alpha-7d9f8c6b5-p6ff5' }),
    podAlert({ pod: 'delta-7d9f8c6b5-x2k4q' }),
    podAlert({ pod: 'epsilon-7d9f8c6b5-x2k4q' }),
  ];
  const refused = await send(call, alerts);
  assert.equal(refused.statusCode, 503);
  assert.match(String(refused.headers['retry-after']), /^\d+$/);
  assert.equal(refused.body.error, 'queue-full');
  assert.deepEqual(
    refused.results.map((result) => result.outcome),
    ['queue-full', 'queue-full', 'queue-full'],
  );
  const afterRefusal = await listRuns(call);
  assert.equal(afterRefusal.length, 3);
  assert.ok(
    afterRefusal.every((run) => run.alertCount === 1),
    'the alpha alert was not kept either',
  );

  // A notification that needs no new run is taken even with the queue full.
  const attachOnly = await send(call, [podAlert({ pod: 'beta-7d9f8c6b5-p6ff5' })]);
  assert.deepEqual([attachOnly.statusCode, attachOnly.results[0]!.outcome], [202, 'attached']);

  gate.open();
  let retry;
  do {
    retry = await send(call, alerts);
  } while (retry.statusCode === 503);
  assert.equal(retry.statusCode, 202);
  assert.deepEqual(
    retry.results.map((result) => result.outcome),
    ['attached', 'created', 'created'],
  );
  assert.equal((await listRuns(call)).length, 5);
  const metrics = (await call({ method: 'GET', url: '/metrics', scope: null })).body;
  assert.ok(counterValue(metrics, 'refused') >= 3, 'every alert of a refused notification is counted');
});

test("a CronJob's failed Jobs are one incident, and its latest Job's alert is the trigger", async (t) => {
  const gate = createGate();
  const { call, waitForRun } = await startTestApp(t, { model: createInvestigatingModel({ gate: gate.wait }) });
  const jobAlert = (job: string): Record<string, unknown> =>
    podAlert({ labels: { alertname: 'KubeJobFailed', namespace: 'finance', job_name: job, condition: 'true' } });
  const { results } = await send(call, [
    jobAlert('nightly-report-29400480'),
    jobAlert('nightly-report-29410560'),
    jobAlert('nightly-report-29390400'),
  ]);
  assert.deepEqual(
    results.map((result) => result.outcome),
    ['created', 'attached', 'attached'],
  );
  gate.open();
  const run = await waitForRun(results[0]!.runId!);
  assert.equal(
    (run.trigger as { alert: { labels: Record<string, string> } }).alert.labels.job_name,
    'nightly-report-29410560',
  );
});
