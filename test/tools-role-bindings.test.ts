/**
 * list_role_bindings through the real client against the mock cluster's RBAC objects: what
 * binds a service account the API refuses, whether a request is allowed and by which
 * binding, and errors the model can read.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startMockCluster, type MockCluster } from '../mock-cluster/index.ts';
import { createKubeCluster } from '../src/cluster/kube-adapter.ts';
import type { RoleBindingsData } from '../src/tools/list-role-bindings.ts';
import { createToolRegistry } from '../src/tools/registry.ts';
import type { ToolResult } from '../src/tools/tool.ts';
import { callThroughGate } from './helpers/gated-calls.ts';

const SCENARIO = join(import.meta.dirname, '..', 'mock-cluster', 'scenarios', 'canary-analyzer-rolebinding-wrong-ns');
const registry = createToolRegistry();

describe('list_role_bindings', () => {
  let mock: MockCluster;
  let call: (input: Record<string, unknown>) => Promise<ToolResult>;
  before(async () => {
    mock = await startMockCluster({ scenario: SCENARIO });
    const cluster = createKubeCluster({ kubeconfigPath: mock.kubeconfigPath, retries: 1, retryBaseDelayMs: 5 });
    call = (input) => callThroughGate({ registry, name: 'list_role_bindings', input, context: { cluster, signal: AbortSignal.timeout(20_000), outputBudgetBytes: 16_384 } });
  });
  after(() => mock.close());

  it('lists the bindings that name a service account, with their roles\' rules', async () => {
    const result = await call({ serviceAccount: { namespace: 'delivery', name: 'canary-analyzer' } });
    assert.ok(result.ok, result.content);
    const data = result.data as RoleBindingsData;
    assert.ok(data.bindings.some((binding) => binding.kind === 'RoleBinding' && binding.namespace === 'delivery' && binding.name === 'canary-analyzer-leader-election' && (binding.rules ?? []).length > 0));
    // The storefront binding names the account in namespace default: it does not name this one.
    assert.ok(!data.bindings.some((binding) => binding.name === 'canary-analyzer-target'));
    assert.match(result.content, /RoleBinding delivery\/canary-analyzer-leader-election -> Role canary-analyzer-leader-election/);
  });

  it('says a refused request is granted by no binding, and shows the binding that names another account', async () => {
    const refused = await call({ serviceAccount: { namespace: 'delivery', name: 'canary-analyzer' }, check: { verb: 'list', resource: 'pods', namespace: 'storefront' } });
    assert.ok(refused.ok, refused.content);
    assert.equal((refused.data as RoleBindingsData).access?.allowed, false);
    assert.match(refused.content, /can-i list pods in namespace storefront: no/);
    // The near miss: the binding in storefront names an account of the same name in namespace default.
    assert.deepEqual((refused.data as RoleBindingsData).sameNameElsewhere?.map((binding) => `${binding.namespace}/${binding.name}`), ['storefront/canary-analyzer-target']);
    assert.match(refused.content, /near miss: RoleBinding storefront\/canary-analyzer-target -> Role canary-analyzer-target; subjects ServiceAccount default\/canary-analyzer/);
    const namespace = await call({ namespace: 'storefront' });
    assert.ok(namespace.ok, namespace.content);
    assert.match(namespace.content, /RoleBinding storefront\/canary-analyzer-target -> Role canary-analyzer-target; subjects ServiceAccount default\/canary-analyzer/);
  });

  it('answers a service account that does not exist with the ones that do', async () => {
    const result = await call({ serviceAccount: { namespace: 'delivery', name: 'canary-analyser' } });
    assert.equal(result.ok, false);
    assert.match(result.content, /not-found: service account "canary-analyser" does not exist in namespace "delivery"; it has: .*canary-analyzer/);
  });

  it('asks for a namespace or an account rather than reading every binding of the cluster', async () => {
    const result = await call({});
    assert.equal(result.ok, false);
    assert.match(result.content, /give namespace .* or serviceAccount/);
  });
});
