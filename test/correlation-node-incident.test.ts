import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import type { Diagnosis } from '../src/agent/diagnosis.ts';
import type { RunAgentInput, RunOutcome } from '../src/agent/loop.ts';
import type { Cluster } from '../src/cluster/cluster.ts';
import { createMetrics } from '../src/metrics.ts';
import type { IncomingAlert } from '../src/runs/alert-intake.ts';
import { createRunService, type RunService } from '../src/runs/run-service.ts';
import { createLogger } from '../src/logger.ts';
import { openDatabase } from '../src/store/database.ts';
import type { RunRecord, RunStore } from '../src/store/ports.ts';
import { createSqliteStores } from '../src/store/sqlite-stores.ts';
import { createToolRegistry } from '../src/tools/registry.ts';
import { TEST_LIMITS } from './helpers/service-app.ts';

const NODE = 'ip-10-0-3-41.ec2.internal';

function alert(labels: Record<string, string>, startsAt = '2026-12-01T10:00:00Z'): IncomingAlert {
  return { status: 'firing', labels: { severity: 'warning', cluster: 'east', ...labels }, annotations: {}, startsAt };
}

const nodePressure = alert({ alertname: 'KubeNodePressure', node: NODE, condition: 'MemoryPressure' });
const podNotReady = (namespace: string, pod: string): IncomingAlert =>
  alert({ alertname: 'KubePodNotReady', namespace, pod });

function pod(input: {
  namespace: string;
  name: string;
  node: string;
  owner?: { kind: string; name: string };
  phase?: string;
  ready?: boolean;
  waiting?: string;
}): V1Pod {
  return {
    metadata: {
      namespace: input.namespace,
      name: input.name,
      ...(input.owner
        ? {
            ownerReferences: [
              { apiVersion: 'apps/v1', kind: input.owner.kind, name: input.owner.name, uid: 'u', controller: true },
            ],
          }
        : {}),
    },
    spec: { nodeName: input.node, containers: [{ name: 'app' }] },
    status: {
      phase: input.phase ?? 'Running',
      conditions: [{ type: 'Ready', status: input.ready === false ? 'False' : 'True' }],
      containerStatuses: [
        {
          name: 'app',
          image: 'app',
          imageID: '',
          ready: input.ready !== false,
          restartCount: 0,
          ...(input.waiting ? { state: { waiting: { reason: input.waiting } } } : {}),
        },
      ],
    },
  };
}

/** A cluster that serves `pods` to `list('Pod')` and counts the reads. */
function podCluster(pods: V1Pod[]): Cluster & { reads: number } {
  const cluster = {
    reads: 0,
    now: () => new Date(),
    list: async (kind: string, options?: { namespace?: string }) => {
      cluster.reads++;
      if (kind !== 'Pod') throw new Error(`the test cluster serves pods only, not ${kind}`);
      return {
        ok: true,
        value: { items: pods.filter((item) => item.metadata?.namespace === options?.namespace), incomplete: false },
      };
    },
  };
  return cluster as unknown as Cluster & { reads: number };
}

function diagnosisOf(culprit: Diagnosis['culprit']): Diagnosis {
  return {
    category: 'node-failure',
    culprit,
    summary: 'the node is out of memory',
    evidence: ['MemoryPressure True'],
    confidence: 'high',
    actions: [],
  };
}

interface Fixture {
  service: RunService;
  store: RunStore;
  /** Triggers of the runs the agent was started for, by run id. */
  started: Map<string, RunAgentInput['trigger']>;
  /** Lets runs the agent is diagnosing finish. */
  release(): void;
  metricsText(): Promise<string>;
}

/** A run service over an in-memory store; the agent diagnoses every run as the node's failure once released. */
async function startService(
  t: TestContext,
  input: { cluster: Cluster; holdMs: number; culprit?: Diagnosis['culprit']; retryFirstAttempt?: boolean },
): Promise<Fixture> {
  const database = openDatabase(':memory:');
  const stores = createSqliteStores(database);
  const store = stores.runs;
  const metrics = createMetrics({ version: 'test' });
  const started = new Map<string, RunAgentInput['trigger']>();
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const runAgent = async (run: RunAgentInput): Promise<RunOutcome> => {
    started.set(run.runId, run.trigger);
    if (input.retryFirstAttempt && run.attempt === 1) {
      return {
        status: 'failed',
        reason: 'the model is overloaded',
        retry: { afterMs: 20 },
        usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
        steps: 1,
        toolCalls: [],
        actions: [],
      };
    }
    await released;
    return {
      status: 'completed',
      diagnosis: diagnosisOf(input.culprit ?? { kind: 'Node', name: NODE }),
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      steps: 1,
      toolCalls: [],
      actions: [],
    };
  };
  const service = createRunService({
    store,
    audit: stores.audit,
    writes: stores.writes,
    metrics,
    logger: createLogger({ level: 'silent' }),
    agent: {
      model: { name: 'unused' } as never,
      registry: createToolRegistry([]),
      cluster: input.cluster,
      policy: { actNamespaces: [] },
      limits: TEST_LIMITS,
      runAgent,
    },
    settings: {
      concurrency: 4,
      queueSize: 100,
      dedupWindowMs: 3_600_000,
      maxAttempts: 3,
      shutdownGraceMs: 1_000,
      nodeIncidentHoldMs: input.holdMs,
    },
  });
  await service.start();
  t.after(async () => {
    release();
    service.releaseWaiters();
    await service.stop();
    database.close();
  });
  return { service, store, started, release, metricsText: () => metrics.registry.metrics() };
}

async function ended(fixture: Fixture, id: string | undefined): Promise<RunRecord> {
  assert.ok(id, 'a run id');
  const run = await fixture.service.waitForEnd(id, 10_000);
  assert.ok(run && (run.status === 'completed' || run.status === 'failed'), `run ${id} ended`);
  return run;
}

test("pods of several workloads on a node under pressure join the node's run: each ends merged without running, its alerts on the node's run", async (t) => {
  const cluster = podCluster([
    pod({ namespace: 'analytics', name: 'report-builder-6cd59f8d56-cgl7v', node: NODE, phase: 'Failed' }),
    pod({ namespace: 'web', name: 'storefront-j89c8sk2wl-xtq8n', node: NODE, phase: 'Failed' }),
  ]);
  const fixture = await startService(t, { cluster, holdMs: 0 });
  const [nodeResult] = await fixture.service.ingestAlerts([nodePressure]);
  const podResults = await fixture.service.ingestAlerts([
    podNotReady('analytics', 'report-builder-6cd59f8d56-cgl7v'),
    podNotReady('web', 'storefront-j89c8sk2wl-xtq8n'),
  ]);
  assert.deepEqual(
    podResults.map((result) => result.outcome),
    ['created', 'created'],
    'labels alone do not tie a pod to its node',
  );

  for (const result of podResults) {
    const merged = await ended(fixture, result.runId);
    assert.equal(merged.status, 'completed');
    assert.equal(merged.diagnosis, undefined);
    assert.match(
      merged.reason ?? '',
      new RegExp(`^merged: .* on node ${NODE.replaceAll('.', '\\.')}, whose incident is run ${nodeResult!.runId}`),
    );
  }
  fixture.release();
  const nodeRun = await ended(fixture, nodeResult!.runId);
  assert.equal(nodeRun.diagnosis?.culprit?.kind, 'Node');
  assert.deepEqual(
    nodeRun.alerts?.map((attached) => attached.labels.pod ?? attached.labels.node),
    [NODE, 'report-builder-6cd59f8d56-cgl7v', 'storefront-j89c8sk2wl-xtq8n'],
  );
  assert.deepEqual([...fixture.started.keys()], [nodeResult!.runId], 'only the node run ran');
  const metrics = await fixture.metricsText();
  assert.match(metrics, /kubewhy_runs_total\{trigger="alert",outcome="merged"\} 2/);
  assert.doesNotMatch(metrics, /outcome="failed"/);

  // The merged workload's next alert (another pod, later) finds the node's run, not the merged one: no failure backoff, no new run.
  const [later] = await fixture.service.ingestAlerts([podNotReady('web', 'storefront-j89c8sk2wl-b4hlt')]);
  assert.deepEqual([later?.outcome, later?.runId], ['attached', nodeResult!.runId]);
});

test('a pod waiting on its own image, or on a node without an incident, runs on its own', async (t) => {
  const cluster = podCluster([
    pod({
      namespace: 'web',
      name: 'storefront-j89c8sk2wl-xtq8n',
      node: NODE,
      ready: false,
      waiting: 'ImagePullBackOff',
    }),
    pod({ namespace: 'shop', name: 'cart-6f58f6bfb9-mjcbt', node: 'another-node', ready: false }),
  ]);
  const fixture = await startService(t, {
    cluster,
    holdMs: 0,
    culprit: { kind: 'Deployment', namespace: 'web', name: 'storefront' },
  });
  await fixture.service.ingestAlerts([nodePressure]);
  const results = await fixture.service.ingestAlerts([
    podNotReady('web', 'storefront-j89c8sk2wl-xtq8n'),
    podNotReady('shop', 'cart-6f58f6bfb9-mjcbt'),
  ]);
  fixture.release();
  for (const result of results) {
    const run = await ended(fixture, result.runId);
    assert.equal(run.reason, undefined, `${run.id} ran`);
    assert.ok(run.diagnosis);
  }
  assert.equal(fixture.started.size, 3);
  assert.equal(cluster.reads, 2, 'one read of the pods per claimed run');
});

test("a workload-level alert joins the node's run through its own pods that are not ready there", async (t) => {
  const cluster = podCluster([
    pod({
      namespace: 'prod',
      name: 'rabbitmq-0',
      node: 'healthy-node',
      owner: { kind: 'StatefulSet', name: 'rabbitmq' },
    }),
    pod({
      namespace: 'prod',
      name: 'rabbitmq-1',
      node: NODE,
      owner: { kind: 'StatefulSet', name: 'rabbitmq' },
      phase: 'Unknown',
    }),
    // Not rabbitmq's, though on the node: it does not tie rabbitmq to the node.
    pod({
      namespace: 'prod',
      name: 'other-0',
      node: NODE,
      owner: { kind: 'StatefulSet', name: 'other' },
      phase: 'Unknown',
    }),
  ]);
  const fixture = await startService(t, { cluster, holdMs: 0 });
  const [nodeResult] = await fixture.service.ingestAlerts([
    alert({ alertname: 'KubeNodeNotReady', node: NODE, condition: 'Ready' }),
  ]);
  const [workload] = await fixture.service.ingestAlerts([
    alert({ alertname: 'KubeStatefulSetReplicasMismatch', namespace: 'prod', statefulset: 'rabbitmq' }),
  ]);
  const merged = await ended(fixture, workload!.runId);
  assert.match(merged.reason ?? '', /^merged: its pods \(rabbitmq-1\) are on node/);
  fixture.release();
  assert.equal((await ended(fixture, nodeResult!.runId)).alertCount, 2);
});

test("a pod's run is held a moment, so that its node's alert in the next notification is its incident", async (t) => {
  const cluster = podCluster([
    pod({ namespace: 'web', name: 'storefront-j89c8sk2wl-xtq8n', node: NODE, phase: 'Failed' }),
  ]);
  const fixture = await startService(t, { cluster, holdMs: 300 });
  const [podResult] = await fixture.service.ingestAlerts([podNotReady('web', 'storefront-j89c8sk2wl-xtq8n')]);
  const [nodeResult] = await fixture.service.ingestAlerts([nodePressure]);
  assert.equal(nodeResult?.outcome, 'created');
  const merged = await ended(fixture, podResult!.runId);
  assert.match(merged.reason ?? '', new RegExp(`whose incident is run ${nodeResult!.runId}`));
});

test('a run that diagnosed a node answers for it: the node alert arriving after the run ended joins it', async (t) => {
  // The pods are gone by the time the run is claimed: nothing ties the pod to the node before the diagnosis.
  const fixture = await startService(t, { cluster: podCluster([]), holdMs: 0 });
  const [podResult] = await fixture.service.ingestAlerts([podNotReady('web', 'storefront-j89c8sk2wl-xtq8n')]);
  fixture.release();
  const diagnosed = await ended(fixture, podResult!.runId);
  assert.equal(diagnosed.diagnosis?.culprit?.name, NODE);
  const [nodeResult] = await fixture.service.ingestAlerts([nodePressure]);
  assert.deepEqual([nodeResult?.outcome, nodeResult?.runId], ['attached', podResult!.runId]);
  // A node of the same name in another cluster is another incident.
  const [elsewhere] = await fixture.service.ingestAlerts([
    { ...nodePressure, labels: { ...nodePressure.labels, cluster: 'west' } },
  ]);
  assert.equal(elsewhere?.outcome, 'created');
});

test("a run started again after a model failure has done work of its own: it never joins a node's run then", async (t) => {
  const cluster = podCluster([
    pod({ namespace: 'web', name: 'storefront-j89c8sk2wl-xtq8n', node: NODE, phase: 'Failed' }),
  ]);
  const fixture = await startService(t, { cluster, holdMs: 0, retryFirstAttempt: true });
  const [podResult] = await fixture.service.ingestAlerts([podNotReady('web', 'storefront-j89c8sk2wl-xtq8n')]);
  // The first start found no node with a run (so read nothing); the node's alert comes before the retry.
  await fixture.service.ingestAlerts([nodePressure]);
  fixture.release();
  const run = await ended(fixture, podResult!.runId);
  assert.equal(run.reason, undefined);
  assert.equal(run.attempts, 2);
  assert.ok(run.diagnosis);
  // With the node's run open, a start that looked for it would read the pods: the retry did not.
  assert.equal(cluster.reads, 0);
});
