/**
 * Write tools against the mock cluster: the real call changes the cluster's state, the dry
 * run (sent with dryRun=All) changes nothing; both go through the same request builder.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startMockCluster, type KubeObject, type MockCluster } from '../mock-cluster/index.ts';
import { createKubeCluster } from '../src/cluster/kube-adapter.ts';
import { createToolRegistry, dryRunTool, runTool } from '../src/tools/registry.ts';
import type { RolloutHistoryData } from '../src/tools/rollout-history.ts';
import type { RolloutUndoData } from '../src/tools/rollout-undo.ts';
import type { ScaleData } from '../src/tools/scale.ts';
import type { DeletePodData } from '../src/tools/delete-pod.ts';
import type { ToolContext, ToolResult } from '../src/tools/tool.ts';

const SCENARIO = join(import.meta.dirname, '..', 'mock-cluster', 'scenarios', 'checkout-secret-rotation');
const POD = 'checkout-api-7d9f8c6b5-x2k4q';
const registry = createToolRegistry();

async function withMock(test: (mock: MockCluster, context: ToolContext) => Promise<void>): Promise<void> {
  const mock = await startMockCluster({ scenario: SCENARIO });
  try {
    const cluster = createKubeCluster({ kubeconfigPath: mock.kubeconfigPath });
    await test(mock, { cluster, signal: AbortSignal.timeout(20_000), outputBudgetBytes: 16_384 });
  } finally {
    await mock.close();
  }
}

function passwordKey(deployment: KubeObject | undefined): unknown {
  const containers = (deployment?.['spec'] as { template: { spec: { containers: Array<{ env?: Array<{ name: string; valueFrom?: { secretKeyRef?: { key: string } } }> }> } } }).template.spec.containers;
  return containers[0]?.env?.find((variable) => variable.name === 'DB_PASSWORD')?.valueFrom?.secretKeyRef?.key;
}

function templateAnnotations(object: KubeObject | undefined): Record<string, string> {
  return ((object?.['spec'] as { template?: { metadata?: { annotations?: Record<string, string> } } }).template?.metadata?.annotations) ?? {};
}

function assertOk(result: ToolResult): asserts result is ToolResult & { ok: true } {
  assert.ok(result.ok, result.content);
}

describe('rollout_undo', () => {
  it('dry run: validated by the server, the Deployment unchanged', () =>
    withMock(async (mock, context) => {
      const result = await dryRunTool({ registry, name: 'rollout_undo', input: { namespace: 'staging', name: 'checkout-api' }, context });
      assertOk(result);
      const data = result.data as RolloutUndoData;
      assert.equal(data.dryRun, true);
      assert.equal(data.toRevision, 3);
      assert.match(result.content, /^Dry run passed/);
      assert.equal(passwordKey(mock.get('Deployment', 'staging', 'checkout-api')), 'password-old');
      const patches = mock.requestLog.filter((request) => request.method === 'PATCH');
      assert.equal(patches.length, 1);
      assert.match(patches[0]?.query ?? '', /dryRun=All/);
    }));

  it('goes back to the previous revision: the secret reference is restored and a new revision rolls out', () =>
    withMock(async (mock, context) => {
      const result = await runTool({ registry, name: 'rollout_undo', input: { namespace: 'staging', name: 'checkout-api' }, context });
      assertOk(result);
      const data = result.data as RolloutUndoData;
      assert.deepEqual([data.fromRevision, data.toRevision, data.dryRun], [4, 3, false]);
      assert.deepEqual(data.changes, [{ container: 'app', field: 'env DB_PASSWORD', from: 'secretKeyRef checkout-db/password-old', to: 'secretKeyRef checkout-db/password' }]);
      assert.equal(passwordKey(mock.get('Deployment', 'staging', 'checkout-api')), 'password');
      const patches = mock.requestLog.filter((request) => request.method === 'PATCH');
      assert.deepEqual(patches.map((request) => /dryRun=All/.test(request.query)), [true, false], 'a dry run first, then the real call');
      const history = await runTool({ registry, name: 'rollout_history', input: { namespace: 'staging', name: 'checkout-api' }, context });
      assert.equal((history.ok ? (history.data as RolloutHistoryData) : undefined)?.currentRevision, 5);
    }));

  it('goes to a given revision', () =>
    withMock(async (mock, context) => {
      const result = await runTool({ registry, name: 'rollout_undo', input: { namespace: 'staging', name: 'checkout-api', toRevision: 2 }, context });
      assertOk(result);
      const deployment = mock.get('Deployment', 'staging', 'checkout-api') as { spec: { template: { spec: { containers: Array<{ image: string }> } } } } | undefined;
      assert.match(deployment?.spec.template.spec.containers[0]?.image ?? '', /checkout-api:1\.7\.0$/);
    }));

  it('refuses a revision that is not kept, changing nothing', () =>
    withMock(async (mock, context) => {
      const result = await runTool({ registry, name: 'rollout_undo', input: { namespace: 'staging', name: 'checkout-api', toRevision: 9 }, context });
      assert.equal(result.ok ? 'ok' : result.error, 'invalid-input');
      assert.match(result.content, /kept: 1, 2, 3, 4/);
      assert.equal(mock.requestLog.filter((request) => request.method === 'PATCH').length, 0);
    }));
});

describe('rollout_restart', () => {
  it('stamps the pod template with the cluster time; its dry run does not', () =>
    withMock(async (mock, context) => {
      const rehearsal = await dryRunTool({ registry, name: 'rollout_restart', input: { namespace: 'staging', name: 'frontend' }, context });
      assertOk(rehearsal);
      assert.equal(templateAnnotations(mock.get('Deployment', 'staging', 'frontend'))['kubectl.kubernetes.io/restartedAt'], undefined);
      const result = await runTool({ registry, name: 'rollout_restart', input: { namespace: 'staging', name: 'frontend' }, context });
      assertOk(result);
      const stamp = templateAnnotations(mock.get('Deployment', 'staging', 'frontend'))['kubectl.kubernetes.io/restartedAt'];
      assert.ok(stamp, 'restartedAt is set');
      assert.ok(Math.abs(Date.parse(stamp) - mock.now().getTime()) < 5_000, `${stamp} is the cluster's time`);
    }));

  it('restarts a StatefulSet', () =>
    withMock(async (mock, context) => {
      const result = await runTool({ registry, name: 'rollout_restart', input: { namespace: 'staging', name: 'checkout-db', kind: 'StatefulSet' }, context });
      assertOk(result);
      assert.ok(templateAnnotations(mock.get('StatefulSet', 'staging', 'checkout-db'))['kubectl.kubernetes.io/restartedAt']);
    }));
});

describe('scale', () => {
  it('sets the replicas; its dry run does not', () =>
    withMock(async (mock, context) => {
      const replicas = (): unknown => (mock.get('Deployment', 'staging', 'frontend')?.['spec'] as { replicas?: number }).replicas;
      const before = replicas();
      const rehearsal = await dryRunTool({ registry, name: 'scale', input: { namespace: 'staging', name: 'frontend', replicas: 5 }, context });
      assertOk(rehearsal);
      assert.equal(replicas(), before);
      const result = await runTool({ registry, name: 'scale', input: { namespace: 'staging', name: 'frontend', replicas: 5 }, context });
      assertOk(result);
      assert.deepEqual([(result.data as ScaleData).previousReplicas, (result.data as ScaleData).replicas], [before, 5]);
      assert.equal(replicas(), 5);
    }));
});

describe('delete_pod', () => {
  it('deletes the pod and says its controller replaces it; its dry run keeps it', () =>
    withMock(async (mock, context) => {
      const rehearsal = await dryRunTool({ registry, name: 'delete_pod', input: { namespace: 'staging', name: POD }, context });
      assertOk(rehearsal);
      assert.ok(mock.get('Pod', 'staging', POD), 'still there after the dry run');
      const result = await runTool({ registry, name: 'delete_pod', input: { namespace: 'staging', name: POD }, context });
      assertOk(result);
      assert.equal((result.data as DeletePodData).willBeReplaced, true);
      assert.match(result.content, /creates a replacement/);
      assert.equal(mock.get('Pod', 'staging', POD), undefined);
    }));

  it('is destructive, the others are write', () => {
    const risks = Object.fromEntries(['rollout_restart', 'rollout_undo', 'scale', 'delete_pod'].map((name) => [name, registry.get(name)?.risk]));
    assert.deepEqual(risks, { rollout_restart: 'write', rollout_undo: 'write', scale: 'write', delete_pod: 'destructive' });
  });
});
