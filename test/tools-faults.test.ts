/**
 * Fault injection through the real client: not-found, forbidden, 500, 429, timeouts and
 * dropped connections come back as error results the model can read; no tool throws;
 * idempotent reads are retried, writes are not.
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startMockCluster, type FaultRule, type MockCluster } from '../mock-cluster/index.ts';
import { createKubeCluster, type KubeClusterOptions } from '../src/cluster/kube-adapter.ts';
import { computeDelayMs } from '../src/cluster/retry.ts';
import { createToolRegistry, defaultTools } from '../src/tools/registry.ts';
import { callThroughGate } from './helpers/gated-calls.ts';
import type { ToolContext, ToolResult } from '../src/tools/tool.ts';

const SCENARIO = join(import.meta.dirname, '..', 'mock-cluster', 'scenarios', 'checkout-secret-rotation');
const POD = 'checkout-api-7d9f8c6b5-x2k4q';
const registry = createToolRegistry();

/** Plausible arguments for every tool, on the checkout scenario. */
const CALLS: Record<string, Record<string, unknown>> = {
  list_pods: { namespace: 'staging' },
  describe_pod: { namespace: 'staging', name: POD },
  get_pod_logs: { namespace: 'staging', name: POD, previous: true },
  list_events: { namespace: 'staging' },
  list_deployments: { namespace: 'staging' },
  describe_deployment: { namespace: 'staging', name: 'checkout-api' },
  rollout_history: { namespace: 'staging', name: 'checkout-api' },
  list_replica_sets: { namespace: 'staging' },
  list_stateful_sets: { namespace: 'staging', name: 'checkout-db' },
  list_daemon_sets: { namespace: 'kube-system' },
  list_jobs: { namespace: 'staging' },
  list_cron_jobs: { namespace: 'staging' },
  list_nodes: {},
  list_services: { namespace: 'staging' },
  describe_service: { namespace: 'staging', name: 'checkout-api' },
  list_config_maps: { namespace: 'staging', name: 'checkout-api-config' },
  list_secrets: { namespace: 'staging' },
  list_persistent_volume_claims: { namespace: 'staging' },
  list_storage_classes: {},
  list_resource_quotas: { namespace: 'staging' },
  list_network_policies: { namespace: 'staging' },
  list_ingresses: { host: 'shop.example.com' },
  list_horizontal_pod_autoscalers: { namespace: 'staging' },
  list_role_bindings: {
    serviceAccount: { namespace: 'staging', name: 'default' },
    check: { verb: 'list', resource: 'pods', namespace: 'staging' },
  },
  resolve_host: { host: 'checkout-api:8080', namespace: 'staging' },
  rollout_restart: { namespace: 'staging', name: 'checkout-api' },
  rollout_undo: { namespace: 'staging', name: 'checkout-api' },
  scale: { namespace: 'staging', name: 'checkout-api', replicas: 3 },
  delete_pod: { namespace: 'staging', name: POD },
};

let mock: MockCluster;

before(async () => {
  mock = await startMockCluster({ scenario: SCENARIO });
});
after(() => mock.close());
beforeEach(() => {
  mock.faults.clear();
  mock.requestLog.length = 0;
});

function call(
  name: string,
  input: Record<string, unknown>,
  options: KubeClusterOptions & { signal?: AbortSignal } = {},
): Promise<ToolResult> {
  const { signal, ...clusterOptions } = options;
  const cluster = createKubeCluster({
    kubeconfigPath: mock.kubeconfigPath,
    retries: 2,
    retryBaseDelayMs: 5,
    retryMaxDelayMs: 50,
    ...clusterOptions,
  });
  const context: ToolContext = { cluster, signal: signal ?? AbortSignal.timeout(20_000), outputBudgetBytes: 16_384 };
  return callThroughGate({ registry, name, input, context });
}

function requestsTo(pattern: RegExp, method = 'GET'): number {
  return mock.requestLog.filter((request) => request.method === method && pattern.test(request.path)).length;
}

function failure(result: ToolResult): { error: string; content: string } {
  assert.equal(result.ok, false, `expected a failure, got: ${result.content}`);
  return result as { error: string; content: string };
}

const PODS_PATH = /^\/api\/v1\/namespaces\/staging\/pods$/;
const podsFault = (rule: Omit<FaultRule, 'path'>): FaultRule =>
  ({ ...rule, path: '^/api/v1/namespaces/staging/pods$' }) as FaultRule;

describe('cluster failures come back as results the model can read', () => {
  it('a missing object is not-found, with a hint of what to list', async () => {
    const result = failure(await call('describe_pod', { namespace: 'staging', name: 'checkout-api-gone' }));
    assert.equal(result.error, 'not-found');
    assert.match(result.content, /checkout-api-gone/);
    assert.match(result.content, /list_pods/);
  });

  it('403 is forbidden and is not retried', async () => {
    mock.faults.set([podsFault({ fault: 'forbidden' })]);
    const result = failure(await call('list_pods', { namespace: 'staging' }));
    assert.equal(result.error, 'forbidden');
    assert.match(result.content, /RBAC/);
    assert.equal(requestsTo(PODS_PATH), 1);
  });

  it('a single 500 is retried and the read succeeds', async () => {
    mock.faults.set([podsFault({ fault: 'error', count: 1 })]);
    const result = await call('list_pods', { namespace: 'staging' });
    assert.equal(result.ok, true);
    assert.equal(requestsTo(PODS_PATH), 2);
  });

  it('a persistent 500 is unavailable after the retries are spent', async () => {
    mock.faults.set([podsFault({ fault: 'error' })]);
    const result = failure(await call('list_pods', { namespace: 'staging' }, { retries: 2 }));
    assert.equal(result.error, 'unavailable');
    assert.equal(requestsTo(PODS_PATH), 3);
  });

  it('429 is retried after the Retry-After the server asked for', async () => {
    mock.faults.set([podsFault({ fault: 'throttle', count: 1, retryAfterSeconds: 1 })]);
    const started = performance.now();
    const result = await call('list_pods', { namespace: 'staging' }, { retryBaseDelayMs: 1, retryMaxDelayMs: 5_000 });
    assert.equal(result.ok, true);
    assert.equal(requestsTo(PODS_PATH), 2);
    assert.ok(performance.now() - started >= 900, 'waited for Retry-After rather than the 1 ms backoff');
  });

  it('a dropped connection is retried', async () => {
    mock.faults.set([podsFault({ fault: 'drop', count: 1 })]);
    const result = await call('list_pods', { namespace: 'staging' });
    assert.equal(result.ok, true);
  });

  it('a slow API server is a timeout, within the per-request bound', async () => {
    mock.faults.set([podsFault({ fault: 'latency', latencyMs: 3_000 })]);
    const started = performance.now();
    const result = failure(await call('list_pods', { namespace: 'staging' }, { requestTimeoutMs: 200 }));
    assert.equal(result.error, 'timeout');
    assert.match(result.content, /200 ms/);
    assert.ok(performance.now() - started < 2_500);
  });

  it("the run's signal cancels a call in flight", async () => {
    mock.faults.set([podsFault({ fault: 'latency', latencyMs: 3_000 })]);
    const result = failure(await call('list_pods', { namespace: 'staging' }, { signal: AbortSignal.timeout(100) }));
    assert.equal(result.error, 'timeout');
    assert.match(result.content, /cancelled/);
  });

  it('a later page that fails keeps the items already read, and says so', async () => {
    mock.faults.set([podsFault({ fault: 'forbidden', fraction: 0.5 })]);
    const result = await call('list_pods', { namespace: 'staging' }, { pageSize: 2, retries: 0 });
    assert.ok(result.ok, result.content);
    assert.match(result.content, /only 2 item\(s\) could be read before an error \(forbidden/);
  });

  it('a write is sent once: a failed dry run stops it before the real call', async () => {
    mock.faults.set([{ fault: 'error', method: 'PATCH', count: 1 }]);
    const result = failure(await call('rollout_restart', { namespace: 'staging', name: 'checkout-api' }));
    assert.equal(result.error, 'unavailable');
    assert.match(result.content, /Not executed: the server-side dry run failed/);
    assert.equal(requestsTo(/deployments\/checkout-api$/, 'PATCH'), 1);
  });
});

describe('no tool throws, whatever the API server does', () => {
  const faults: Array<[string, FaultRule[]]> = [
    ['every request answers 500', [{ fault: 'error' }]],
    ['every request answers 403', [{ fault: 'forbidden' }]],
    ['every connection drops', [{ fault: 'drop' }]],
  ];
  for (const [label, rules] of faults) {
    it(`${label}: every tool returns a readable error`, async () => {
      mock.faults.set(rules);
      assert.deepEqual(
        Object.keys(CALLS).sort(),
        defaultTools()
          .map((tool) => tool.name)
          .sort(),
        'every tool is exercised',
      );
      for (const [name, input] of Object.entries(CALLS)) {
        const result = await call(name, input, { retries: 1 });
        assert.equal(result.ok, false, `${name} should fail`);
        assert.ok(['unavailable', 'forbidden'].includes(result.ok ? '' : result.error), `${name}: ${result.content}`);
        assert.ok(result.content.length > 20, `${name} says what went wrong`);
      }
    });
  }
});

describe('backoff', () => {
  const policy = { retries: 3, baseDelayMs: 100, maxDelayMs: 2_000 };
  it('honours Retry-After, capped by the longest wait', () => {
    assert.equal(computeDelayMs(policy, 0, 1_500), 1_500);
    assert.equal(computeDelayMs(policy, 0, 60_000), 2_000);
  });
  it('grows exponentially with jitter, within bounds', () => {
    for (let attempt = 0; attempt < 6; attempt += 1) {
      const ceiling = Math.min(2_000, 100 * 2 ** attempt);
      const delay = computeDelayMs(policy, attempt, undefined);
      assert.ok(delay >= ceiling / 2 && delay <= ceiling, `attempt ${attempt}: ${delay}`);
    }
  });
});
