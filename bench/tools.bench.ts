/**
 * The tools' size and speed: `list_pods` on namespaces of 100, 1,000 and 5,000 pods (its
 * output must stay within budget), and per public scenario the bytes our tools return for
 * the culprit pod (details + logs + events) against what kubectl prints for the same pod
 * (`describe pod`, `logs [--previous]`, `get events`), with the scenario's mustMention
 * evidence checked in both.
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
  type MockCluster,
} from '../mock-cluster/index.ts';
import { ensureKubectl } from '../scripts/binaries.ts';
import { createKubeCluster } from '../src/cluster/kube-adapter.ts';
import type { ReadCluster } from '../src/cluster/cluster.ts';
import { decideToolCall } from '../src/gate/gate.ts';
import type { PodDetailsData } from '../src/tools/describe-pod.ts';
import type { PodSummaryData } from '../src/tools/format/pod-status.ts';
import type { ListPodsData } from '../src/tools/list-pods.ts';
import type { PodLogsData } from '../src/tools/pod-logs.ts';
import { createToolRegistry, runReadTool } from '../src/tools/registry.ts';
import type { ToolResult } from '../src/tools/tool.ts';
import { median, table, type SummaryRow } from './summary.ts';
import { scenarioExpect } from '../mock-cluster/loader.ts';

export const name = 'tools: output size, latency, and bytes against kubectl';

const BUDGET_BYTES = 16_384;
const POD_COUNTS = [100, 1_000, 5_000];
const RATIO_AIM = 0.35;
const SCENARIOS = join(import.meta.dirname, '..', 'mock-cluster', 'scenarios');
const registry = createToolRegistry();
const run = promisify(execFile);

/** A read as the agent makes it: validated by the gate, then run with a read-only cluster. */
async function call(cluster: ReadCluster, tool: string, input: Record<string, unknown>): Promise<ToolResult> {
  const knownTools = registry.list().map((known) => known.name);
  const decision = decideToolCall({
    tool: registry.get(tool),
    toolName: tool,
    rawInput: input,
    runRung: 'OBSERVE',
    policy: { actNamespaces: [] },
    knownTools,
  });
  if (decision.decision === 'refuse') return { ok: false, error: decision.error, content: decision.reason };
  if (decision.decision !== 'execute')
    return { ok: false, error: 'internal', content: `${tool} is not a read: the gate decided "${decision.decision}"` };
  return runReadTool({
    registry,
    name: tool,
    input: decision.input,
    context: { cluster, signal: AbortSignal.timeout(120_000), outputBudgetBytes: BUDGET_BYTES },
  });
}

async function benchListPods(): Promise<SummaryRow> {
  const rows = [['pods', 'bytes', 'budget', 'within', 'truncated', 'median ms', 'runs']];
  let largest = 0;
  for (const count of POD_COUNTS) {
    const mock = await startMockCluster({
      scenario: join(SCENARIOS, 'checkout-secret-rotation'),
      generatedPods: [{ namespace: 'bulk', count }],
    });
    try {
      const cluster = createKubeCluster({ kubeconfigPath: mock.kubeconfigPath });
      await call(cluster, 'list_pods', { namespace: 'bulk' });
      const timings: number[] = [];
      let last: ToolResult | undefined;
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const started = performance.now();
        last = await call(cluster, 'list_pods', { namespace: 'bulk' });
        timings.push(performance.now() - started);
      }
      if (!last?.ok) throw new Error(`list_pods failed: ${last?.content}`);
      const bytes = Buffer.byteLength(last.content);
      largest = Math.max(largest, bytes);
      const total = (last.data as ListPodsData).total;
      if (total !== count) throw new Error(`list_pods counted ${total} pods, expected ${count}`);
      rows.push([
        String(count),
        String(bytes),
        String(BUDGET_BYTES),
        bytes <= BUDGET_BYTES ? 'yes' : 'NO',
        String(last.truncated),
        median(timings).toFixed(0),
        String(timings.length),
      ]);
    } finally {
      await mock.close();
    }
  }
  process.stdout.write(`list_pods on one namespace (warm, median of 3):\n${table(rows)}\n\n`);
  return {
    figure: `list_pods output at up to ${POD_COUNTS.at(-1)} pods`,
    kubewhy: `${largest} B`,
    baseline: `${BUDGET_BYTES} B budget`,
    ratio: largest / BUDGET_BYTES,
    aim: '≤ 1 (the budget)',
    met: largest <= BUDGET_BYTES,
  };
}

/** The pod a person on call would look at first for this scenario's culprit. */
function pickCulpritPod(scenario: LoadedScenario, pods: PodSummaryData[]): PodSummaryData | undefined {
  const culprit = parseCulprit(scenarioExpect(scenario).culprit);
  const alertPod = scenario.meta.trigger.alert?.labels['pod'];
  const named = pods.find((pod) => pod.name === alertPod);
  if (named && (culprit.kind !== 'Node' || named.node === culprit.name)) return named;
  const candidates =
    culprit.kind === 'Node'
      ? pods.filter((pod) => pod.node === culprit.name)
      : pods.filter((pod) => pod.name.startsWith(`${culprit.name}-`));
  // list_pods data is ordered trouble first, newest first.
  return candidates[0];
}

interface RatioRow {
  scenario: string;
  pod: string;
  ours: number;
  kubectl: number;
  kept: string[];
  missing: string[];
  kubectlHas: string[];
}

async function measureScenario(dir: string, kubectl: string): Promise<RatioRow | string> {
  const scenario = await loadScenario(dir);
  const culprit = parseCulprit(scenarioExpect(scenario).culprit);
  const namespace = culprit.namespace ?? scenario.meta.trigger.alert?.labels['namespace'];
  const mock: MockCluster = await startMockCluster({ scenario });
  try {
    const cluster = createKubeCluster({ kubeconfigPath: mock.kubeconfigPath });
    const listed = await call(cluster, 'list_pods', namespace ? { namespace } : {});
    if (!listed.ok) return `${scenario.name}: list_pods failed`;
    const pod = pickCulpritPod(scenario, (listed.data as ListPodsData).pods);
    if (!pod) return `${scenario.name}: no pod of ${scenarioExpect(scenario).culprit}`;
    const details = await call(cluster, 'describe_pod', { namespace: pod.namespace, name: pod.name });
    if (!details.ok) return `${scenario.name}: describe_pod failed`;
    const containers = (details.data as PodDetailsData).containers;
    const previous = containers.some((container) => container.lastState?.state === 'terminated');
    const logs = await call(cluster, 'get_pod_logs', {
      namespace: pod.namespace,
      name: pod.name,
      ...(previous ? { previous: true } : {}),
    });
    const events = await call(cluster, 'list_events', {
      namespace: pod.namespace,
      name: pod.name,
      includeRelated: false,
    });
    const ours = [details, logs, events].map((result) => result.content).join('\n');

    const container = logs.ok ? (logs.data as PodLogsData).container : containers.find((item) => !item.init)?.name;
    const base = ['--kubeconfig', mock.kubeconfigPath, '-n', pod.namespace];
    const kubectlOutput = async (args: string[]): Promise<string> => {
      try {
        return (await run(kubectl, [...base, ...args], { maxBuffer: 64 * 1024 * 1024 })).stdout;
      } catch (error) {
        return (error as { stdout?: string }).stdout ?? '';
      }
    };
    const theirs = [
      await kubectlOutput(['describe', 'pod', pod.name]),
      await kubectlOutput([
        'logs',
        pod.name,
        ...(container ? ['-c', container] : []),
        ...(previous ? ['--previous'] : []),
      ]),
      await kubectlOutput(['get', 'events', '--field-selector', `involvedObject.name=${pod.name}`]),
    ].join('\n');

    const patterns = scenarioExpect(scenario).mustMention;
    const matches = (text: string): string[] => patterns.filter((pattern) => new RegExp(pattern, 'i').test(text));
    const kept = matches(ours);
    const kubectlHas = matches(theirs);
    return {
      scenario: scenario.name,
      pod: pod.name,
      ours: Buffer.byteLength(ours),
      kubectl: Buffer.byteLength(theirs),
      kept,
      missing: kubectlHas.filter((pattern) => !kept.includes(pattern)),
      kubectlHas,
    };
  } finally {
    await mock.close();
  }
}

async function benchAgainstKubectl(): Promise<SummaryRow[]> {
  const kubectl = await ensureKubectl();
  const rows = [['scenario', 'culprit pod', 'ours B', 'kubectl B', 'ratio', 'mustMention kept (kubectl has)', 'lost']];
  const skipped: string[] = [];
  const ratios: number[] = [];
  let oursTotal = 0;
  let kubectlTotal = 0;
  let lost = 0;
  let overAim = 0;
  for (const dir of await listScenarioDirs(SCENARIOS)) {
    const row = await measureScenario(dir, kubectl);
    if (typeof row === 'string') {
      skipped.push(row);
      continue;
    }
    const ratio = row.ours / row.kubectl;
    ratios.push(ratio);
    oursTotal += row.ours;
    kubectlTotal += row.kubectl;
    lost += row.missing.length;
    if (ratio > RATIO_AIM) overAim += 1;
    rows.push([
      row.scenario,
      row.pod,
      String(row.ours),
      String(row.kubectl),
      ratio.toFixed(2),
      `${row.kept.length} (${row.kubectlHas.length})`,
      row.missing.join(', ') || '-',
    ]);
  }
  process.stdout.write(
    `culprit pod, our describe_pod + get_pod_logs + list_events against kubectl describe pod + logs + get events:\n${table(rows)}\n`,
  );
  process.stdout.write(
    `\ntotal: ours ${oursTotal} B, kubectl ${kubectlTotal} B, ratio ${(oursTotal / kubectlTotal).toFixed(2)}; median per scenario ${median(ratios).toFixed(2)} (aim <= ${RATIO_AIM}); ` +
      `${overAim} of ${ratios.length} scenario(s) over the aim; ${lost} mustMention pattern(s) kubectl's output matches and ours does not.\n`,
  );
  for (const line of skipped) process.stdout.write(`skipped: ${line} (its culprit is not a pod's)\n`);
  const perScenario = median(ratios);
  return [
    {
      figure: "culprit pod's tool output, median of kubectl's",
      kubewhy: `${oursTotal} B in all`,
      baseline: `${kubectlTotal} B in all`,
      ratio: perScenario,
      aim: `≤ ${RATIO_AIM}`,
      met: perScenario <= RATIO_AIM,
    },
    {
      figure: "culprit pod's mustMention facts kubectl shows and we lose",
      kubewhy: String(lost),
      baseline: '-',
      ratio: lost,
      aim: '0',
      met: lost === 0,
    },
  ];
}

export async function runBench(): Promise<SummaryRow[]> {
  return [await benchListPods(), ...(await benchAgainstKubectl())];
}
