/**
 * What the model reads in a diagnosis against what an SRE reads with kubectl. Per public
 * scenario, the offline engine runs from the alert (when there is one) and from the
 * incident text; the bytes of every tool result of the run, as the model received them,
 * are set against kubectl's reading of the culprit: `describe pod` of the culprit's pod
 * (when the culprit owns pods), `logs` of its troubled container (`--previous` when it
 * restarted), `get events -n <namespace>`, and `describe <culprit kind>/<name>`. A
 * mustMention pattern that kubectl's reading matches and the run's tool results do not
 * is a fact lost.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  listScenarioDirs,
  loadScenario,
  parseCulprit,
  startMockCluster,
  type LoadedScenario,
} from '../mock-cluster/index.ts';
import { ensureKubectl } from '../scripts/binaries.ts';
import { createOfflineModel } from '../src/agent/offline/offline-model.ts';
import { createMemoryRunAudit } from '../src/agent/run-audit.ts';
import { runOnScenario, scenarioTriggers } from '../src/eval/run-scenario.ts';
import { createInMemoryApprovalBroker } from '../src/gate/approvals.ts';
import { table, type SummaryRow } from './summary.ts';
import { scenarioExpect } from '../mock-cluster/loader.ts';

export const name = "context: what the model reads against kubectl's reading of the culprit";

const SCENARIOS = join(import.meta.dirname, '..', 'mock-cluster', 'scenarios');
const ALERT_AIM = 0.35;
const INCIDENT_AIM = 0.5;
const CONCURRENCY = 4;
const run = promisify(execFile);

type TriggerKind = 'alert' | 'incident';

interface RunMeasure {
  trigger: TriggerKind;
  bytes: number;
  calls: number;
  /** mustMention patterns kubectl's reading matches and the run's tool results do not. */
  lost: string[];
  /** Bytes per tool name, for the breakdown. */
  byTool: Map<string, number>;
}

interface ScenarioMeasure {
  scenario: string;
  kubectlBytes: number;
  /** The mustMention patterns kubectl's reading matches. */
  kubectlHas: string[];
  runs: RunMeasure[];
}

/** What the model read in one run: every tool result's content, as the loop handed it over. */
async function measureRun(
  scenario: LoadedScenario,
  kind: TriggerKind,
  kubectlHas: string[],
): Promise<RunMeasure | undefined> {
  const offered = scenarioTriggers(scenario).find((candidate) => candidate.kind === kind);
  if (!offered) return undefined;
  const audit = createMemoryRunAudit();
  await runOnScenario({
    scenario,
    trigger: offered.trigger,
    model: createOfflineModel(),
    rung: 'OBSERVE',
    policy: { actNamespaces: [] },
    approvals: createInMemoryApprovalBroker(),
    audit,
    runId: `bench-context-${scenario.name}-${kind}`,
  });
  const tools = new Map(
    audit.events
      .filter((event) => event.type === 'tool-call')
      .map((event) => [event.payload['callId'], String(event.payload['tool'])]),
  );
  const results = audit.events
    .filter((event) => event.type === 'tool-result')
    .map((event) => ({
      tool: tools.get(event.payload['callId']) ?? '?',
      content: String(event.payload['content'] ?? ''),
    }));
  const byTool = new Map<string, number>();
  for (const result of results)
    byTool.set(result.tool, (byTool.get(result.tool) ?? 0) + Buffer.byteLength(result.content));
  const text = results.map((result) => result.content).join('\n');
  return {
    trigger: kind,
    bytes: Buffer.byteLength(text),
    calls: results.length,
    lost: kubectlHas.filter((pattern) => !new RegExp(pattern, 'i').test(text)),
    byTool,
  };
}

interface KubeObject {
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    creationTimestamp?: string;
    ownerReferences?: { kind: string; name: string; controller?: boolean }[];
  };
  spec?: { initContainers?: { name: string }[]; containers?: { name: string }[]; nodeName?: string };
  status?: { phase?: string; initContainerStatuses?: ContainerStatus[]; containerStatuses?: ContainerStatus[] };
}

interface ContainerStatus {
  name: string;
  ready?: boolean;
  restartCount?: number;
  state?: { waiting?: { reason?: string }; terminated?: { exitCode?: number } };
}

/** The top of a pod's owner chain (ReplicaSet → Deployment, Job → CronJob), as kind/name. */
function topOwner(pod: KubeObject, owners: Map<string, KubeObject>): string {
  let current = `Pod/${pod.metadata.name}`;
  let object: KubeObject | undefined = pod;
  for (let depth = 0; depth < 4 && object; depth += 1) {
    const owner = object.metadata.ownerReferences?.find((reference) => reference.controller !== false);
    if (!owner) break;
    current = `${owner.kind}/${owner.name}`;
    object = owners.get(current);
  }
  return current;
}

function restarts(pod: KubeObject): number {
  return [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])].reduce(
    (sum, status) => sum + (status.restartCount ?? 0),
    0,
  );
}

function isTroubled(pod: KubeObject): boolean {
  const regular = pod.status?.containerStatuses ?? [];
  return (
    pod.status?.phase !== 'Running' ||
    regular.some((status) => status.state?.waiting !== undefined || status.ready === false)
  );
}

/** The pod a person would look at: the alert's when it is the culprit's, else the most troubled, newest first. */
function pickPod(pods: KubeObject[], alertPod: string | undefined): KubeObject | undefined {
  const named = pods.find((pod) => pod.metadata.name === alertPod);
  if (named) return named;
  return [...pods].sort(
    (left, right) =>
      Number(isTroubled(right)) - Number(isTroubled(left)) ||
      restarts(right) - restarts(left) ||
      (right.metadata.creationTimestamp ?? '').localeCompare(left.metadata.creationTimestamp ?? ''),
  )[0];
}

/** The container kubectl logs would be asked for: a failing init container, else the one that restarted or waits. */
function pickContainer(pod: KubeObject): ContainerStatus | undefined {
  const init = (pod.status?.initContainerStatuses ?? []).find(
    (status) =>
      (status.restartCount ?? 0) > 0 ||
      (status.state?.terminated?.exitCode ?? 0) !== 0 ||
      (status.state?.waiting && status.state.waiting.reason !== 'PodInitializing'),
  );
  if (init) return init;
  const regular = pod.status?.containerStatuses ?? [];
  const restarted = [...regular].sort((left, right) => (right.restartCount ?? 0) - (left.restartCount ?? 0))[0];
  if (restarted && (restarted.restartCount ?? 0) > 0) return restarted;
  return (
    regular.find((status) => status.state?.waiting !== undefined) ??
    regular.find((status) => status.ready === false) ??
    regular[0]
  );
}

/** kubectl's reading of the culprit, as an SRE would take it, against a mock cluster serving the scenario. */
async function readWithKubectl(scenario: LoadedScenario, kubectl: string): Promise<string | undefined> {
  const culprit = parseCulprit(scenarioExpect(scenario).culprit);
  const mock = await startMockCluster({ scenario });
  try {
    const kubectlOutput = async (args: string[]): Promise<{ ok: boolean; stdout: string }> => {
      try {
        return {
          ok: true,
          stdout: (await run(kubectl, ['--kubeconfig', mock.kubeconfigPath, ...args], { maxBuffer: 64 * 1024 * 1024 }))
            .stdout,
        };
      } catch (error) {
        return { ok: false, stdout: (error as { stdout?: string }).stdout ?? '' };
      }
    };
    const kind = culprit.kind.toLowerCase();
    const described = await kubectlOutput([
      ...(culprit.namespace ? ['-n', culprit.namespace] : []),
      'describe',
      kind,
      culprit.name,
    ]);
    if (!described.ok) return undefined;
    if (!culprit.namespace)
      return [
        described.stdout,
        (await kubectlOutput(['get', 'events', '-A', '--field-selector', `involvedObject.name=${culprit.name}`]))
          .stdout,
      ].join('\n');
    const base = ['-n', culprit.namespace];
    const parts: string[] = [];
    if (['Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob', 'Pod'].includes(culprit.kind)) {
      const listed = JSON.parse(
        (await kubectlOutput([...base, 'get', 'pods,replicasets,jobs', '-o', 'json'])).stdout || '{"items":[]}',
      ) as { items: KubeObject[] };
      const owners = new Map(
        listed.items.filter((item) => item.kind !== 'Pod').map((item) => [`${item.kind}/${item.metadata.name}`, item]),
      );
      const pods = listed.items.filter(
        (item) => item.kind === 'Pod' && topOwner(item, owners) === `${culprit.kind}/${culprit.name}`,
      );
      const pod = pickPod(pods, scenario.meta.trigger.alert?.labels['pod']);
      if (pod) {
        if (culprit.kind !== 'Pod')
          parts.push((await kubectlOutput([...base, 'describe', 'pod', pod.metadata.name])).stdout);
        const container = pickContainer(pod);
        const previous = (container?.restartCount ?? 0) > 0;
        parts.push(
          (
            await kubectlOutput([
              ...base,
              'logs',
              pod.metadata.name,
              ...(container ? ['-c', container.name] : []),
              ...(previous ? ['--previous'] : []),
            ])
          ).stdout,
        );
      }
    }
    parts.push((await kubectlOutput([...base, 'get', 'events'])).stdout);
    parts.push(described.stdout);
    return parts.join('\n');
  } finally {
    await mock.close();
  }
}

async function measureScenario(dir: string, kubectl: string): Promise<ScenarioMeasure | string> {
  const scenario = await loadScenario(dir);
  const reading = await readWithKubectl(scenario, kubectl);
  if (reading === undefined)
    return `${scenario.name}: kubectl cannot describe ${scenarioExpect(scenario).culprit} (the culprit is absent)`;
  const kubectlHas = scenarioExpect(scenario).mustMention.filter((pattern) => new RegExp(pattern, 'i').test(reading));
  const runs: RunMeasure[] = [];
  for (const kind of ['alert', 'incident'] as const) {
    const measured = await measureRun(scenario, kind, kubectlHas);
    if (measured) runs.push(measured);
  }
  return { scenario: scenario.name, kubectlBytes: Buffer.byteLength(reading), kubectlHas, runs };
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export async function runBench(): Promise<SummaryRow[]> {
  const kubectl = await ensureKubectl();
  const measures: ScenarioMeasure[] = [];
  const skipped: string[] = [];
  const dirs = await listScenarioDirs(SCENARIOS);
  const results: (ScenarioMeasure | string)[] = [];
  // A few scenarios at a time: each waits mostly on kubectl and its own mock cluster.
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let index = next++; index < dirs.length; index = next++)
      results[index] = await measureScenario(dirs[index]!, kubectl);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  for (const measured of results) {
    if (typeof measured === 'string') skipped.push(measured);
    else measures.push(measured);
  }
  const ratioOf = (measure: ScenarioMeasure, kind: TriggerKind): number | undefined => {
    const found = measure.runs.find((entry) => entry.trigger === kind);
    return found ? found.bytes / measure.kubectlBytes : undefined;
  };
  const rows = [
    ['scenario', 'kubectl B', 'alert B', 'ratio', 'incident B', 'ratio', 'mustMention (kubectl has)', 'lost'],
  ];
  const byTool = new Map<string, number>();
  for (const measure of measures) {
    const alert = measure.runs.find((entry) => entry.trigger === 'alert');
    const incident = measure.runs.find((entry) => entry.trigger === 'incident');
    const lost = measure.runs.flatMap((entry) => entry.lost.map((pattern) => `${entry.trigger}: ${pattern}`));
    for (const entry of measure.runs)
      for (const [tool, bytes] of entry.byTool) byTool.set(tool, (byTool.get(tool) ?? 0) + bytes);
    rows.push([
      measure.scenario,
      String(measure.kubectlBytes),
      alert ? String(alert.bytes) : '-',
      alert ? (alert.bytes / measure.kubectlBytes).toFixed(2) : '-',
      incident ? String(incident.bytes) : '-',
      incident ? (incident.bytes / measure.kubectlBytes).toFixed(2) : '-',
      `${measure.kubectlHas.length} (${measure.runs[0] ? measure.kubectlHas.length - measure.runs[0].lost.length : 0} kept)`,
      lost.join('; ') || '-',
    ]);
  }
  process.stdout.write(
    `bytes of tool results the model read, against kubectl's reading of the culprit:\n${table(rows)}\n`,
  );
  const tools = [...byTool].sort((left, right) => right[1] - left[1]).map(([tool, bytes]) => [tool, String(bytes)]);
  process.stdout.write(`\nbytes by tool, every run:\n${table([['tool', 'bytes'], ...tools])}\n`);
  for (const line of skipped) process.stdout.write(`skipped: ${line}\n`);

  const alertRatios = measures.flatMap((measure) => ratioOf(measure, 'alert') ?? []);
  const incidentRatios = measures.flatMap((measure) => ratioOf(measure, 'incident') ?? []);
  const lost = measures.reduce(
    (sum, measure) => sum + measure.runs.reduce((count, entry) => count + entry.lost.length, 0),
    0,
  );
  const over = measures.filter((measure) => measure.runs.some((entry) => entry.bytes > measure.kubectlBytes)).length;
  const alertMedian = median(alertRatios);
  const incidentMedian = median(incidentRatios);
  process.stdout.write(
    `\nmedian from the alert ${alertMedian.toFixed(2)} (${alertRatios.length} runs, aim <= ${ALERT_AIM}); from incident text ${incidentMedian.toFixed(2)} (${incidentRatios.length} runs, aim <= ${INCIDENT_AIM}); ` +
      `${over} of ${measures.length} scenario(s) read more than kubectl in some run; ${lost} mustMention fact(s) lost.\n`,
  );
  return [
    {
      figure: "model context from the alert (median, of kubectl's reading)",
      kubewhy: alertMedian.toFixed(2),
      baseline: '1.00',
      ratio: alertMedian,
      aim: `≤ ${ALERT_AIM}`,
      met: alertMedian <= ALERT_AIM,
    },
    {
      figure: "model context from incident text (median, of kubectl's reading)",
      kubewhy: incidentMedian.toFixed(2),
      baseline: '1.00',
      ratio: incidentMedian,
      aim: `≤ ${INCIDENT_AIM}`,
      met: incidentMedian <= INCIDENT_AIM,
    },
    { figure: 'mustMention facts lost', kubewhy: String(lost), baseline: '-', ratio: lost, aim: '0', met: lost === 0 },
  ];
}
