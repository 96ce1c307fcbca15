/**
 * The demo diagnosis end to end with the offline engine: how long kubewhy's own work takes
 * (the loop, the engine, the tools, the HTTP round trips to a local mock cluster), beside a
 * baseline measured in the same run: the same API reads made directly with the cluster
 * client, with no agent around them. Goal: well under a second; the ratio shows the
 * agent's overhead over the reads it cannot avoid.
 */
import { loadScenario, startMockCluster } from '../mock-cluster/index.ts';
import { runAgent } from '../src/agent/loop.ts';
import { createOfflineModel } from '../src/agent/offline/offline-model.ts';
import { createMemoryRunAudit } from '../src/agent/run-audit.ts';
import { createKubeCluster } from '../src/cluster/kube-adapter.ts';
import { createInMemoryApprovalBroker } from '../src/gate/approvals.ts';
import { createToolRegistry, defaultTools } from '../src/tools/registry.ts';
import { median, type SummaryRow } from './summary.ts';

export const name = 'Diagnosis of the demo incident (offline engine)';

const ROUNDS = 15;

export async function runBench(): Promise<SummaryRow[]> {
  const scenario = await loadScenario('mock-cluster/scenarios/checkout-secret-rotation');
  const mock = await startMockCluster({ scenario });
  try {
    const cluster = createKubeCluster({ kubeconfigPath: mock.kubeconfigPath });
    const registry = createToolRegistry(defaultTools());
    const trigger = { kind: 'incident' as const, text: 'checkout-api in staging keeps restarting' };
    const agentTimes: number[] = [];
    const baselineTimes: number[] = [];
    let calls = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const started = performance.now();
      const outcome = await runAgent({
        runId: `bench-${round}`,
        trigger,
        rung: 'OBSERVE',
        model: createOfflineModel(),
        registry,
        cluster,
        policy: { actNamespaces: [] },
        approvals: createInMemoryApprovalBroker(),
        audit: createMemoryRunAudit(),
        limits: {
          maxSteps: 12,
          tokenBudget: 1_000_000,
          timeoutMs: 60_000,
          approvalTtlMs: 1000,
          toolOutputBytes: 16_384,
        },
      });
      agentTimes.push(performance.now() - started);
      if (outcome.diagnosis?.category !== 'bad-credentials')
        throw new Error(`the demo was diagnosed as ${outcome.diagnosis?.category ?? outcome.reason}`);
      calls = outcome.toolCalls.length;

      // Baseline: the reads an SRE's kubectl session makes for the same answer.
      const baselineStarted = performance.now();
      await Promise.all([
        cluster.list('Pod', {}),
        cluster.list('Deployment', {}),
        cluster.list('Event', { namespace: 'staging' }),
        cluster.list('ReplicaSet', { namespace: 'staging' }),
        cluster.readPodLog({
          namespace: 'staging',
          name: 'checkout-api-7d9f8c6b5-x2k4q',
          container: 'app',
          previous: true,
        }),
      ]);
      baselineTimes.push(performance.now() - baselineStarted);
    }
    const agent = median(agentTimes);
    const baseline = median(baselineTimes);
    process.stdout.write(
      `demo incident, ${calls} tool calls: kubewhy ${agent.toFixed(1)} ms (median of ${ROUNDS}), direct API reads ${baseline.toFixed(1)} ms\n`,
    );
    process.stdout.write(
      `ratio kubewhy / direct reads: ${(agent / baseline).toFixed(2)}  (goal: the whole diagnosis under 1000 ms: ${agent < 1000 ? 'met' : 'NOT met'})\n`,
    );
    return [
      {
        figure: 'demo diagnosis, offline engine, in process',
        kubewhy: `${agent.toFixed(0)} ms`,
        baseline: `${baseline.toFixed(0)} ms (direct reads)`,
        ratio: agent / baseline,
        aim: '< 1000 ms in all',
        met: agent < 1000,
      },
    ];
  } finally {
    await mock.close();
  }
}
