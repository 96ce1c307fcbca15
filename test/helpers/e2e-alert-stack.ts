/**
 * The whole alerting chain for end-to-end tests, built from real parts: mock clusters
 * serving scenarios and their kube-state-metrics `/metrics`, a real Prometheus scraping
 * them with deploy/prometheus's rules (`for:` shortened), a real Alertmanager routing to
 * kubewhy with a bearer token and no group wait, and `kubewhy serve` (offline engine)
 * reading the cluster through its kubeconfig.
 *
 * One Prometheus and one Alertmanager serve every scenario. Scenarios run in lanes, as
 * many at once as there are lanes: each lane is one `kubewhy serve` whose kubeconfig
 * points at a relay, switched from one mock cluster to the next as the lane takes its next
 * scenario. Each scenario gets its own scrape target (a port held from the start,
 * labelled `cluster="e2e-<lane>-<n>"`), so its alerts never mix with another's even while
 * an earlier scenario's alerts still resolve, and Alertmanager routes a target's alerts to
 * its lane's kubewhy by that label.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { startMockCluster, type LoadedScenario } from '../../mock-cluster/index.ts';
import type { Diagnosis } from '../../src/agent/diagnosis.ts';
import { startRoutingAlertmanager } from './e2e-alertmanager.ts';
import { labelKey } from './e2e-alert-match.ts';
import { startClusterProxy, type ClusterProxy } from './e2e-cluster-proxy.ts';
import { startPrometheus, type Prometheus, type PrometheusAlert, type RuleGroup } from './e2e-prometheus.ts';
import { holdPort, type HeldPort } from './ports.ts';
import type { Alertmanager } from './service-alertmanager.ts';
import { pollUntil, startServiceProcess, writeTokensDir, type ServiceProcess } from './service-process.ts';

const INGEST_TOKEN = 'e2e-alerts-ingest-token-0123456789';
const READ_TOKEN = 'e2e-alerts-read-token-0123456789';

/** A run as `GET /v1/runs` shows it: the fields these tests read. */
/** An alert the scenario must fire before its alerts count as settled. */
export interface AlertWait {
  matches(labels: Record<string, string>): boolean;
  /** For the timeout's message. */
  description: string;
}

export interface AlertRun {
  id: string;
  status: string;
  reason?: string;
  trigger: { kind: 'alert'; alert: { labels: Record<string, string> } } | { kind: 'incident' };
  diagnosis?: Diagnosis;
  /** The alerts of the run's incident: the one that started it and those correlated with it. */
  alerts?: { labels: Record<string, string> }[];
  alertCount?: number;
}

/** An alert Prometheus fired for a scenario, and the run kubewhy made of it. */
export interface FiredAlert {
  labels: Record<string, string>;
  run: AlertRun;
  /** What the mock added to the scenario's times to serve it at the real now (the diagnosis quotes times on that clock). */
  clockShiftMs: number;
}

export interface AlertStack {
  prometheus: Prometheus;
  alertmanager: Alertmanager;
  /**
   * Serves `scenario` on the next free lane until every alert its metrics fire has fired
   * and kubewhy has ended a run for each; then stops serving it. Waits for a lane first;
   * fails `timeoutMs` after it has one. `waitFor`: the alerts are not settled until one of
   * them matches (the scenario's trigger): on a loaded machine a settled read can come from
   * an evaluation that missed part of a scrape.
   */
  fireScenario(input: { scenario: LoadedScenario; timeoutMs: number; waitFor?: AlertWait }): Promise<FiredAlert[]>;
  /** Everything the child processes printed, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

/** One `kubewhy serve`, the relay it reads clusters through, and the scrape targets it serves scenarios on. */
interface Lane {
  index: number;
  proxy: ClusterProxy;
  service: ServiceProcess;
  ports: HeldPort[];
  nextSlot: number;
}

const ENDED = new Set(['completed', 'failed']);

/** How the chain runs: its lanes, and how quickly Prometheus sees a scenario and evaluates it. */
export interface AlertStackOptions {
  directory: string;
  /** How many scenarios will be fired: enough scrape targets are held for them, however they fall on the lanes. */
  scenarios: number;
  lanes: number;
  ruleFiles: string[];
  /** Replaces every rule's `for:`. */
  forDuration: string;
  scrapeIntervalMs: number;
  evaluationIntervalMs: number;
}

/** Starts the chain. On failure, whatever started is stopped before the error is thrown. */
export async function startAlertStack(input: AlertStackOptions): Promise<AlertStack> {
  const stoppers: (() => Promise<unknown>)[] = [];
  const stopAll = async (): Promise<void> => {
    for (const stop of stoppers.reverse()) await stop().catch(() => undefined);
    stoppers.length = 0;
  };
  try {
    const tokens = await writeTokensDir(input.directory, { ingest: INGEST_TOKEN, read: READ_TOKEN });

    // A lane that draws quick scenarios serves more than its share: half as many again, and two more.
    const slotsPerLane = Math.ceil((input.scenarios / input.lanes) * 1.5) + 2;
    const started = await Promise.allSettled(
      Array.from({ length: input.lanes }, async (_, index): Promise<Lane> => {
        const directory = join(input.directory, `lane-${index}`);
        await mkdir(directory, { recursive: true });
        const ports: HeldPort[] = [];
        stoppers.push(async () => Promise.all(ports.map((port) => port.release())));
        for (let slot = 0; slot < slotsPerLane; slot++) ports.push(await holdPort());
        const proxy = await startClusterProxy({ directory });
        stoppers.push(() => proxy.close());
        const service = await startServiceProcess({
          KUBEWHY_DATA_DIR: join(directory, 'kubewhy-data'),
          KUBEWHY_TOKENS_DIR: tokens,
          KUBEWHY_CLUSTER: 'kubeconfig',
          KUBECONFIG: proxy.kubeconfigPath,
          KUBEWHY_MODEL: 'offline',
        });
        stoppers.push(() => service.stop());
        return { index, proxy, service, ports, nextSlot: 0 };
      }),
    );
    // Every lane has settled (and registered what it started) before a failure is thrown and stops them.
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    const lanes = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    const alertmanager = await startRoutingAlertmanager({
      directory: join(input.directory, 'alertmanager'),
      credentialsFile: join(tokens, 'ingest'),
      routes: lanes.map((lane) => ({
        clusterPattern: `e2e-${lane.index}-.*`,
        webhookUrl: `${lane.service.url}/v1/alerts/alertmanager`,
      })),
    });
    stoppers.push(() => alertmanager.stop());
    const prometheus = await startPrometheus({
      directory: input.directory,
      ruleFiles: input.ruleFiles,
      forDuration: input.forDuration,
      scrapeIntervalMs: input.scrapeIntervalMs,
      evaluationIntervalMs: input.evaluationIntervalMs,
      alertmanagerUrl: alertmanager.url,
      targets: lanes.flatMap((lane) =>
        lane.ports.map((port, slot) => ({
          address: `127.0.0.1:${port.port}`,
          labels: { cluster: clusterLabel(lane.index, slot) },
        })),
      ),
    });
    stoppers.push(() => prometheus.stop());

    const freeLanes = createPool(lanes);
    const fireOnLane = async (
      lane: Lane,
      scenario: LoadedScenario,
      timeoutMs: number,
      waitFor: AlertWait | undefined,
    ): Promise<FiredAlert[]> => {
      const slot = lane.nextSlot++;
      const port = lane.ports[slot];
      if (!port) throw new Error(`lane ${lane.index} has served all of its ${lane.ports.length} scrape targets`);
      const cluster = clusterLabel(lane.index, slot);
      const deadline = Date.now() + timeoutMs;
      const remaining = (): number => Math.max(deadline - Date.now(), 0);
      await port.release();
      const mock = await startMockCluster({
        scenario,
        port: port.port,
        kubeconfigPath: join(input.directory, cluster, 'kubeconfig'),
      });
      try {
        lane.proxy.pointAt(port.port);
        const alerts = await waitForSettledAlerts({
          prometheus,
          cluster,
          pollMs: Math.min(50, input.evaluationIntervalMs / 4),
          evaluationIntervalMs: input.evaluationIntervalMs,
          timeoutMs: remaining(),
          ...(waitFor ? { waitFor } : {}),
        });
        const runs = await pollUntil(
          async () => {
            const byLabels = await newestRunByLabels(lane.service, await listRuns(lane.service));
            const found = alerts.map((alert) => byLabels.get(labelKey(alert.labels)));
            return found.every((run) => run !== undefined && ENDED.has(run.status)) ? (found as AlertRun[]) : undefined;
          },
          {
            timeoutMs: remaining(),
            what: `kubewhy to end a run for each of ${alerts.length} alerts of ${scenario.name}`,
            intervalMs: 50,
          },
        );
        return alerts.map((alert, index) => ({
          labels: alert.labels,
          run: runs[index]!,
          clockShiftMs: mock.clockShiftMs,
        }));
      } finally {
        lane.proxy.pointAt(undefined);
        await mock.close();
      }
    };

    return {
      prometheus,
      alertmanager,
      async fireScenario({ scenario, timeoutMs, waitFor }) {
        const lane = await freeLanes.acquire();
        try {
          return await fireOnLane(lane, scenario, timeoutMs, waitFor);
        } finally {
          freeLanes.release(lane);
        }
      },
      output: () =>
        [
          ...lanes.map((lane) => `--- kubewhy (lane ${lane.index})\n${lane.service.output()}`),
          `--- alertmanager\n${alertmanager.output()}`,
          `--- prometheus\n${prometheus.output()}`,
        ].join('\n'),
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

function clusterLabel(lane: number, slot: number): string {
  return `e2e-${lane}-${String(slot).padStart(2, '0')}`;
}

/** Items handed out one holder at a time, to whoever has waited longest. */
function createPool<T>(items: readonly T[]): { acquire(): Promise<T>; release(item: T): void } {
  const free = [...items];
  const waiting: ((item: T) => void)[] = [];
  return {
    acquire: () => {
      const item = free.shift();
      return item !== undefined ? Promise.resolve(item) : new Promise<T>((resolve) => waiting.push(resolve));
    },
    release: (item) => {
      const next = waiting.shift();
      if (next) next(item);
      else free.push(item);
    },
  };
}

async function listRuns(service: ServiceProcess): Promise<AlertRun[]> {
  const response = await service.request({ path: '/v1/runs?limit=200', token: READ_TOKEN });
  if (response.status !== 200) throw new Error(`GET /v1/runs answered ${response.status}: ${response.text}`);
  return (response.body as { runs: AlertRun[] }).runs;
}

/**
 * The newest run each alert label set is on, from runs listed newest first: an alert is on
 * the run it started and on the run of its incident it was attached to or merged into. A list shows a
 * run's first alerts only; a run with more is read whole.
 */
async function newestRunByLabels(service: ServiceProcess, newestFirst: AlertRun[]): Promise<Map<string, AlertRun>> {
  const byLabels = new Map<string, AlertRun>();
  for (const listed of newestFirst) {
    // A run merged into its node's incident lists its alerts on the run it joined too: that run is theirs.
    if (listed.trigger.kind !== 'alert' || isMerged(listed)) continue;
    const run = (listed.alertCount ?? 0) > (listed.alerts?.length ?? 0) ? await readRun(service, listed.id) : listed;
    const labelSets = [
      run.trigger.kind === 'alert' ? run.trigger.alert.labels : {},
      ...(run.alerts ?? []).map((alert) => alert.labels),
    ];
    for (const labels of labelSets) {
      const key = labelKey(labels);
      if (!byLabels.has(key)) byLabels.set(key, listed);
    }
  }
  return byLabels;
}

/** Ended without running because it joined another run's incident (src/runs/node-incident.ts). */
function isMerged(run: AlertRun): boolean {
  return run.status === 'completed' && (run.reason ?? '').startsWith('merged:');
}

async function readRun(service: ServiceProcess, id: string): Promise<AlertRun> {
  const response = await service.request({ path: `/v1/runs/${id}`, token: READ_TOKEN });
  if (response.status !== 200) throw new Error(`GET /v1/runs/${id} answered ${response.status}: ${response.text}`);
  return response.body as AlertRun;
}

/**
 * The alerts of one scrape target once they cannot change any more: its metrics are
 * stored (its `up` is 1: a scrape's samples and its `up` are committed together), and
 * every rule group has since run an evaluation that saw them (one that started after they
 * were stored, at an evaluation time no earlier than the scrape), and no alert of it is
 * still pending. The metrics of a scenario do not change, so neither do its alerts after
 * that.
 */
async function waitForSettledAlerts(input: {
  prometheus: Prometheus;
  cluster: string;
  pollMs: number;
  evaluationIntervalMs: number;
  timeoutMs: number;
  waitFor?: AlertWait;
}): Promise<PrometheusAlert[]> {
  const { prometheus, pollMs } = input;
  const deadline = Date.now() + input.timeoutMs;
  const [up] = await pollUntil(
    async () => {
      const samples = await prometheus.query(`timestamp(up{cluster="${input.cluster}"} == 1)`);
      return samples.length > 0 ? samples : undefined;
    },
    { timeoutMs: input.timeoutMs, what: `prometheus to store a scrape of ${input.cluster}`, intervalMs: pollMs },
  );
  const storedBy = Date.now();
  const scrapedAt = Number(up?.value[1]) * 1000;
  const startedSinceStored = (groups: RuleGroup[]): boolean =>
    groups.every((group) => Date.parse(group.lastEvaluation) >= storedBy);
  return pollUntil(
    async () => {
      if (!startedSinceStored(await prometheus.ruleGroups())) return undefined;
      // Read before the groups below, so each group's state is from an evaluation no older than these times.
      const evaluatedAt = await prometheus.ruleGroupEvaluationTimes();
      if (evaluatedAt.size === 0)
        throw new Error(
          'prometheus exports no prometheus_rule_group_last_evaluation_timestamp_seconds: the alerts cannot be known to be settled',
        );
      const groups = await prometheus.ruleGroups();
      // An evaluation a whole interval after the sample was stored: one that started as the scrape was still being
      // appended (a loaded machine) may not have seen it.
      const settledFrom = Math.max(scrapedAt, storedBy) + input.evaluationIntervalMs;
      if (!groups.every((group) => (evaluatedAt.get(group.name) ?? 0) >= settledFrom)) return undefined;
      const alerts = groups
        .flatMap((group) => group.rules.flatMap((rule) => rule.alerts ?? []))
        .filter((alert) => alert.labels['cluster'] === input.cluster);
      if (!alerts.every((alert) => alert.state === 'firing')) return undefined;
      return !input.waitFor || alerts.some((alert) => input.waitFor!.matches(alert.labels)) ? alerts : undefined;
    },
    {
      timeoutMs: Math.max(deadline - Date.now(), 0),
      what: `the alerts of ${input.cluster} to settle${input.waitFor ? ` with ${input.waitFor.description} firing` : ''}`,
      intervalMs: pollMs,
    },
  );
}
