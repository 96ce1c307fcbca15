/**
 * The demo diagnosis (offline engine, checkout-secret-rotation, "checkout-api in staging
 * keeps restarting") in a small cluster and in one with 5,000 extra pods: how much longer
 * it takes, how many bytes of API answers it reads and how many GETs it sends. Bytes and
 * GETs are counted by the mock cluster itself (its response log), not by the client.
 * Rounds alternate between the two clusters and the medians are compared, so a busy
 * machine slows both alike.
 */
import { loadScenario, startMockCluster, type MockCluster } from '../mock-cluster/index.ts';
import { runAgent, type RunOutcome } from '../src/agent/loop.ts';
import { createOfflineModel } from '../src/agent/offline/offline-model.ts';
import { createMemoryRunAudit } from '../src/agent/run-audit.ts';
import { createKubeCluster } from '../src/cluster/kube-adapter.ts';
import type { Cluster } from '../src/cluster/cluster.ts';
import { createInMemoryApprovalBroker } from '../src/gate/approvals.ts';
import { createToolRegistry, defaultTools, type ToolRegistry } from '../src/tools/registry.ts';
import type { Tool } from '../src/tools/tool.ts';
import { median, table, type SummaryRow } from './summary.ts';

export const name = 'Demo diagnosis in a large cluster (0 against 5,000 extra pods)';

const ROUNDS = 9;
const EXTRA_PODS = 5_000;
const TIME_AIM = 2;
const BYTES_AIM_MB = 1;
const MB = 1_000_000;

interface Sample {
  ms: number;
  bytes: number;
  gets: number;
}

interface Setup {
  mock: MockCluster;
  cluster: Cluster;
}

function diagnose(setup: Setup, registry: ToolRegistry, runId: string, namespace?: string): Promise<RunOutcome> {
  return runAgent({
    runId,
    trigger: {
      kind: 'incident',
      text: 'checkout-api in staging keeps restarting',
      ...(namespace ? { namespace } : {}),
    },
    rung: 'OBSERVE',
    model: createOfflineModel(),
    registry,
    cluster: setup.cluster,
    policy: { actNamespaces: [] },
    approvals: createInMemoryApprovalBroker(),
    audit: createMemoryRunAudit(),
    limits: { maxSteps: 12, tokenBudget: 1_000_000, timeoutMs: 120_000, approvalTtlMs: 1000, toolOutputBytes: 16_384 },
  });
}

async function measure(setup: Setup, registry: ToolRegistry, runId: string, namespace?: string): Promise<Sample> {
  setup.mock.responseLog.length = 0;
  const started = performance.now();
  const outcome = await diagnose(setup, registry, runId, namespace);
  const ms = performance.now() - started;
  if (outcome.diagnosis?.category !== 'bad-credentials')
    throw new Error(`the demo was diagnosed as ${outcome.diagnosis?.category ?? outcome.reason}`);
  const answers = setup.mock.responseLog;
  return {
    ms,
    bytes: answers.reduce((total, answer) => total + answer.bytes, 0),
    gets: answers.filter((answer) => answer.method === 'GET').length,
  };
}

/**
 * The same run with the tool calls made one at a time, so that every API answer belongs
 * to the call that asked for it: GETs and bytes per tool call.
 */
async function perToolCall(setup: Setup): Promise<string[][]> {
  const rows = [['tool call', 'GETs', 'bytes']];
  let queue = Promise.resolve();
  const serialized = defaultTools().map((tool): Tool => {
    if (tool.risk !== 'read') return tool;
    return {
      ...tool,
      run: (input: Record<string, unknown>, context: Parameters<typeof tool.run>[1]) => {
        const turn = queue.then(async () => {
          const before = setup.mock.responseLog.length;
          const result = await tool.run(input, context);
          const answers = setup.mock.responseLog.slice(before);
          const bytes = answers.reduce((total, answer) => total + answer.bytes, 0);
          rows.push([
            `${tool.name} ${JSON.stringify(input)}`.slice(0, 90),
            String(answers.filter((answer) => answer.method === 'GET').length),
            bytes.toLocaleString('en-US'),
          ]);
          return result;
        });
        queue = turn.then(
          () => undefined,
          () => undefined,
        );
        return turn;
      },
    };
  });
  await diagnose(setup, createToolRegistry(serialized), 'bench-large-detail');
  return rows;
}

async function start(extraPods: number): Promise<Setup> {
  const scenario = await loadScenario('mock-cluster/scenarios/checkout-secret-rotation');
  const mock = await startMockCluster({
    scenario,
    generatedPods: extraPods > 0 ? [{ namespace: 'bulk', count: extraPods }] : [],
  });
  return { mock, cluster: createKubeCluster({ kubeconfigPath: mock.kubeconfigPath }) };
}

export async function runBench(): Promise<SummaryRow[]> {
  const small = await start(0);
  const large = await start(EXTRA_PODS);
  try {
    const registry = createToolRegistry(defaultTools());
    // One warm-up run each: module loading and the first connections are not what is measured.
    await measure(small, registry, 'bench-large-warmup-0');
    await measure(large, registry, 'bench-large-warmup-1');
    const samples: { small: Sample[]; large: Sample[] } = { small: [], large: [] };
    for (let round = 0; round < ROUNDS; round += 1) {
      samples.small.push(await measure(small, registry, `bench-large-${round}-0`));
      samples.large.push(await measure(large, registry, `bench-large-${round}-1`));
    }
    const summarize = (list: Sample[]): Sample => ({
      ms: median(list.map((sample) => sample.ms)),
      bytes: median(list.map((sample) => sample.bytes)),
      gets: median(list.map((sample) => sample.gets)),
    });
    const at0 = summarize(samples.small);
    const at5000 = summarize(samples.large);
    process.stdout.write(
      table([
        ['extra pods', `median ms (of ${ROUNDS})`, 'API bytes read', 'GETs'],
        ['0', at0.ms.toFixed(0), at0.bytes.toLocaleString('en-US'), String(at0.gets)],
        [
          EXTRA_PODS.toLocaleString('en-US'),
          at5000.ms.toFixed(0),
          at5000.bytes.toLocaleString('en-US'),
          String(at5000.gets),
        ],
      ]) + '\n\n',
    );
    // Where the rest goes: the same incident with its namespace given, so that no read spans every namespace.
    const scoped: { small: Sample[]; large: Sample[] } = { small: [], large: [] };
    for (let round = 0; round < 3; round += 1) {
      scoped.small.push(await measure(small, registry, `bench-large-scoped-${round}-0`, 'staging'));
      scoped.large.push(await measure(large, registry, `bench-large-scoped-${round}-1`, 'staging'));
    }
    const scopedAt0 = summarize(scoped.small);
    const scopedAt5000 = summarize(scoped.large);
    process.stdout.write(
      `the same incident with namespace "staging" given (median of 3): ${scopedAt5000.ms.toFixed(0)} ms at ${EXTRA_PODS.toLocaleString('en-US')} extra pods against ${scopedAt0.ms.toFixed(0)} ms at 0; ` +
        `${scopedAt5000.bytes.toLocaleString('en-US')} bytes in ${scopedAt5000.gets} GETs against ${scopedAt0.bytes.toLocaleString('en-US')} bytes in ${scopedAt0.gets}\n\n`,
    );
    process.stdout.write(
      `per tool call at ${EXTRA_PODS.toLocaleString('en-US')} extra pods (calls one at a time; a read another call already made costs nothing):\n${table(await perToolCall(large))}\n`,
    );

    const timeRatio = at5000.ms / at0.ms;
    const megabytes = at5000.bytes / MB;
    return [
      {
        figure: 'demo diagnosis at 5,000 pods, time',
        kubewhy: `${at5000.ms.toFixed(0)} ms`,
        baseline: `${at0.ms.toFixed(0)} ms`,
        ratio: timeRatio,
        aim: `≤ ${TIME_AIM}×`,
        met: timeRatio <= TIME_AIM,
      },
      {
        figure: 'demo diagnosis at 5,000 pods, API JSON read',
        kubewhy: `${megabytes.toFixed(2)} MB`,
        baseline: '-',
        ratio: megabytes,
        aim: `≤ ${BYTES_AIM_MB} MB`,
        met: megabytes <= BYTES_AIM_MB,
      },
    ];
  } finally {
    await small.mock.close();
    await large.mock.close();
  }
}
