/**
 * Large alert groups through a real Alertmanager (Debian's `prometheus-alertmanager`) to
 * `kubewhy serve`: alerts labelled as kube-prometheus-stack labels them are posted to
 * Alertmanager's API v2 in batches, its route puts them all in one group (`group_by: []`)
 * and sends that group as one webhook notification once every batch is in. kubewhy must
 * take it whole (no 413, no 503 for part of it), account for every alert on a run, and
 * correlate the pods of one Deployment into one run.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { labelsFingerprint } from '../src/runs/alert-intake.ts';
import { kubePrometheusAlerts, type PostableAlert } from './helpers/e2e-alert-groups.ts';
import { hasAlertmanager, startAlertmanager, type Alertmanager } from './helpers/service-alertmanager.ts';
import { pollUntil, startServiceProcess, writeTokensDir, type ServiceProcess } from './helpers/service-process.ts';

const INGEST = 'alert-groups-ingest-token-0123456789';
const READ = 'alert-groups-read-token-0123456789';
const BATCH = 500;
/**
 * Long enough for every batch to reach Alertmanager before it sends the group. The alerts
 * start now: Alertmanager sends a group at once when an alert of it started more than
 * group_wait ago.
 */
const GROUP_WAIT_SECONDS = 10;

const skip = hasAlertmanager()
  ? false
  : 'prometheus-alertmanager is not installed (apt-get install prometheus-alertmanager)';

interface RunView {
  id: string;
  alertCount?: number;
  alerts?: { fingerprint: string; labels: Record<string, string> }[];
}

interface Chain {
  service: ServiceProcess;
  alertmanager: Alertmanager;
  context(): string;
}

/** kubewhy (offline engine, mock cluster) behind an Alertmanager that puts every alert in one group. */
async function startChain(t: TestContext, environment: Record<string, string> = {}): Promise<Chain> {
  const directory = await mkdtemp(join(tmpdir(), 'kubewhy-alert-groups-'));
  t.after(() => rm(directory, { recursive: true, force: true }));
  const tokens = await writeTokensDir(directory, { ingest: INGEST, read: READ });
  const service = await startServiceProcess({
    KUBEWHY_DATA_DIR: join(directory, 'data'),
    KUBEWHY_TOKENS_DIR: tokens,
    KUBEWHY_SHUTDOWN_GRACE_SECONDS: '0',
    KUBEWHY_CONCURRENCY: '1',
    ...environment,
  });
  t.after(() => service.stop());
  const alertmanager = await startAlertmanager({
    directory,
    webhookUrl: `${service.url}/v1/alerts/alertmanager`,
    credentialsFile: join(tokens, 'ingest'),
    grouping: { groupBy: [], groupWait: `${GROUP_WAIT_SECONDS}s`, groupInterval: '10m', repeatInterval: '1h' },
  });
  t.after(() => alertmanager.stop());
  return {
    service,
    alertmanager,
    context: () => `kubewhy:\n${service.output().slice(-4000)}\nalertmanager:\n${alertmanager.output().slice(-4000)}`,
  };
}

async function postInBatches(alertmanager: Alertmanager, alerts: PostableAlert[]): Promise<void> {
  const started = Date.now();
  for (let index = 0; index < alerts.length; index += BATCH)
    await alertmanager.postAlerts(alerts.slice(index, index + BATCH));
  const seconds = (Date.now() - started) / 1000;
  assert.ok(
    seconds < GROUP_WAIT_SECONDS * 0.8,
    `posting took ${seconds}s: the group may have been sent before every batch was in`,
  );
}

function kubewhyCounter(metrics: string, name: string, labels: string): number {
  const line = metrics.split('\n').find((candidate) => candidate.startsWith(`${name}{${labels}} `));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

/** Waits until kubewhy has taken `count` firing alerts, created or attached, and answers its metrics. */
async function waitForAlertsTaken(chain: Chain, count: number): Promise<string> {
  return pollUntil(
    async () => {
      const failed = await chain.alertmanager.metric(
        'alertmanager_notifications_failed_total',
        /integration="webhook"/,
      );
      if (failed > 0) throw new Error(`Alertmanager failed to deliver ${failed} notification(s)\n${chain.context()}`);
      const metrics = (await chain.service.request({ path: '/metrics' })).text;
      const taken =
        kubewhyCounter(metrics, 'kubewhy_alert_outcomes_total', 'outcome="created"') +
        kubewhyCounter(metrics, 'kubewhy_alert_outcomes_total', 'outcome="attached"');
      return taken >= count ? metrics : undefined;
    },
    { timeoutMs: 120_000, what: `kubewhy to take ${count} alerts`, intervalMs: 250 },
  );
}

/** Checks Alertmanager sent the webhook without a failure, and that kubewhy answered only 202s. */
async function assertDeliveredWithoutError(chain: Chain, metrics: string): Promise<void> {
  const webhook = /integration="webhook"/;
  assert.ok((await chain.alertmanager.metric('alertmanager_notifications_total', webhook)) >= 1, chain.context());
  assert.equal(
    await chain.alertmanager.metric('alertmanager_notifications_failed_total', webhook),
    0,
    `a notification failed\n${chain.context()}`,
  );
  for (const outcome of ['invalid', 'unavailable', 'error']) {
    assert.equal(
      kubewhyCounter(metrics, 'kubewhy_webhook_requests_total', `route="/v1/alerts/alertmanager",outcome="${outcome}"`),
      0,
      `kubewhy answered ${outcome}`,
    );
  }
  assert.equal(kubewhyCounter(metrics, 'kubewhy_alert_outcomes_total', 'outcome="refused"'), 0);
}

async function listAllRuns(service: ServiceProcess): Promise<RunView[]> {
  const runs: RunView[] = [];
  let cursor: number | undefined;
  do {
    const response = await service.request({
      path: `/v1/runs?limit=200${cursor ? `&cursor=${cursor}` : ''}`,
      token: READ,
    });
    const page = response.body as { runs: RunView[]; nextCursor?: number };
    runs.push(...page.runs);
    cursor = page.nextCursor;
  } while (cursor);
  return runs;
}

test(
  'a real Alertmanager sends a 5,000-alert group as one notification: taken whole, every alert on a run, one run per Deployment',
  { skip, timeout: 300_000 },
  async (t) => {
    const chain = await startChain(t);
    const alerts = kubePrometheusAlerts({
      count: 5000,
      workloads: 50,
      startsAt: new Date().toISOString(),
      cluster: 'prod-eu-west-1',
    });
    await postInBatches(chain.alertmanager, alerts);

    // The identity kubewhy derives for an alert sent without a fingerprint is the one Alertmanager gives it.
    const held = await chain.alertmanager.listAlerts();
    assert.equal(held.length, 5000);
    const mismatched = held.filter((alert) => labelsFingerprint(alert.labels) !== alert.fingerprint);
    assert.deepEqual(mismatched.slice(0, 3), [], `${mismatched.length} fingerprints differ from Alertmanager's`);

    const metrics = await waitForAlertsTaken(chain, 5000);
    await assertDeliveredWithoutError(chain, metrics);
    const latency = await chain.alertmanager.metric(
      'alertmanager_notification_latency_seconds_sum',
      /integration="webhook"/,
    );
    t.diagnostic(
      `webhook notification of 5,000 alerts: ${latency.toFixed(2)}s from Alertmanager's send to kubewhy's 202`,
    );

    const runs = await listAllRuns(chain.service);
    assert.equal(runs.length, 50, 'one run per Deployment');
    const seen = new Map<string, string>();
    for (const summary of runs) {
      const run = (await chain.service.request({ path: `/v1/runs/${summary.id}`, token: READ })).body as RunView;
      const deployments = new Set((run.alerts ?? []).map((alert) => alert.labels.pod?.replace(/-[^-]+-[^-]+$/, '')));
      assert.equal(
        deployments.size,
        1,
        `run ${run.id} holds the pods of one Deployment: ${[...deployments].join(', ')}`,
      );
      assert.equal(run.alertCount, 100);
      for (const alert of run.alerts ?? []) {
        assert.ok(!seen.has(alert.fingerprint), `alert ${alert.fingerprint} is on two runs`);
        seen.set(alert.fingerprint, run.id);
      }
    }
    const missing = held.filter((alert) => !seen.has(alert.fingerprint));
    assert.equal(
      missing.length,
      0,
      `alerts on no run: ${missing
        .slice(0, 3)
        .map((alert) => JSON.stringify(alert.labels))
        .join('; ')}`,
    );
    assert.equal(seen.size, 5000);
  },
);

test(
  'a 2,000-alert group about 2,000 Deployments, more new runs than the queue has room for, is taken whole, not in part',
  { skip, timeout: 300_000 },
  async (t) => {
    const chain = await startChain(t, { KUBEWHY_QUEUE_SIZE: '1000' });
    const alerts = kubePrometheusAlerts({ count: 2000, workloads: 2000, startsAt: new Date().toISOString() });
    await postInBatches(chain.alertmanager, alerts);
    const metrics = await waitForAlertsTaken(chain, 2000);
    await assertDeliveredWithoutError(chain, metrics);
    assert.equal(kubewhyCounter(metrics, 'kubewhy_alert_outcomes_total', 'outcome="created"'), 2000);
    const runs = await listAllRuns(chain.service);
    assert.equal(runs.length, 2000);
    t.diagnostic(`runs: ${runs.length} for 2,000 alerts about 2,000 Deployments; queue size 1,000`);
  },
);
