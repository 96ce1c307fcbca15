/**
 * The Kubernetes alert rules in deploy/prometheus: valid for Prometheus (promtool check
 * rules), firing after their real `for` durations and quiet otherwise (promtool test
 * rules), and covering every kubernetes-mixin alert a public scenario is triggered by.
 */
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { listScenarioDirs, loadScenario } from '../mock-cluster/index.ts';
import { repositoryRoot, runCommand } from './fixtures/helm-support/helm.ts';
import { findSystemTool } from './fixtures/helm-support/system-tools.ts';
import { MIXIN_ALERT_NAMES, readAlertNames } from './helpers/e2e-alert-match.ts';

const RULES = join(repositoryRoot, 'deploy', 'prometheus');

async function listFiles(suffix: string, exclude?: string): Promise<string[]> {
  return (await readdir(RULES))
    .filter((name) => name.endsWith(suffix) && (!exclude || !name.endsWith(exclude)))
    .map((name) => join(RULES, name));
}

describe('deploy/prometheus alert rules', () => {
  test('promtool check rules passes', async () => {
    const files = await listFiles('.yml', '.test.yml');
    assert.ok(files.length > 0);
    const result = await runCommand(findSystemTool('promtool'), ['check', 'rules', ...files]);
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
  });

  test('each alert fires after its for duration and not on healthy series (promtool test rules)', async () => {
    const files = await listFiles('.test.yml');
    assert.ok(files.length > 0);
    const result = await runCommand(findSystemTool('promtool'), ['test', 'rules', ...files]);
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    assert.match(result.stdout, /SUCCESS/);
  });

  /** Scrape jobs of Kubernetes' own state and components, whose alerts kubewhy's rules cover. */
  const KUBERNETES_JOBS = new Set(['kube-state-metrics', 'kubelet', 'node-exporter', 'apiserver']);

  test("every alert the public scenarios are triggered by has a rule, the mixin's and kubewhy's own alike", async () => {
    const defined = new Set((await Promise.all((await listFiles('.yml', '.test.yml')).map(readAlertNames))).flat());
    const triggered = new Set<string>();
    for (const directory of await listScenarioDirs(join(repositoryRoot, 'mock-cluster', 'scenarios'))) {
      const labels = (await loadScenario(directory)).meta.trigger.alert?.labels ?? {};
      const alertname = labels['alertname'];
      // An application's own alert (from its exporter or its metrics: a Celery queue, an ingress's 5xx rate) is its team's rule, not kubewhy's.
      const fromKubernetes = MIXIN_ALERT_NAMES.has(alertname ?? '') || KUBERNETES_JOBS.has(labels['job'] ?? '');
      if (alertname && fromKubernetes) triggered.add(alertname);
    }
    const missingMixin = [...triggered].filter((name) => MIXIN_ALERT_NAMES.has(name) && !defined.has(name));
    assert.deepEqual(missingMixin, [], 'kubernetes-mixin alerts without a rule');
    const missingCustom = [...triggered].filter((name) => !MIXIN_ALERT_NAMES.has(name) && !defined.has(name));
    assert.deepEqual(missingCustom, [], 'custom alerts without a rule: add one to the kubewhy-kubernetes group');
  });
});
