/**
 * The per-run read cache and the cheap reads behind it, against the mock cluster: what a
 * run reads twice is fetched once, what differs in any parameter is fetched again, a write
 * empties the cache, failures are not kept, and list_nodes reads only the pods of the nodes
 * it reports on. Requests are counted at the mock server.
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMockCluster, type MockCluster } from '../mock-cluster/index.ts';
import { createKubeCluster } from '../src/cluster/kube-adapter.ts';
import { createRunReadCache } from '../src/cluster/read-cache.ts';
import type { NetworkPoliciesData } from '../src/tools/list-network-policies.ts';
import type { NodesData } from '../src/tools/list-nodes.ts';
import { createToolRegistry, runReadTool } from '../src/tools/registry.ts';
import type { ReadToolContext, ToolResult } from '../src/tools/tool.ts';

const SCENARIOS = join(import.meta.dirname, '..', 'mock-cluster', 'scenarios');
const POD = 'checkout-api-7d9f8c6b5-x2k4q';

function gets(mock: MockCluster, path?: RegExp): { path: string; query: string }[] {
  return mock.requestLog.filter(
    (request) => request.method === 'GET' && (path === undefined || path.test(request.path)),
  );
}

describe('the run read cache', () => {
  let mock: MockCluster;
  before(async () => {
    mock = await startMockCluster({ scenario: join(SCENARIOS, 'checkout-secret-rotation') });
  });
  after(() => mock.close());
  beforeEach(() => {
    mock.requestLog.length = 0;
  });

  it('fetches an object, a list and a log once however often the run asks', async () => {
    const cache = createRunReadCache(createKubeCluster({ kubeconfigPath: mock.kubeconfigPath }));
    for (let round = 0; round < 3; round += 1) {
      assert.ok((await cache.get('Deployment', { namespace: 'staging', name: 'checkout-api' })).ok);
      assert.ok((await cache.list('Pod', { namespace: 'staging', labelSelector: 'app=checkout-api' })).ok);
      assert.ok(
        (await cache.readPodLog({ namespace: 'staging', name: POD, container: 'app', previous: true, tailLines: 100 }))
          .ok,
      );
    }
    assert.equal(gets(mock).length, 3);
    assert.deepEqual(cache.stats(), { hits: 6, misses: 3 });
  });

  it('shares one request between calls made while it is in flight', async () => {
    const cache = createRunReadCache(createKubeCluster({ kubeconfigPath: mock.kubeconfigPath }));
    const answers = await Promise.all([cache.list('Pod', {}), cache.list('Pod', {}), cache.list('Pod', {})]);
    assert.ok(answers.every((answer) => answer.ok));
    assert.equal(gets(mock, /^\/api\/v1\/pods$/).length, 1);
  });

  it('asks again when anything that changes the answer differs', async () => {
    const cache = createRunReadCache(createKubeCluster({ kubeconfigPath: mock.kubeconfigPath }));
    await cache.list('Pod', { namespace: 'staging' });
    await cache.list('Pod', { namespace: 'staging', labelSelector: 'app=checkout-api' });
    await cache.list('Pod', { namespace: 'staging', fieldSelector: 'status.phase=Running' });
    await cache.list('Pod', {});
    await cache.readPodLog({ namespace: 'staging', name: POD, container: 'app' });
    await cache.readPodLog({ namespace: 'staging', name: POD, container: 'app', previous: true });
    await cache.readPodLog({ namespace: 'staging', name: POD, container: 'app', previous: true, tailLines: 5 });
    assert.equal(gets(mock).length, 7);
  });

  it('answers a get from a list that held the object, and a smaller maxItems from a list read whole', async () => {
    const cache = createRunReadCache(createKubeCluster({ kubeconfigPath: mock.kubeconfigPath }));
    const listed = await cache.list('Pod', { namespace: 'staging' });
    assert.ok(listed.ok);
    const pod = await cache.get('Pod', { namespace: 'staging', name: POD });
    assert.ok(pod.ok);
    assert.equal(pod.value.metadata?.name, POD);
    const cut = await cache.list('Pod', { namespace: 'staging', maxItems: 1 });
    assert.ok(cut.ok);
    assert.equal(cut.value.items.length, 1);
    assert.equal(cut.value.incomplete, listed.value.items.length > 1);
    assert.equal(gets(mock).length, 1);
  });

  it('hands every caller its own items array', async () => {
    const cache = createRunReadCache(createKubeCluster({ kubeconfigPath: mock.kubeconfigPath }));
    const first = await cache.list('Pod', { namespace: 'staging' });
    assert.ok(first.ok);
    const count = first.value.items.length;
    first.value.items.length = 0;
    const second = await cache.list('Pod', { namespace: 'staging' });
    assert.ok(second.ok);
    assert.equal(second.value.items.length, count);
  });

  it('never serves a read made before a write after it', async () => {
    const cache = createRunReadCache(createKubeCluster({ kubeconfigPath: mock.kubeconfigPath }));
    const before = await cache.get('Deployment', { namespace: 'staging', name: 'checkout-api' });
    assert.ok(before.ok);
    const scaled = await cache.scale({
      kind: 'Deployment',
      namespace: 'staging',
      name: 'checkout-api',
      replicas: (before.value.spec?.replicas ?? 1) + 2,
      dryRun: false,
    });
    assert.ok(scaled.ok);
    const afterWrite = await cache.get('Deployment', { namespace: 'staging', name: 'checkout-api' });
    assert.ok(afterWrite.ok);
    assert.equal(afterWrite.value.spec?.replicas, scaled.value.replicas);
    assert.equal(gets(mock, /\/deployments\/checkout-api$/).length, 2);
  });

  it('does not keep a failure: the next call asks the server again', async () => {
    const cache = createRunReadCache(createKubeCluster({ kubeconfigPath: mock.kubeconfigPath, retries: 0 }));
    mock.faults.set([{ fault: 'error', status: 500, path: '/api/v1/namespaces/staging/pods' }]);
    try {
      const failed = await cache.list('Pod', { namespace: 'staging' });
      assert.equal(failed.ok, false);
    } finally {
      mock.faults.clear();
    }
    const recovered = await cache.list('Pod', { namespace: 'staging' });
    assert.ok(recovered.ok);
    assert.equal(gets(mock, /^\/api\/v1\/namespaces\/staging\/pods$/).length, 2);
  });
});

describe('reads as plain JSON', () => {
  it("keep the client models' names for the fields they rename (NetworkPolicy ingress `from`)", async () => {
    const mock = await startMockCluster({ scenario: join(SCENARIOS, 'orders-api-networkpolicy') });
    try {
      const cluster = createKubeCluster({ kubeconfigPath: mock.kubeconfigPath });
      const served = mock
        .list('NetworkPolicy')
        .flatMap((policy) =>
          ((policy['spec'] as { ingress?: { from?: unknown[] }[] } | undefined)?.ingress ?? []).filter(
            (rule) => rule.from !== undefined,
          ),
        );
      assert.ok(served.length > 0, 'the scenario has an ingress rule with from');
      const listed = await cluster.list('NetworkPolicy', {});
      assert.ok(listed.ok);
      const rules = listed.value.items.flatMap((policy) => policy.spec?.ingress ?? []);
      assert.ok(rules.some((rule) => Array.isArray(rule._from) && rule._from.length > 0));
      const namespace = mock.list('NetworkPolicy')[0]?.metadata.namespace ?? '';
      const tool = await runReadTool({
        registry: createToolRegistry(),
        name: 'list_network_policies',
        input: { namespace },
        context: { cluster, signal: AbortSignal.timeout(10_000), outputBudgetBytes: 16_384 },
      });
      assert.ok(tool.ok, tool.content);
      assert.ok((tool.data as NetworkPoliciesData).policies.length > 0);
    } finally {
      await mock.close();
    }
  });
});

describe('reads as plain JSON, on the wire', () => {
  it('reuse connections from one read to the next', async () => {
    let connections = 0;
    const server = createServer((_request, response) => {
      response.setHeader('Content-Type', 'application/json');
      response.end(JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: {}, items: [] }));
    });
    server.on('connection', () => {
      connections += 1;
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const directory = await mkdtemp(join(tmpdir(), 'kubewhy-reuse-'));
    try {
      const { port } = server.address() as AddressInfo;
      const kubeconfigPath = join(directory, 'kubeconfig');
      await writeFile(
        kubeconfigPath,
        `apiVersion: v1\nkind: Config\nclusters:\n- name: local\n  cluster:\n    server: http://127.0.0.1:${port}\ncontexts:\n- name: local\n  context: {cluster: local, user: reader}\ncurrent-context: local\nusers:\n- name: reader\n  user: {token: t0k3n}\n`,
      );
      const cluster = createKubeCluster({ kubeconfigPath });
      for (let read = 0; read < 20; read += 1) assert.ok((await cluster.list('Pod', { namespace: 'shop' })).ok);
      assert.ok(connections <= 2, `${connections} connections for 20 reads`);
    } finally {
      server.closeAllConnections();
      server.close();
      await rm(directory, { recursive: true, force: true });
    }
  });
});

describe('list_nodes', () => {
  let mock: MockCluster;
  before(async () => {
    mock = await startMockCluster({
      scenario: join(SCENARIOS, 'checkout-secret-rotation'),
      generatedPods: [{ namespace: 'bulk', count: 300 }],
    });
  });
  after(() => mock.close());
  beforeEach(() => {
    mock.requestLog.length = 0;
  });

  async function call(context: ReadToolContext, name: string, input: Record<string, unknown>): Promise<ToolResult> {
    return runReadTool({ registry: createToolRegistry(), name, input, context });
  }

  it("reads only the named node's pods, with a field selector", async () => {
    const cluster = createRunReadCache(createKubeCluster({ kubeconfigPath: mock.kubeconfigPath }));
    const node = mock.list('Node')[0]?.metadata.name ?? '';
    const result = await call(
      { cluster, signal: AbortSignal.timeout(10_000), outputBudgetBytes: 16_384 },
      'list_nodes',
      { name: node },
    );
    assert.ok(result.ok, result.content);
    const podLists = gets(mock, /^\/api\/v1\/pods$/);
    assert.equal(podLists.length, 1);
    assert.match(
      decodeURIComponent(podLists[0]?.query ?? ''),
      new RegExp(`fieldSelector=spec\\.nodeName=${node.replace(/\./g, '\\.')}`),
    );
    const expected = mock
      .list('Pod')
      .filter(
        (pod) =>
          (pod['spec'] as { nodeName?: string } | undefined)?.nodeName === node &&
          !['Succeeded', 'Failed'].includes(String((pod['status'] as { phase?: string } | undefined)?.phase)),
      );
    assert.equal((result.data as NodesData).nodes[0]?.podCount, expected.length);
  });

  it('shares one list of every pod with list_pods in the same run', async () => {
    const cluster = createRunReadCache(createKubeCluster({ kubeconfigPath: mock.kubeconfigPath }));
    const context: ReadToolContext = { cluster, signal: AbortSignal.timeout(10_000), outputBudgetBytes: 16_384 };
    const [pods, nodes] = await Promise.all([call(context, 'list_pods', {}), call(context, 'list_nodes', {})]);
    assert.ok(pods.ok && nodes.ok);
    const firstPages = gets(mock, /^\/api\/v1\/pods$/).filter((request) => !request.query.includes('continue='));
    assert.equal(firstPages.length, 1);
    const counted = (nodes.data as NodesData).nodes.reduce((total, node) => total + (node.podCount ?? 0), 0);
    assert.ok(counted > 300, `pods counted on nodes: ${counted}`);
  });
});
