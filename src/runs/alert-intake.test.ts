import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openDatabase } from '../store/database.ts';
import { createSqliteStores } from '../store/sqlite-stores.ts';
import {
  alertKeyOf,
  failureBackoffMs,
  isHeldBack,
  isRepeatOf,
  labelsFingerprint,
  takeNotification,
  type IncomingAlert,
} from './alert-intake.ts';

// Fingerprints a real Alertmanager (0.25, GET /api/v2/alerts) reported for these label sets.
const REPORTED_BY_ALERTMANAGER: { labels: Record<string, string>; fingerprint: string }[] = [
  { labels: { alertname: 'Watchdog' }, fingerprint: '003b0a0f7d3fa569' },
  {
    labels: {
      alertname: 'KubePodCrashLooping',
      namespace: 'staging',
      pod: 'checkout-api-7d9f8c6b5-x2k4q',
      container: 'app',
      severity: 'warning',
    },
    fingerprint: 'd48c33ff3a5fc78a',
  },
  // Non-ASCII names and values hash as UTF-8; Alertmanager drops a label whose value is empty.
  { labels: { zone: 'eu-west-1ä', alertname: 'Über', a: '' }, fingerprint: 'ed79f0de2b3c7945' },
];

test("a label set's fingerprint is the one Alertmanager reports for it", () => {
  for (const { labels, fingerprint } of REPORTED_BY_ALERTMANAGER)
    assert.equal(labelsFingerprint(labels), fingerprint, JSON.stringify(labels));
});

test('the fingerprint ignores the order of the labels, and an empty set hashes to the FNV offset', () => {
  assert.equal(
    labelsFingerprint({ severity: 'warning', alertname: 'X', namespace: 'shop' }),
    labelsFingerprint({ namespace: 'shop', alertname: 'X', severity: 'warning' }),
  );
  assert.equal(labelsFingerprint({}), 'cbf29ce484222325');
});

test('an alert with and without its fingerprint has one identity', () => {
  const labels = REPORTED_BY_ALERTMANAGER[1]!.labels;
  const sent = alertKeyOf({
    status: 'firing',
    labels,
    annotations: {},
    startsAt: '2026-11-29T09:50:00.123456789Z',
    fingerprint: 'd48c33ff3a5fc78a',
  });
  const derived = alertKeyOf({ status: 'firing', labels, annotations: {}, startsAt: '2026-11-29T09:50:00.123Z' });
  assert.deepEqual(derived, sent);
});

const settings = { dedupWindowMs: 3_600_000, failureBackoffMs: 60_000, failureBackoffMaxMs: 3_600_000 };
const now = new Date('2026-11-29T12:00:00Z');
const minutesAgo = (minutes: number): string => new Date(now.getTime() - minutes * 60_000).toISOString();

test('the failure backoff doubles per failure in a row, from one minute to at most an hour', () => {
  assert.deepEqual(
    [1, 2, 3, 4, 7, 8, 50].map((failures) => failureBackoffMs(failures, settings) / 60_000),
    [1, 2, 4, 8, 60, 60, 60],
  );
});

test('a failed run holds its incident back for its backoff; a cancelled one does not', () => {
  const failed = {
    id: 'r',
    status: 'failed' as const,
    createdAt: minutesAgo(10),
    earlierFailures: 0,
    cancelled: false,
  };
  assert.equal(isHeldBack({ ...failed, finishedAt: minutesAgo(0.5) }, { now, settings }), true);
  assert.equal(isHeldBack({ ...failed, finishedAt: minutesAgo(1.5) }, { now, settings }), false);
  assert.equal(isHeldBack({ ...failed, earlierFailures: 2, finishedAt: minutesAgo(3) }, { now, settings }), true);
  assert.equal(isHeldBack({ ...failed, earlierFailures: 2, finishedAt: minutesAgo(5) }, { now, settings }), false);
  assert.equal(isHeldBack({ ...failed, cancelled: true, finishedAt: minutesAgo(0.5) }, { now, settings }), false);
});

test('an open run, or one completed within the dedup window, absorbs repeats; a failed one never does', () => {
  const run = { id: 'r', createdAt: minutesAgo(90), earlierFailures: 0, cancelled: false };
  assert.equal(isRepeatOf({ ...run, status: 'queued' }, { now, settings }), true);
  assert.equal(isRepeatOf({ ...run, status: 'awaiting_approval' }, { now, settings }), true);
  assert.equal(isRepeatOf({ ...run, status: 'completed', finishedAt: minutesAgo(59) }, { now, settings }), true);
  assert.equal(isRepeatOf({ ...run, status: 'completed', finishedAt: minutesAgo(61) }, { now, settings }), false);
  assert.equal(isRepeatOf({ ...run, status: 'failed', finishedAt: minutesAgo(1) }, { now, settings }), false);
});

/** Takes `alerts` as one notification into a fresh store; answers the outcomes, with run ids numbered in order of creation. */
async function takeInFreshStore(notifications: IncomingAlert[][]): Promise<string[][]> {
  const store = createSqliteStores(openDatabase(':memory:')).runs;
  let next = 0;
  const outcomes: string[][] = [];
  // One notification after another, as they arrive.
  for (const alerts of notifications) {
    const report = await takeNotification(alerts, {
      store,
      now,
      settings,
      hasRoom: true,
      createRun: (input) =>
        store.create({
          id: `run-${++next}`,
          trigger: input.trigger,
          source: 'alertmanager',
          rung: 'OBSERVE',
          alert: input.alert,
          ...(input.culpritKeys ? { culpritKeys: input.culpritKeys } : {}),
          now,
        }),
    });
    outcomes.push(report.results.map((result) => `${result.outcome} ${result.runId ?? ''}`));
  }
  return outcomes;
}

const firing = (labels: Record<string, string>): IncomingAlert => ({
  status: 'firing',
  labels,
  annotations: {},
  startsAt: minutesAgo(5),
});
const quotaFull = firing({
  alertname: 'KubeQuotaFullyUsed',
  namespace: 'reports',
  resourcequota: 'compute-resources',
  resource: 'limits.memory',
});
const replicasMismatch = firing({
  alertname: 'KubeDeploymentReplicasMismatch',
  namespace: 'reports',
  deployment: 'report-api',
});

test("a quota alert joins the run of its namespace's workload that is short of replicas, wherever it stands in the notification", async () => {
  assert.deepEqual(await takeInFreshStore([[quotaFull, replicasMismatch]]), [['attached run-1', 'created run-1']]);
  assert.deepEqual(await takeInFreshStore([[replicasMismatch], [quotaFull]]), [['created run-1'], ['attached run-1']]);
});

test("a quota alert starts its own run beside a pod's crash loop or an autoscaler at its maximum", async () => {
  const crashLoop = firing({
    alertname: 'KubePodCrashLooping',
    namespace: 'reports',
    pod: 'report-api-6f58f6bfb9-mjcbt',
  });
  assert.deepEqual(await takeInFreshStore([[crashLoop, quotaFull]]), [['created run-1', 'created run-2']]);
  // Once the Deployment's own alert speaks for the pod's run, the quota joins it.
  assert.deepEqual(await takeInFreshStore([[crashLoop, replicasMismatch], [quotaFull]]), [
    ['created run-1', 'attached run-1'],
    ['attached run-1'],
  ]);
  // An autoscaler at its maximum runs every replica it may: the quota that stops a CronJob is another incident.
  const maxedOut = firing({
    alertname: 'KubeHpaMaxedOut',
    namespace: 'reports',
    horizontalpodautoscaler: 'report-worker',
  });
  assert.deepEqual(await takeInFreshStore([[maxedOut, quotaFull]]), [['created run-1', 'created run-2']]);
});
