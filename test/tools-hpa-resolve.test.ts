/**
 * Following a failure to its root cause in few calls, through the real client against the
 * mock cluster: an autoscaler leads to its workload and why its replicas do not come up; a
 * host in a client's log leads to the Service, its backend pods and their problem; a name no
 * Service carries is said to be the finding.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startMockCluster, type MockCluster } from '../mock-cluster/index.ts';
import { buildSystemPrompt, SUBMIT_DIAGNOSIS_TOOL } from '../src/agent/prompt.ts';
import { createKubeCluster } from '../src/cluster/kube-adapter.ts';
import type { ServiceDetailsData } from '../src/tools/describe-service.ts';
import { OUTSIDE_SUFFIXES, parseHost } from '../src/tools/format/host-names.ts';
import type { AutoscalersData } from '../src/tools/list-horizontal-pod-autoscalers.ts';
import { createToolRegistry } from '../src/tools/registry.ts';
import { callThroughGate } from './helpers/gated-calls.ts';
import type { ResolvedHostData } from '../src/tools/resolve-host.ts';
import type { ToolContext, ToolResult } from '../src/tools/tool.ts';

const FIXTURES = join(import.meta.dirname, 'fixtures');
const registry = createToolRegistry();

interface Harness {
  mock: MockCluster;
  call(name: string, input: Record<string, unknown>, extra?: Partial<ToolContext>): Promise<ToolResult>;
}

async function startFixture(name: string): Promise<Harness> {
  const mock = await startMockCluster({ scenario: join(FIXTURES, name) });
  const cluster = createKubeCluster({ kubeconfigPath: mock.kubeconfigPath, retries: 1, retryBaseDelayMs: 5 });
  return {
    mock,
    call: (tool, input, extra = {}) =>
      callThroughGate({
        registry,
        name: tool,
        input,
        context: { cluster, signal: AbortSignal.timeout(20_000), outputBudgetBytes: 16_384, ...extra },
      }),
  };
}

function dataOf<T>(result: ToolResult): T {
  assert.ok(result.ok, `expected success, got ${result.ok ? '' : `${result.error}: ${result.content}`}`);
  return result.data as T;
}

describe('list_horizontal_pod_autoscalers', () => {
  let harness: Harness;
  before(async () => {
    harness = await startFixture('chain-hpa');
  });
  after(() => harness.mock.close());

  it('puts the autoscaler at max first, with its metric against the target and the limiting condition', async () => {
    const result = await harness.call('list_horizontal_pod_autoscalers', { namespace: 'api' });
    const data = dataOf<AutoscalersData>(result);
    assert.deepEqual(
      data.autoscalers.map((autoscaler) => autoscaler.name),
      ['checkout', 'search', 'cart'],
    );
    const [checkout] = data.autoscalers;
    assert.deepEqual(
      {
        target: checkout?.target,
        min: checkout?.minReplicas,
        max: checkout?.maxReplicas,
        current: checkout?.currentReplicas,
        desired: checkout?.desiredReplicas,
        atMax: checkout?.atMax,
        metrics: checkout?.metrics,
      },
      {
        target: { kind: 'Deployment', name: 'checkout' },
        min: 2,
        max: 3,
        current: 3,
        desired: 3,
        atMax: true,
        metrics: ['cpu 92% of 70% target'],
      },
    );
    assert.deepEqual(
      checkout?.conditions.find((condition) => condition.type === 'ScalingLimited'),
      {
        type: 'ScalingLimited',
        status: 'True',
        reason: 'TooManyReplicas',
        message: 'the desired replica count is more than the maximum replica count',
      },
    );
    assert.match(
      result.content,
      /checkout -> Deployment\/checkout: replicas current 3, desired 3, min 2, max 3; metrics cpu 92% of 70% target {2}<- AT MAX/,
    );
    assert.match(result.content, /target Deployment api\/checkout: spec.replicas 3, created 3, ready 3/);
    assert.match(result.content, /cart -> Deployment\/cart: .*cpu 35% of 70% target$/m);
  });

  it("follows an autoscaler whose workload lags to the Pending pods and the scheduler's reason", async () => {
    const result = await harness.call('list_horizontal_pod_autoscalers', { namespace: 'api', name: 'search' });
    const [search] = dataOf<AutoscalersData>(result).autoscalers;
    assert.equal(search?.atMax, false);
    assert.deepEqual([search?.currentReplicas, search?.desiredReplicas], [4, 6]);
    assert.deepEqual(search?.metrics, ['cpu 85% of 60% target', 'memory 900Mi of 1Gi average target']);
    assert.match(result.content, /CURRENT != DESIRED/);
    assert.match(
      result.content,
      /target Deployment api\/search: spec.replicas 6, created 6, ready 4, updated 6, available 4/,
    );
    assert.match(result.content, /pods: 6 \(Pending 2, Running 4\)/);
    assert.match(
      result.content,
      /search-6b7c8d9f5-w9x1y: Pending, .*unschedulable: 0\/2 nodes are available: 2 Insufficient cpu/,
    );
  });

  it('answers an autoscaler that does not exist with not-found and what to do', async () => {
    const result = await harness.call('list_horizontal_pod_autoscalers', { namespace: 'api', name: 'payments' });
    assert.equal(result.ok ? 'ok' : result.error, 'not-found');
    assert.match(result.content, /no HorizontalPodAutoscaler named "payments" in namespace api/);
  });
});

describe('resolve_host', () => {
  let harness: Harness;
  before(async () => {
    harness = await startFixture('chain-hosts');
  });
  after(() => harness.mock.close());

  const resolve = async (host: string, namespace = 'shop'): Promise<{ result: ToolResult; data: ResolvedHostData }> => {
    const result = await harness.call('resolve_host', { host, namespace });
    return { result, data: dataOf<ResolvedHostData>(result) };
  };

  it("resolves a short name in the client's namespace and shows the crashlooping backend as the culprit", async () => {
    const { result, data } = await resolve('inventory:8080');
    assert.deepEqual(
      [data.resolvedBy, data.namespace, data.name, data.port, data.host],
      ['service-name', 'shop', 'inventory', 8080, 'inventory'],
    );
    assert.equal(data.service?.endpoints.notReady[0]?.pod, 'inventory-7c9d8f6b5-abcde');
    assert.equal(data.service?.pods.pods[0]?.status, 'CrashLoopBackOff');
    assert.match(
      result.content,
      /inventory-7c9d8f6b5-abcde: CrashLoopBackOff, ready 0\/1, restarts 7, .*previous run terminated Error exit 1/,
    );
    assert.match(result.content, /the backend is the culprit/);
  });

  for (const host of ['orders-db.data', 'orders-db.data.svc', 'orders-db.data.svc.cluster.local:5432']) {
    it(`resolves ${host} from another namespace to Service data/orders-db`, async () => {
      const { result, data } = await resolve(host);
      assert.deepEqual([data.resolvedBy, data.namespace, data.name], ['service-name', 'data', 'orders-db']);
      assert.equal(data.service?.endpoints.ready.length, 1);
      assert.match(result.content, /the backend looks healthy/);
    });
  }

  it("resolves a headless Service's pod name to that pod", async () => {
    const { data } = await resolve('orders-db-0.orders-db-hl.data.svc.cluster.local');
    assert.deepEqual(
      [data.resolvedBy, data.name, data.pod],
      ['service-name', 'orders-db-hl', { namespace: 'data', name: 'orders-db-0' }],
    );
  });

  it('resolves a cluster IP to its Service', async () => {
    const { data } = await resolve('10.96.12.7:8080');
    assert.deepEqual(
      [data.resolvedBy, data.namespace, data.name, data.host, data.port],
      ['cluster-ip', 'shop', 'inventory', '10.96.12.7', 8080],
    );
  });

  it('resolves a pod IP to the pod and the Service that selects it', async () => {
    const { result, data } = await resolve('10.42.1.3:5432');
    assert.deepEqual(
      [data.resolvedBy, data.pod, data.service?.name],
      ['pod-ip', { namespace: 'data', name: 'orders-db-0' }, 'orders-db'],
    );
    assert.match(result.content, /pod data\/orders-db-0: Running, ready 1\/1/);
  });

  it('resolves a URL by its host and port', async () => {
    const { data } = await resolve('http://inventory:8080/api/stock?sku=1');
    assert.deepEqual(
      [data.resolvedBy, data.name, data.host, data.port],
      ['service-name', 'inventory', 'inventory', 8080],
    );
  });

  it('says a port the Service does not expose is refused', async () => {
    const { result } = await resolve('inventory:9090');
    assert.match(result.content, /port 9090 is not a port of this Service \(http:8080->8080\/TCP\)/);
  });

  it('says plainly that a missing Service is the finding, with the similar names and the Services there', async () => {
    const { result, data } = await resolve('redis:6379');
    assert.deepEqual(
      [data.resolvedBy, data.namespace, data.name, data.similar],
      ['none', 'shop', 'redis', ['redis-cache']],
    );
    assert.equal(data.service, undefined);
    assert.match(
      result.content,
      /no Service "redis" in namespace shop, so cluster DNS answers NXDOMAIN for redis\.shop\.svc\.cluster\.local/,
    );
    assert.match(result.content, /Services in shop \(3\): inventory, redis-cache, web/);
  });

  it('says when the namespace a name implies does not exist', async () => {
    const { result, data } = await resolve('db.corp.internal');
    assert.deepEqual([data.resolvedBy, data.namespace], ['none', 'internal']);
    assert.match(
      result.content,
      /namespace internal does not exist, so no Service answers db\.corp\.internal\.svc\.cluster\.local/,
    );
  });

  it('names a public domain as outside the cluster without asking the cluster', async () => {
    const before = harness.mock.requestLog.length;
    const { result, data } = await resolve('https://api.stripe.com/v1/charges');
    assert.deepEqual([data.resolvedBy, data.host, data.port], ['external', 'api.stripe.com', 443]);
    assert.match(result.content, /outside the cluster/);
    assert.equal(harness.mock.requestLog.length, before);
  });

  it('answers an empty host with a readable invalid-input error', async () => {
    const result = await harness.call('resolve_host', { host: '  ', namespace: 'shop' });
    assert.equal(result.ok ? 'ok' : result.error, 'invalid-input');
    assert.match(result.content, /host: the host is empty/);
  });

  it("refuses a name in a namespace outside the run's allowlist", async () => {
    const result = await harness.call(
      'resolve_host',
      { host: 'orders-db.data', namespace: 'shop' },
      { allowedNamespaces: ['shop'] },
    );
    assert.equal(result.ok ? 'ok' : result.error, 'namespace-not-allowed');
  });
});

describe('describe_service', () => {
  let harness: Harness;
  before(async () => {
    harness = await startFixture('chain-hosts');
  });
  after(() => harness.mock.close());

  it("shows a crashlooping backend's reason, restarts and previous exit", async () => {
    const result = await harness.call('describe_service', { namespace: 'shop', name: 'inventory' });
    const data = dataOf<ServiceDetailsData>(result);
    const [pod] = data.pods.pods;
    assert.equal(pod?.problem?.state.reason, 'CrashLoopBackOff');
    assert.deepEqual([pod?.lastTermination?.state.reason, pod?.lastTermination?.state.exitCode], ['Error', 1]);
    assert.match(
      result.content,
      /inventory-7c9d8f6b5-abcde: CrashLoopBackOff, ready 0\/1, restarts 7, .*app waiting CrashLoopBackOff: back-off 5m0s; previous run terminated Error exit 1/,
    );
  });
});

describe('host names as cluster DNS reads them', () => {
  it("matches the outside-the-cluster table's examples", () => {
    for (const host of OUTSIDE_SUFFIXES.examples.match) assert.equal(parseHost(host, 'shop').kind, 'external', host);
    for (const host of OUTSIDE_SUFFIXES.examples.noMatch)
      assert.notEqual(parseHost(host, 'shop').kind, 'external', host);
  });

  it("reads name.namespace in search-path order: a headless pod in the client's namespace, then the Service", () => {
    const parsed = parseHost('orders-db.data', 'shop');
    assert.equal(parsed.kind, 'names');
    assert.deepEqual(parsed.kind === 'names' ? parsed.candidates.map((candidate) => candidate.fqdn) : [], [
      'orders-db.data.shop.svc.cluster.local',
      'orders-db.data.svc.cluster.local',
    ]);
  });

  it('reads a pod A record as its IP and loopback as the client itself', () => {
    assert.deepEqual(parseHost('10-42-1-3.data.pod.cluster.local', 'shop'), {
      kind: 'ip',
      host: '10-42-1-3.data.pod.cluster.local',
      ip: '10.42.1.3',
    });
    assert.equal(parseHost('localhost:8080', 'shop').kind, 'loopback');
    assert.equal(parseHost('redis:99999', 'shop').kind, 'invalid');
  });
});

describe('the system prompt', () => {
  const prompt = buildSystemPrompt();

  it("teaches following a client's unreachable host and an autoscaler alert with the new tools", () => {
    assert.match(prompt, /resolve_host with the host as written and the client's namespace/);
    assert.match(prompt, /KubeHpaMaxedOut or KubeHpaReplicasMismatch: list_horizontal_pod_autoscalers/);
    assert.match(prompt, /name no culprit from elsewhere/);
  });

  it('teaches the decisive facts: where a value is set, both sides of a mismatch, RBAC refusals, waiting clients, deliberate states and restart history', () => {
    assert.match(prompt, /configMapKeyRef or secretKeyRef with its object and key/);
    assert.match(prompt, /Name a Secret and its key, never its value/);
    assert.match(prompt, /image's architecture against the nodes' kubernetes\.io\/arch/);
    assert.match(prompt, /list_role_bindings \(serviceAccount, and check/);
    assert.match(prompt, /Init containers and sidecars .* are clients/);
    assert.match(prompt, /a suspended CronJob, a paused rollout/);
    assert.match(prompt, /say the count, the pace and the limit/);
  });

  it('names only tools that exist', () => {
    const known = new Set([...registry.list().map((tool) => tool.name), SUBMIT_DIAGNOSIS_TOOL]);
    const named = prompt.match(/\b[a-z]+(?:_[a-z]+)+\b/g) ?? [];
    assert.deepEqual(
      [...new Set(named)].filter((name) => !known.has(name)),
      [],
    );
  });
});
