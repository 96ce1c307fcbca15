/**
 * The read tools' not-found results name what is missing, against the mock cluster over the
 * real client: a namespace that does not exist (not an empty answer), a node, a Deployment.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startMockCluster, type MockCluster } from '../mock-cluster/index.ts';
import { createKubeCluster } from '../src/cluster/kube-adapter.ts';
import { createToolRegistry } from '../src/tools/registry.ts';
import type { ToolContext, ToolResult } from '../src/tools/tool.ts';
import { callThroughGate } from './helpers/gated-calls.ts';

const SCENARIO = join(import.meta.dirname, '..', 'mock-cluster', 'scenarios', 'checkout-secret-rotation');
const registry = createToolRegistry();
let mock: MockCluster;

before(async () => {
  mock = await startMockCluster({ scenario: SCENARIO });
});
after(() => mock.close());

function call(name: string, input: Record<string, unknown>): Promise<ToolResult> {
  const cluster = createKubeCluster({ kubeconfigPath: mock.kubeconfigPath, retries: 0 });
  const context: ToolContext = { cluster, signal: AbortSignal.timeout(20_000), outputBudgetBytes: 16_384 };
  return callThroughGate({ registry, name, input, context });
}

function failure(result: ToolResult): string {
  assert.equal(result.ok, false, `expected a failure, got: ${result.content}`);
  assert.equal(result.ok ? 'ok' : result.error, 'not-found');
  return result.content;
}

describe('not-found results name what is missing', () => {
  for (const [tool, input] of [
    ['list_pods', { namespace: 'nope' }],
    ['list_deployments', { namespace: 'nope' }],
    ['describe_pod', { namespace: 'nope', name: 'checkout-api-7d9f8c6b5-x2k4q' }],
    ['describe_deployment', { namespace: 'nope', name: 'checkout-api' }],
    ['describe_service', { namespace: 'nope', name: 'checkout-api' }],
  ] as const) {
    it(`${tool} in a namespace that does not exist says so, with the namespaces there are`, async () => {
      const content = failure(await call(tool, input));
      assert.match(content, /namespace "nope" does not exist\. The cluster has namespaces [^.]*\bstaging\b/);
    });
  }

  it('an empty answer in a namespace that exists stays an empty answer', async () => {
    const result = await call('list_deployments', { namespace: 'kube-public' });
    assert.equal(result.ok, true, result.content);
  });

  it('a Deployment missing from a namespace that exists is named, with what to list', async () => {
    const content = failure(await call('describe_deployment', { namespace: 'staging', name: 'cart' }));
    assert.match(content, /deployments(\.apps)? "cart" not found/);
    assert.match(content, /list_deployments/);
  });

  it('a node that does not exist is named, with the nodes there are', async () => {
    const content = failure(await call('list_nodes', { name: 'worker-3' }));
    assert.match(
      content,
      /node "worker-3" does not exist; the cluster has 3 node\(s\): ip-10-20-1-34\.eu-west-1\.compute\.internal, /,
    );
  });
});
