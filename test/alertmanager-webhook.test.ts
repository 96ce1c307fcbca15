import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadScenario } from '../mock-cluster/index.ts';
import { labelsFingerprint } from '../src/runs/alert-intake.ts';
import { hasAlertmanager, startAlertmanager } from './helpers/service-alertmanager.ts';
import { pollUntil, startServiceProcess, writeTokensDir } from './helpers/service-process.ts';
import { scenarioExpect } from '../mock-cluster/loader.ts';

const INGEST = 'alertmanager-ingest-token-0123456789';
const READ = 'alertmanager-read-token-0123456789';
const DEMO = 'mock-cluster/scenarios/checkout-secret-rotation';

interface Run {
  id: string;
  status: string;
  reason?: string;
  diagnosis?: { category: string; culprit: { kind: string; namespace?: string; name: string } };
  alert?: { fingerprint: string; startsAt: string; resolvedAt?: string; repeats: number };
}

test(
  'a real Alertmanager delivers an alert to kubewhy: one run, the right diagnosis, repeats start nothing, the resolution is recorded',
  {
    skip: hasAlertmanager()
      ? false
      : 'prometheus-alertmanager is not installed (apt-get install prometheus-alertmanager)',
    timeout: 120_000,
  },
  async (t) => {
    const directory = await mkdtemp(join(tmpdir(), 'kubewhy-alertmanager-'));
    t.after(() => rm(directory, { recursive: true, force: true }));
    const tokens = await writeTokensDir(directory, { ingest: INGEST, read: READ });

    const service = await startServiceProcess({
      KUBEWHY_DATA_DIR: join(directory, 'data'),
      KUBEWHY_TOKENS_DIR: tokens,
      KUBEWHY_MOCK_SCENARIO: DEMO,
    });
    t.after(() => service.stop());
    const alertmanager = await startAlertmanager({
      directory,
      webhookUrl: `${service.url}/v1/alerts/alertmanager`,
      credentialsFile: join(tokens, 'ingest'),
    });
    t.after(() => alertmanager.stop());

    const scenario = await loadScenario(DEMO);
    const alert = scenario.meta.trigger.alert;
    assert.ok(alert, 'the demo scenario has an alert');
    const startsAt = new Date(Date.now() - 60_000).toISOString();
    await alertmanager.postAlerts([
      {
        labels: alert.labels,
        annotations: alert.annotations ?? {},
        startsAt,
        generatorURL: 'http://prometheus.test/graph',
      },
    ]);

    const listRuns = async (): Promise<Run[]> =>
      ((await service.request({ path: '/v1/runs', token: READ })).body as { runs: Run[] }).runs;
    const diagnosed = await pollUntil(
      async () => {
        const runs = await listRuns();
        return runs.length > 0 && ['completed', 'failed'].includes(runs[0]!.status) ? runs[0] : undefined;
      },
      { timeoutMs: 60_000, what: 'the run to end' },
    );
    const context = (): string =>
      `run: ${JSON.stringify(diagnosed)}\nkubewhy:\n${service.output()}\nalertmanager:\n${alertmanager.output()}`;
    assert.equal(diagnosed.status, 'completed', context());
    assert.equal(diagnosed.diagnosis?.category, scenarioExpect(scenario).category, context());
    const culprit = diagnosed.diagnosis?.culprit;
    assert.equal(`${culprit?.kind}/${culprit?.namespace}/${culprit?.name}`, scenarioExpect(scenario).culprit);
    assert.equal(diagnosed.alert?.startsAt, startsAt, context());
    // The fingerprint Alertmanager sent is the one kubewhy derives for a sender that leaves it out.
    assert.equal(diagnosed.alert?.fingerprint, labelsFingerprint(alert.labels), context());

    // Alertmanager resends the still-firing alert every repeat_interval: recognised, no second run.
    const repeated = await pollUntil(
      async () => {
        const runs = await listRuns();
        return runs[0] && runs[0].alert && runs[0].alert.repeats >= 1 ? runs : undefined;
      },
      { timeoutMs: 30_000, what: 'a repeat notification' },
    );
    assert.equal(repeated.length, 1, `${JSON.stringify(repeated)}\n${context()}`);

    await alertmanager.postAlerts([
      { labels: alert.labels, annotations: alert.annotations ?? {}, startsAt, endsAt: new Date().toISOString() },
    ]);
    const resolved = await pollUntil(
      async () => {
        const runs = await listRuns();
        return runs[0]?.alert?.resolvedAt ? runs : undefined;
      },
      { timeoutMs: 30_000, what: 'the resolved notification' },
    );
    assert.equal(resolved.length, 1, `${JSON.stringify(resolved)}\n${context()}`);
    assert.equal(resolved[0]?.id, diagnosed.id);
    assert.equal(resolved[0]?.status, 'completed');

    const metrics = (await service.request({ path: '/metrics' })).text;
    assert.match(metrics, /^kubewhy_alerts_deduplicated_total [1-9]/m);
    assert.match(metrics, /^kubewhy_alerts_received_total\{status="resolved"\} [1-9]/m);
    assert.match(
      metrics,
      /^kubewhy_webhook_requests_total\{route="\/v1\/alerts\/alertmanager",outcome="accepted"\} [1-9]/m,
    );
    assert.doesNotMatch(metrics, /outcome="unauthorized"/);
    assert.equal(await service.stop(), 0);
  },
);
