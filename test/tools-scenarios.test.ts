/**
 * Every tool through the real client against the mock cluster, on the public scenarios:
 * the evidence a diagnosis needs must be in what the tools return.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { z } from 'zod';
import {
  listScenarioDirs,
  parseCulprit,
  startMockCluster,
  type LoadedScenario,
  type MockCluster,
} from '../mock-cluster/index.ts';
import { createKubeCluster } from '../src/cluster/kube-adapter.ts';
import type { DeploymentDetailsData } from '../src/tools/describe-deployment.ts';
import type { ServiceDetailsData } from '../src/tools/describe-service.ts';
import type { PodDetailsData } from '../src/tools/describe-pod.ts';
import type { EventsData } from '../src/tools/list-events.ts';
import type { NodesData } from '../src/tools/list-nodes.ts';
import type { ListPodsData } from '../src/tools/list-pods.ts';
import { containerName, namespaceName, objectName } from '../src/tools/names.ts';
import type { PodLogsData } from '../src/tools/pod-logs.ts';
import { createToolRegistry } from '../src/tools/registry.ts';
import { callThroughGate } from './helpers/gated-calls.ts';
import type { RolloutHistoryData } from '../src/tools/rollout-history.ts';
import type { ToolResult } from '../src/tools/tool.ts';
import { scenarioExpect } from '../mock-cluster/loader.ts';
import { onScenarioClock } from '../src/eval/score.ts';

const SCENARIOS = join(import.meta.dirname, '..', 'mock-cluster', 'scenarios');
const registry = createToolRegistry();

interface Harness {
  mock: MockCluster;
  call(name: string, input: Record<string, unknown>): Promise<ToolResult>;
}

async function startScenario(name: string): Promise<Harness> {
  const mock = await startMockCluster({ scenario: join(SCENARIOS, name) });
  const cluster = createKubeCluster({ kubeconfigPath: mock.kubeconfigPath, retries: 1, retryBaseDelayMs: 5 });
  return {
    mock,
    call: (tool, input) =>
      callThroughGate({
        registry,
        name: tool,
        input,
        context: { cluster, signal: AbortSignal.timeout(20_000), outputBudgetBytes: 16_384 },
      }),
  };
}

function dataOf<T>(result: ToolResult): T {
  assert.ok(result.ok, `expected success, got ${result.ok ? '' : `${result.error}: ${result.content}`}`);
  return result.data as T;
}

/** Everything a diagnosis could quote about the scenario's culprit, gathered with the tools. */
async function gatherEvidence(harness: Harness): Promise<string[]> {
  const { meta } = harness.mock.scenario;
  const culprit = parseCulprit(scenarioExpect(harness.mock.scenario).culprit);
  const alertPod = meta.trigger.alert?.labels['pod'];
  const namespace = culprit.namespace ?? meta.trigger.alert?.labels['namespace'];
  const outputs: ToolResult[] = [];
  const run = async (name: string, input: Record<string, unknown>): Promise<ToolResult> => {
    const result = await harness.call(name, input);
    outputs.push(result);
    return result;
  };
  if (namespace) {
    const pods = dataOf<ListPodsData>(await run('list_pods', { namespace }));
    await run('list_events', { namespace });
    const ownPods = pods.pods.filter((pod) => pod.name === alertPod || pod.name.startsWith(`${culprit.name}-`));
    for (const pod of ownPods.slice(0, 3)) {
      const described = await run('describe_pod', { namespace, name: pod.name });
      // The ConfigMaps the pod reads are where its configuration's values are: `kubectl get configmap NAME -o yaml`.
      const spec = described.ok ? (described.data as PodDetailsData).spec : undefined;
      const configMaps = new Set([
        ...(spec?.containers ?? []).flatMap((container) => [
          ...container.envFrom.filter((source) => source.kind === 'configMapRef').map((source) => source.name),
          ...container.env.flatMap((variable) =>
            variable.source?.kind === 'configMapKeyRef' && variable.source.name ? [variable.source.name] : [],
          ),
        ]),
        ...(spec?.volumes ?? []).flatMap((volume) =>
          volume.kind === 'configMap' && volume.sourceName ? [volume.sourceName] : [],
        ),
      ]);
      for (const name of [...configMaps].slice(0, 3)) await run('list_config_maps', { namespace, name });
      // The Services its env points at (`kubectl get svc,endpoints` in their namespace): a dependency's ports are its side of a mismatch.
      const hosts = new Set(
        (spec?.containers ?? []).flatMap((container) =>
          container.env.flatMap(
            (variable) => /\b([a-z0-9-]+\.[a-z0-9-]+)\.svc\b/.exec(variable.value ?? '')?.[1] ?? [],
          ),
        ),
      );
      for (const host of [...hosts].slice(0, 3)) await run('resolve_host', { host, namespace });
      // What binds its service account, as `kubectl get rolebindings,clusterrolebindings -o wide` and `kubectl auth can-i --as` show it.
      if (spec?.serviceAccountName)
        await run('list_role_bindings', { serviceAccount: { namespace, name: spec.serviceAccountName } });
      // The node it runs on, as `kubectl describe node` shows it (its architecture, runtime, labels); for a pod not placed, every node it might go to.
      if (pod.node) await run('list_nodes', { name: pod.node });
      else if (pod.phase === 'Pending') await run('list_nodes', {});
      await run('get_pod_logs', { namespace, name: pod.name });
      if (pod.restarts > 0) await run('get_pod_logs', { namespace, name: pod.name, previous: true });
      // Every other container's log too, as `kubectl logs --all-containers` shows it (a sidecar proxy the app dials).
      for (const container of (spec?.containers ?? []).filter((container) => !container.init).slice(1, 3))
        await run('get_pod_logs', { namespace, name: pod.name, container: container.name });
    }
    // Every RoleBinding, as `kubectl get rolebindings -A -o wide` lists them: a binding to the wrong subject names neither side's namespace alone.
    const bindingNamespaces = new Set(
      harness.mock.scenario.objects
        .filter((object) => object.kind === 'RoleBinding')
        .map((object) => object.metadata.namespace ?? ''),
    );
    for (const bound of [...bindingNamespaces].filter(Boolean).slice(0, 4))
      await run('list_role_bindings', { namespace: bound });
    for (const tool of [
      'list_persistent_volume_claims',
      'list_resource_quotas',
      'list_network_policies',
      'list_ingresses',
      'list_services',
      'list_replica_sets',
    ])
      await run(tool, { namespace });
  }
  switch (culprit.kind) {
    case 'Deployment':
      await run('describe_deployment', { namespace, name: culprit.name });
      await run('rollout_history', { namespace, name: culprit.name });
      break;
    case 'StatefulSet':
      await run('list_stateful_sets', { namespace, name: culprit.name });
      break;
    case 'DaemonSet':
      await run('list_daemon_sets', { namespace, name: culprit.name });
      // Where a DaemonSet may run is read against the nodes' taints.
      await run('list_nodes', {});
      break;
    case 'Job':
      await run('list_jobs', { namespace, name: culprit.name });
      break;
    case 'CronJob':
      await run('list_cron_jobs', { namespace, name: culprit.name });
      await run('list_jobs', { namespace });
      break;
    case 'Service':
      await run('describe_service', { namespace, name: culprit.name });
      break;
    case 'Node':
      await run('list_nodes', { name: culprit.name });
      // The pods on it, as `kubectl describe node` lists them.
      await run('list_pods', { fieldSelector: `spec.nodeName=${culprit.name}` });
      break;
  }
  for (const result of outputs) assert.equal(typeof result.content, 'string');
  return outputs.map((result) => result.content);
}

const scenarioNames = (await listScenarioDirs(SCENARIOS)).map((dir) => dir.split('/').at(-1) ?? dir);

/** Every namespace, object and container name the scenario holds that the tools' schemas would refuse. */
function refusedNames(scenario: LoadedScenario): string[] {
  const refused: string[] = [];
  const check = (schema: z.ZodString, value: string | undefined, where: string): void => {
    if (value !== undefined && !schema.safeParse(value).success) refused.push(`${where}: ${JSON.stringify(value)}`);
  };
  for (const object of scenario.objects) {
    const where = `${object.kind} ${object.metadata.namespace ?? ''}/${object.metadata.name}`;
    check(namespaceName(), object.metadata.namespace, `${where} namespace`);
    check(object.kind === 'Namespace' ? namespaceName() : objectName(), object.metadata.name, `${where} name`);
    const spec = object['spec'] as { containers?: { name: string }[]; initContainers?: { name: string }[] } | undefined;
    for (const container of [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])])
      check(containerName(), container.name, `${where} container`);
  }
  for (const log of scenario.logs) check(containerName(), log.container, `log of ${log.namespace}/${log.pod}`);
  return refused;
}

describe('the tools surface every mustMention of every public scenario', () => {
  for (const name of scenarioNames) {
    it(name, async () => {
      const harness = await startScenario(name);
      try {
        assert.deepEqual(refusedNames(harness.mock.scenario), [], 'every name in the scenario is one the tools accept');
        const served = (await gatherEvidence(harness)).join('\n');
        // The mock serves the scenario moved to now: a pattern may name a time as the scenario wrote it.
        const evidence = `${served}\n${onScenarioClock(served, harness.mock.clockShiftMs)}`;
        for (const pattern of scenarioExpect(harness.mock.scenario).mustMention) {
          assert.match(evidence, new RegExp(pattern, 'i'), `"${pattern}" is in no tool output of ${name}`);
        }
      } finally {
        await harness.mock.close();
      }
    });
  }
});

describe('checkout-secret-rotation: a deploy switched the DB secret key', () => {
  let harness: Harness;
  before(async () => {
    harness = await startScenario('checkout-secret-rotation');
  });
  after(() => harness.mock.close());

  it('describe_pod gives the waiting reason, the last exit and the revision of the owning ReplicaSet', async () => {
    const result = await harness.call('describe_pod', { namespace: 'staging', name: 'checkout-api-7d9f8c6b5-x2k4q' });
    const data = dataOf<PodDetailsData>(result);
    const app = data.containers.find((container) => container.name === 'app');
    assert.equal(app?.state.reason, 'CrashLoopBackOff');
    assert.equal(app?.lastState?.exitCode, 1);
    assert.deepEqual(
      data.owners.map((owner) => [owner.kind, owner.name, owner.revision]),
      [
        ['ReplicaSet', 'checkout-api-7d9f8c6b5', 4],
        ['Deployment', 'checkout-api', undefined],
      ],
    );
    assert.deepEqual(data.workload, { kind: 'Deployment', name: 'checkout-api' });
    const password = data.spec.containers
      .find((container) => container.name === 'app')
      ?.env.find((variable) => variable.name === 'DB_PASSWORD');
    assert.deepEqual(password?.source, { kind: 'secretKeyRef', name: 'checkout-db', key: 'password-old' });
    assert.match(result.content, /CrashLoopBackOff/);
    assert.match(result.content, /revision 4/);
  });

  it('get_pod_logs of the previous run shows the authentication failure', async () => {
    const result = await harness.call('get_pod_logs', {
      namespace: 'staging',
      name: 'checkout-api-7d9f8c6b5-x2k4q',
      previous: true,
    });
    const data = dataOf<PodLogsData>(result);
    assert.equal(data.previous, true);
    assert.ok(data.errorLines.some((line) => line.includes('password authentication failed for user "checkout"')));
    assert.match(result.content, /password authentication failed/);
  });

  it('rollout_history names the revision that changed the secret reference', async () => {
    const result = await harness.call('rollout_history', { namespace: 'staging', name: 'checkout-api' });
    const data = dataOf<RolloutHistoryData>(result);
    assert.equal(data.currentRevision, 4);
    const change = data.changes.find((entry) => entry.toRevision === 4);
    assert.deepEqual(change?.changes, [
      {
        container: 'app',
        field: 'env DB_PASSWORD',
        from: 'secretKeyRef checkout-db/password',
        to: 'secretKeyRef checkout-db/password-old',
      },
    ]);
    assert.match(
      result.content,
      /revision 3 -> revision 4:\n {2}app: env DB_PASSWORD: secretKeyRef checkout-db\/password -> secretKeyRef checkout-db\/password-old/,
    );
  });

  it('describe_deployment reports the rollout past its progress deadline', async () => {
    const data = dataOf<DeploymentDetailsData>(
      await harness.call('describe_deployment', { namespace: 'staging', name: 'checkout-api' }),
    );
    assert.ok(data.summary.conditions.some((condition) => condition.reason === 'ProgressDeadlineExceeded'));
    assert.equal(data.pods.countsByStatus['CrashLoopBackOff'], 1);
  });

  it('ages are measured against the cluster clock, not the machine clock', async () => {
    const data = dataOf<EventsData>(
      await harness.call('list_events', {
        namespace: 'staging',
        name: 'checkout-api-7d9f8c6b5-x2k4q',
        includeRelated: false,
      }),
    );
    const backOff = data.events.find((event) => event.reason === 'BackOff');
    assert.ok(backOff && backOff.count > 1, 'repeated back-offs are folded with a count');
    assert.ok(
      (backOff.lastSeenAgeSeconds ?? Infinity) < 3600,
      `BackOff last seen ${backOff.lastSeenAgeSeconds}s before the scenario's now`,
    );
  });
});

describe('one assertion per failure mode', () => {
  it('orders-worker-oom: the OOMKilled termination with exit code 137 and the memory limit', async () => {
    const harness = await startScenario('orders-worker-oom');
    try {
      const pod = harness.mock.scenario.meta.trigger.alert?.labels['pod'] ?? '';
      const result = await harness.call('describe_pod', { namespace: 'shop', name: pod });
      const data = dataOf<PodDetailsData>(result);
      const terminated = data.containers
        .map((container) => container.lastState ?? container.state)
        .find((state) => state.reason === 'OOMKilled');
      assert.equal(terminated?.exitCode, 137);
      assert.match(result.content, /OOMKilled exit 137/);
      assert.match(result.content, /limits [^\n]*memory=256Mi/);
    } finally {
      await harness.mock.close();
    }
  });

  it('search-api-liveness-port: the failing liveness probe event and the probed port', async () => {
    const harness = await startScenario('search-api-liveness-port');
    try {
      const data = dataOf<EventsData>(await harness.call('list_events', { namespace: 'search', type: 'Warning' }));
      const unhealthy = data.events.find(
        (event) => event.reason === 'Unhealthy' && /Liveness probe failed/.test(event.message),
      );
      assert.ok(unhealthy, 'an Unhealthy event for the liveness probe');
      assert.match(unhealthy.message, /8081/);
    } finally {
      await harness.mock.close();
    }
  });

  it('mailer-missing-secret: the waiting reason and message name the missing secret', async () => {
    const harness = await startScenario('mailer-missing-secret');
    try {
      const pod = harness.mock.scenario.meta.trigger.alert?.labels['pod'] ?? '';
      const data = dataOf<PodDetailsData>(
        await harness.call('describe_pod', { namespace: 'notifications', name: pod }),
      );
      const waiting = data.containers.find((container) => container.state.state === 'waiting');
      assert.equal(waiting?.state.reason, 'CreateContainerConfigError');
      assert.match(waiting?.state.message ?? '', /smtp-credentials/);
      const secrets = await harness.call('list_secrets', { namespace: 'notifications', name: 'smtp-credentials' });
      assert.equal(secrets.ok ? 'found' : secrets.error, 'not-found');
    } finally {
      await harness.mock.close();
    }
  });

  it('payments-gateway-selector: the Service selector matches no pod, and the pods carry the other value', async () => {
    const harness = await startScenario('payments-gateway-selector');
    try {
      const result = await harness.call('describe_service', { namespace: 'payments', name: 'payments-gateway' });
      const data = dataOf<ServiceDetailsData>(result);
      assert.equal(data.endpoints.ready.length, 0);
      assert.equal(data.pods.total, 0);
      assert.ok(data.labelValuesInNamespace?.['app']?.includes('payments-gateway'));
      assert.match(result.content, /app=payment-gateway wanted; pods here have app in \{[^}]*payments-gateway/);
    } finally {
      await harness.mock.close();
    }
  });

  it('worker-node-notready: the node is NotReady with the kubelet message', async () => {
    const harness = await startScenario('worker-node-notready');
    try {
      const data = dataOf<NodesData>(await harness.call('list_nodes', {}));
      const node = data.nodes.find((item) => item.name === 'worker-2');
      assert.equal(node?.ready, false);
      assert.match(node?.readyCondition?.message ?? '', /Kubelet stopped posting node status/);
      assert.equal(data.nodes[0]?.name, 'worker-2', 'unhealthy nodes come first');
    } finally {
      await harness.mock.close();
    }
  });
});
