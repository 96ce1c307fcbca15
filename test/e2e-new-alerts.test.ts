/**
 * The kubernetes-mixin alerts on autoscalers, DaemonSet scheduling and StatefulSet
 * updates, end to end: the fixture test/fixtures/e2e-new-alerts is served by a mock
 * cluster whose kube-state-metrics `/metrics` a real Prometheus scrapes with
 * deploy/prometheus's rules (`for:` shortened), and each alert reaches `kubewhy serve`
 * through a real Alertmanager and ends in a run. Which diagnosis those runs reach is the
 * offline engine's business, tested elsewhere; here the alerts must fire, with the labels
 * that name their objects.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadScenario } from '../mock-cluster/index.ts';
import { describeAlert } from './helpers/e2e-alert-match.ts';
import { startAlertStack, type AlertStack, type FiredAlert } from './helpers/e2e-alert-stack.ts';
import { hasPrometheus } from './helpers/e2e-prometheus.ts';
import { hasAlertmanager } from './helpers/service-alertmanager.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FIXTURE = join(ROOT, 'test', 'fixtures', 'e2e-new-alerts');
const RULES = join(ROOT, 'deploy', 'prometheus');

const missing = [!hasPrometheus() && 'prometheus', !hasAlertmanager() && 'prometheus-alertmanager'].filter(Boolean);
const skip =
  missing.length > 0
    ? `not installed: ${missing.join(', ')} (apt-get install ${missing.join(' ')}; .ci/run installs them)`
    : false;

/** Each alert the fixture must fire, by the labels that name its object. */
const EXPECTED: Record<string, string>[] = [
  { alertname: 'KubeHpaMaxedOut', namespace: 'web', horizontalpodautoscaler: 'frontend' },
  { alertname: 'KubeHpaReplicasMismatch', namespace: 'web', horizontalpodautoscaler: 'api' },
  { alertname: 'KubeDaemonSetMisScheduled', namespace: 'monitoring', daemonset: 'node-agent' },
  { alertname: 'KubeDaemonSetNotScheduled', namespace: 'logging', daemonset: 'log-shipper' },
  { alertname: 'KubeStatefulSetUpdateNotRolledOut', namespace: 'web', statefulset: 'session-store' },
];

/** Alerts the fixture must not fire: the HPA at its maximum is not a mismatch, and the quiet objects stay quiet. */
const UNEXPECTED: Record<string, string>[] = [
  { alertname: 'KubeHpaReplicasMismatch', horizontalpodautoscaler: 'frontend' },
  { alertname: 'KubeHpaMaxedOut', horizontalpodautoscaler: 'api' },
  { alertname: 'KubeDaemonSetNotScheduled', daemonset: 'node-agent' },
  { alertname: 'KubeDaemonSetMisScheduled', daemonset: 'log-shipper' },
];

function has(alert: FiredAlert, labels: Record<string, string>): boolean {
  return Object.entries(labels).every(([name, value]) => alert.labels[name] === value);
}

describe(
  'the mixin alerts on autoscalers, DaemonSets and StatefulSet updates fire from the mock cluster',
  { skip, timeout: 120_000 },
  () => {
    let directory = '';
    let stack: AlertStack | undefined;
    let fired: FiredAlert[] = [];

    before(
      async () => {
        directory = await mkdtemp(join(tmpdir(), 'kubewhy-e2e-new-alerts-'));
        const ruleFiles = (await readdir(RULES))
          .filter((name) => name.endsWith('.yml') && !name.endsWith('.test.yml'))
          .map((name) => join(RULES, name));
        stack = await startAlertStack({
          directory,
          scenarios: 1,
          lanes: 1,
          ruleFiles,
          forDuration: '0s',
          scrapeIntervalMs: 1000,
          evaluationIntervalMs: 500,
        });
        fired = await stack.fireScenario({ scenario: await loadScenario(FIXTURE), timeoutMs: 45_000 });
      },
      { timeout: 90_000 },
    );

    after(async () => {
      await stack?.stop();
      if (directory) await rm(directory, { recursive: true, force: true });
    });

    for (const expected of EXPECTED) {
      it(`fires ${describeAlert(expected)} and kubewhy completes a run for it`, (t) => {
        const matching = fired.filter((alert) => has(alert, expected));
        for (const alert of fired)
          t.diagnostic(
            `${describeAlert(alert.labels)} → ${alert.run.status} ${alert.run.diagnosis?.category ?? ''} ${alert.run.diagnosis?.summary ?? alert.run.reason ?? ''}`,
          );
        assert.equal(
          matching.length,
          1,
          `fired: ${fired.map((alert) => describeAlert(alert.labels)).join(', ') || 'nothing'}`,
        );
        assert.equal(matching[0]?.labels['severity'], 'warning');
        assert.equal(matching[0]?.run.status, 'completed', JSON.stringify(matching[0]?.run));
      });
    }

    it('fires none of the alerts its quiet objects would fire were the rules wrong', () => {
      const wrong = fired.filter((alert) => UNEXPECTED.some((labels) => has(alert, labels)));
      assert.deepEqual(
        wrong.map((alert) => describeAlert(alert.labels)),
        [],
      );
    });
  },
);
