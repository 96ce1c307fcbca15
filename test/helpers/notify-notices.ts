/**
 * Realistic notices for the channel tests and the docs example: a checkout-api whose
 * database password was rotated (an alert run with a culprit, evidence and a held
 * rollout_undo with its diff), the same run failed, and its alerts resolved. Each is a
 * `RunView` as the API would show it, checked against `runViewSchema` so a drift in the
 * API's shape breaks these fixtures rather than passing silently.
 */
import { runViewSchema } from '../../src/server/schemas.ts';
import type { RunView } from '../../src/runs/run-view.ts';
import type { Notice } from '../../src/notify/notice.ts';

export const RUN_URL = 'https://kubewhy.example.com/runs/run-7f3c2a';

const heldRollback: RunView['actions'][number] = {
  id: 'act-1',
  tool: 'rollout_undo',
  args: { namespace: 'staging', name: 'checkout-api', kind: 'Deployment' },
  risk: 'write',
  status: 'awaiting_approval',
  reason:
    'Revision 4 points DB_PASSWORD at password-old, which the database no longer accepts; revision 3 used the current key.',
  expiresAt: '2026-12-02T09:30:00.000Z',
  diff: [
    'Deployment staging/checkout-api: pod template of revision 4 → that of revision 3 (rolled out as a new revision)',
    'app: env DB_PASSWORD: secretKeyRef checkout-db/password-old → secretKeyRef checkout-db/password',
  ],
};

const proposedRestart: RunView['actions'][number] = {
  id: 'act-2',
  tool: 'rollout_restart',
  args: { namespace: 'staging', name: 'checkout-api' },
  risk: 'write',
  status: 'proposed',
};

/** A completed alert run: bad credentials in staging/checkout-api, a rollback held for approval. */
export function buildDiagnosedRun(): RunView {
  return runViewSchema.parse({
    id: 'run-7f3c2a',
    status: 'awaiting_approval',
    source: 'alertmanager',
    trigger: {
      kind: 'alert',
      alert: {
        labels: {
          alertname: 'KubePodCrashLooping',
          namespace: 'staging',
          pod: 'checkout-api-6d5f7c9b8-x2kqj',
          severity: 'critical',
        },
        annotations: { summary: 'Pod staging/checkout-api-6d5f7c9b8-x2kqj is crash looping' },
        startsAt: '2026-12-02T08:41:00.000Z',
        fingerprint: '3c1d9e0a7b2f4c58',
      },
    },
    rung: 'ACT',
    namespace: 'staging',
    alerts: [
      {
        fingerprint: '3c1d9e0a7b2f4c58',
        alertname: 'KubePodCrashLooping',
        status: 'firing',
        startsAt: '2026-12-02T08:41:00.000Z',
        labels: { alertname: 'KubePodCrashLooping', namespace: 'staging', severity: 'critical' },
        receivedAt: '2026-12-02T08:41:05.000Z',
        repeats: 0,
      },
      {
        fingerprint: '9a8b7c6d5e4f3a21',
        alertname: 'CheckoutErrorRateHigh',
        status: 'firing',
        startsAt: '2026-12-02T08:42:00.000Z',
        labels: { alertname: 'CheckoutErrorRateHigh', namespace: 'staging', severity: 'warning' },
        receivedAt: '2026-12-02T08:42:03.000Z',
        repeats: 1,
      },
    ],
    alertCount: 2,
    createdAt: '2026-12-02T08:41:05.000Z',
    startedAt: '2026-12-02T08:41:06.000Z',
    finishedAt: '2026-12-02T08:42:40.000Z',
    attempts: 1,
    cluster: { source: 'kubeconfig', context: 'staging-eu-west-1', server: 'https://10.0.0.1:6443' },
    diagnosis: {
      category: 'bad-credentials',
      culprit: { kind: 'Deployment', namespace: 'staging', name: 'checkout-api' },
      summary:
        'checkout-api has crash-looped since 08:39 because Postgres rejects its password: revision 4 (rolled out at 08:38) reads DB_PASSWORD from checkout-db/password-old, a key rotated out this morning. Rolling back to revision 3, which reads checkout-db/password, restores the working credentials.',
      evidence: [
        'pod checkout-api-6d5f7c9b8-x2kqj: CrashLoopBackOff, 7 restarts in 4m',
        '  logs: FATAL: password authentication failed for user "checkout" (SQLSTATE 28P01)  ',
        'deployment checkout-api revision 4: env DB_PASSWORD from secret checkout-db key password-old',
        'secret checkout-db: keys password (updated 07:55), password-old (updated 2026-09-14)',
        'revision 3 (healthy until 08:38): env DB_PASSWORD from secret checkout-db key password',
        'event: Back-off restarting failed container app in pod checkout-api-6d5f7c9b8-x2kqj',
      ],
      confidence: 'high',
      actions: [heldRollback, proposedRestart],
    },
    actions: [heldRollback, proposedRestart],
  });
}

/** The same alert run, failed before it could diagnose. */
export function buildFailedRun(): RunView {
  const { diagnosis: _diagnosis, ...run } = buildDiagnosedRun();
  return runViewSchema.parse({
    ...run,
    status: 'failed',
    actions: [],
    reason: 'the model API answered 529 (overloaded) five times; gave up after 3m',
  });
}

/** The diagnosed run after its alerts resolved. */
export function buildResolvedRun(): RunView {
  const run = buildDiagnosedRun();
  return runViewSchema.parse({
    ...run,
    status: 'completed',
    alerts: run.alerts?.map((alert) => ({ ...alert, status: 'resolved', endsAt: '2026-12-02T08:55:00.000Z' })),
  });
}

/** A notice of `event` about the diagnosed run (the resolved one for `resolved`), linking to the console unless `runUrl` is null. */
export function buildNotice(event: Notice['event'], options: { run?: RunView; runUrl?: string | null } = {}): Notice {
  const run = options.run ?? (event === 'resolved' ? buildResolvedRun() : buildDiagnosedRun());
  const runUrl = options.runUrl === undefined ? RUN_URL : options.runUrl;
  return { event, run, at: '2026-12-02T08:42:41.000Z', ...(runUrl !== null ? { runUrl } : {}) };
}
