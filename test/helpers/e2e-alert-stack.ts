/**
 * The whole alerting chain for end-to-end tests, built from real parts: a mock cluster
 * serving a scenario and its kube-state-metrics `/metrics`, a real Prometheus scraping it
 * every second with deploy/prometheus's rules (`for:` shortened), a real Alertmanager
 * routing to kubewhy with a bearer token and no group wait, and `kubewhy serve` (offline
 * engine) reading the cluster through its kubeconfig.
 *
 * One Prometheus, one Alertmanager and one kubewhy serve scenario after scenario. Each
 * scenario gets its own scrape target (a port held from the start, labelled
 * `cluster="e2e-N"`), so its alerts never mix with another's even while an earlier
 * scenario's alerts still resolve; kubewhy reaches the scenario being served through a
 * relay that is switched from one mock cluster to the next.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startMockCluster, type LoadedScenario } from '../../mock-cluster/index.ts';
import type { Diagnosis } from '../../src/agent/diagnosis.ts';
import { labelKey } from './e2e-alert-match.ts';
import { startClusterProxy, type ClusterProxy } from './e2e-cluster-proxy.ts';
import { holdPort, type HeldPort } from './ports.ts';
import { startPrometheus, type Prometheus, type PrometheusAlert } from './e2e-prometheus.ts';
import { startAlertmanager, type Alertmanager } from './service-alertmanager.ts';
import { pollUntil, startServiceProcess, type ServiceProcess } from './service-process.ts';

const INGEST_TOKEN = 'e2e-alerts-ingest-token-0123456789';
const READ_TOKEN = 'e2e-alerts-read-token-0123456789';

/** A run as `GET /v1/runs` shows it: the fields these tests read. */
export interface AlertRun {
  id: string;
  status: string;
  reason?: string;
  trigger: { kind: 'alert'; alert: { labels: Record<string, string> } } | { kind: 'incident' };
  diagnosis?: Diagnosis;
}

/** An alert Prometheus fired for a scenario, and the run kubewhy made of it. */
export interface FiredAlert {
  labels: Record<string, string>;
  run: AlertRun;
}

export interface AlertStack {
  prometheus: Prometheus;
  alertmanager: Alertmanager;
  service: ServiceProcess;
  /**
   * Serves `scenario` in slot `slot` until every alert its metrics fire has fired and
   * kubewhy has ended a run for each; then stops serving it. Fails after `timeoutMs`.
   */
  fireScenario(input: { scenario: LoadedScenario; slot: number; timeoutMs: number }): Promise<FiredAlert[]>;
  /** Everything the child processes printed, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

const ENDED = new Set(['completed', 'failed']);

/**
 * Starts the chain with `slots` scrape targets. `forDuration` replaces every rule's `for:`.
 * On failure, whatever started is stopped before the error is thrown.
 */
export async function startAlertStack(input: { directory: string; slots: number; ruleFiles: string[]; forDuration: string }): Promise<AlertStack> {
  const stoppers: (() => Promise<unknown>)[] = [];
  const stopAll = async (): Promise<void> => {
    for (const stop of stoppers.reverse()) await stop().catch(() => undefined);
    stoppers.length = 0;
  };
  try {
    const tokens = join(input.directory, 'tokens');
    await mkdir(tokens, { recursive: true });
    await writeFile(join(tokens, 'ingest'), `${INGEST_TOKEN}\n`);
    await writeFile(join(tokens, 'read'), `${READ_TOKEN}\n`);

    const ports: HeldPort[] = [];
    stoppers.push(async () => Promise.all(ports.map((port) => port.release())));
    for (let slot = 0; slot < input.slots; slot++) ports.push(await holdPort());

    const proxy: ClusterProxy = await startClusterProxy({ directory: input.directory });
    stoppers.push(() => proxy.close());
    const service = await startServiceProcess({
      KUBEWHY_DATA_DIR: join(input.directory, 'kubewhy-data'),
      KUBEWHY_TOKENS_DIR: tokens,
      KUBEWHY_CLUSTER: 'kubeconfig',
      KUBECONFIG: proxy.kubeconfigPath,
      KUBEWHY_MODEL: 'offline',
    });
    stoppers.push(() => service.stop());
    const alertmanager = await startAlertmanager({ directory: input.directory, webhookUrl: `${service.url}/v1/alerts/alertmanager`, credentialsFile: join(tokens, 'ingest') });
    stoppers.push(() => alertmanager.stop());
    const prometheus = await startPrometheus({
      directory: input.directory,
      ruleFiles: input.ruleFiles,
      forDuration: input.forDuration,
      alertmanagerUrl: alertmanager.url,
      targets: ports.map((port, slot) => ({ address: `127.0.0.1:${port.port}`, labels: { cluster: clusterLabel(slot) } })),
    });
    stoppers.push(() => prometheus.stop());

    const listRuns = async (): Promise<AlertRun[]> => {
      const response = await service.request({ path: '/v1/runs?limit=200', token: READ_TOKEN });
      if (response.status !== 200) throw new Error(`GET /v1/runs answered ${response.status}: ${response.text}`);
      return (response.body as { runs: AlertRun[] }).runs;
    };

    return {
      prometheus,
      alertmanager,
      service,
      async fireScenario({ scenario, slot, timeoutMs }) {
        const port = ports[slot];
        if (!port) throw new Error(`no slot ${slot}: the stack has ${ports.length}`);
        const deadline = Date.now() + timeoutMs;
        const remaining = (): number => Math.max(deadline - Date.now(), 0);
        await port.release();
        const mock = await startMockCluster({ scenario, port: port.port, kubeconfigPath: join(input.directory, `slot-${slot}`, 'kubeconfig') });
        try {
          proxy.pointAt(port.port);
          const alerts = await waitForSettledAlerts({ prometheus, cluster: clusterLabel(slot), timeoutMs: remaining() });
          const runs = await pollUntil(
            async () => {
              const newestFirst = await listRuns();
              const byLabels = new Map<string, AlertRun>();
              for (const run of newestFirst) {
                if (run.trigger.kind !== 'alert') continue;
                const key = labelKey(run.trigger.alert.labels);
                if (!byLabels.has(key)) byLabels.set(key, run);
              }
              const found = alerts.map((alert) => byLabels.get(labelKey(alert.labels)));
              return found.every((run) => run !== undefined && ENDED.has(run.status)) ? (found as AlertRun[]) : undefined;
            },
            { timeoutMs: remaining(), what: `kubewhy to end a run for each of ${alerts.length} alerts of ${scenario.name}`, intervalMs: 100 },
          );
          return alerts.map((alert, index) => ({ labels: alert.labels, run: runs[index]! }));
        } finally {
          proxy.pointAt(undefined);
          await mock.close();
        }
      },
      output: () => `--- kubewhy\n${service.output()}\n--- alertmanager\n${alertmanager.output()}\n--- prometheus\n${prometheus.output()}`,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

function clusterLabel(slot: number): string {
  return `e2e-${String(slot).padStart(2, '0')}`;
}

/**
 * The alerts of one scrape target once they cannot change any more: its metrics were
 * scraped, every rule group evaluated them at least twice (the first evaluation after a
 * scrape may run before the scrape's samples are stored), and no alert of it is still
 * pending. The metrics of a scenario do not change, so neither do its alerts after that.
 */
async function waitForSettledAlerts(input: { prometheus: Prometheus; cluster: string; timeoutMs: number }): Promise<PrometheusAlert[]> {
  const deadline = Date.now() + input.timeoutMs;
  const scraped = await pollUntil(
    async () => (await input.prometheus.targets()).find((target) => target.labels['cluster'] === input.cluster && target.health === 'up'),
    { timeoutMs: input.timeoutMs, what: `prometheus to scrape ${input.cluster}`, intervalMs: 100 },
  );
  const storedAt = Date.parse(scraped.lastScrape) + scraped.lastScrapeDuration * 1000;
  return pollUntil(
    async () => {
      const groups = await input.prometheus.ruleGroups();
      if (!groups.every((group) => Date.parse(group.lastEvaluation) >= storedAt + 1000)) return undefined;
      const alerts = (await input.prometheus.alerts()).filter((alert) => alert.labels['cluster'] === input.cluster);
      return alerts.every((alert) => alert.state === 'firing') ? alerts : undefined;
    },
    { timeoutMs: Math.max(deadline - Date.now(), 0), what: `the alerts of ${input.cluster} to settle`, intervalMs: 100 },
  );
}
