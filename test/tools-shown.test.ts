/**
 * Within one run a container spec is printed once: describe_pod after describe_deployment
 * points at the template it already showed; without a shared transcript (no `shown`), or
 * when the pod's spec differs from the template, every line is printed.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startMockCluster, type MockCluster } from '../mock-cluster/index.ts';
import { createKubeCluster } from '../src/cluster/kube-adapter.ts';
import { createToolRegistry, runReadTool } from '../src/tools/registry.ts';
import type { ReadToolContext } from '../src/tools/tool.ts';

const SCENARIOS = join(import.meta.dirname, '..', 'mock-cluster', 'scenarios');
const registry = createToolRegistry();

describe('a container spec the run already read', () => {
  let mock: MockCluster;
  let context: (shown?: Map<string, string>) => ReadToolContext;
  before(async () => {
    mock = await startMockCluster({ scenario: join(SCENARIOS, 'checkout-secret-rotation') });
    const cluster = createKubeCluster({ kubeconfigPath: mock.kubeconfigPath });
    context = (shown) => ({
      cluster,
      signal: AbortSignal.timeout(20_000),
      outputBudgetBytes: 16_384,
      ...(shown ? { shown } : {}),
    });
  });
  after(() => mock.close());

  const describePod = async (ctx: ReadToolContext): Promise<string> => {
    const pods = await runReadTool({ registry, name: 'list_pods', input: { namespace: 'staging' }, context: ctx });
    assert.ok(pods.ok);
    const name = (pods.data as { pods: { name: string }[] }).pods.find((pod) =>
      pod.name.startsWith('checkout-api-'),
    )!.name;
    return (await runReadTool({ registry, name: 'describe_pod', input: { namespace: 'staging', name }, context: ctx }))
      .content;
  };

  it('is pointed at, not repeated, when the pod runs the template shown', async () => {
    const shown = new Map<string, string>();
    const deployment = (
      await runReadTool({
        registry,
        name: 'describe_deployment',
        input: { namespace: 'staging', name: 'checkout-api' },
        context: context(shown),
      })
    ).content;
    assert.match(deployment, /env: .*DB_PASSWORD/);
    const pod = await describePod(context(shown));
    assert.match(
      pod,
      /spec \(command, ports, env, resources, probes, mounts\): as in Deployment staging\/checkout-api's template above/,
    );
    assert.doesNotMatch(pod, /env: .*DB_PASSWORD/);
  });

  it('is printed whole when nothing was shown before', async () => {
    const pod = await describePod(context(new Map()));
    assert.match(pod, /env: .*DB_PASSWORD/);
    assert.doesNotMatch(pod, /as in Deployment/);
    assert.match(await describePod(context()), /env: .*DB_PASSWORD/);
  });
});
