/**
 * What a person reads before approving a write: each write tool's dry run against the mock
 * cluster says what would change, from the object as it is to the object the API server
 * answered the dry run with, and never shows a secret's value.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { startMockCluster, type MockCluster } from '../mock-cluster/index.ts';
import { createKubeCluster } from '../src/cluster/kube-adapter.ts';
import { createToolRegistry } from '../src/tools/registry.ts';
import type { ToolContext } from '../src/tools/tool.ts';
import type { WriteActionData } from '../src/tools/write-tool.ts';
import { dryRunThroughGate } from './helpers/gated-calls.ts';

const SCENARIO = join(import.meta.dirname, '..', 'mock-cluster', 'scenarios', 'checkout-secret-rotation');
const POD = 'checkout-api-7d9f8c6b5-x2k4q';
const registry = createToolRegistry();

async function withMock(t: TestContext): Promise<{ mock: MockCluster; context: ToolContext }> {
  const mock = await startMockCluster({ scenario: SCENARIO });
  t.after(() => mock.close());
  return {
    mock,
    context: {
      cluster: createKubeCluster({ kubeconfigPath: mock.kubeconfigPath }),
      signal: AbortSignal.timeout(20_000),
      outputBudgetBytes: 16_384,
    },
  };
}

async function diffOf(context: ToolContext, name: string, input: Record<string, unknown>): Promise<string[]> {
  const result = await dryRunThroughGate({ registry, name, input, context });
  assert.ok(result.ok, result.content);
  return (result.data as WriteActionData).diff;
}

/** Every value the scenario's Secrets hold, decoded. */
function secretValues(mock: MockCluster): string[] {
  return mock
    .list('Secret', 'staging')
    .flatMap((secret) => Object.values((secret['data'] as Record<string, string> | undefined) ?? {}))
    .map((encoded) => Buffer.from(encoded, 'base64').toString('utf8'))
    .filter((value) => value.length >= 4);
}

test('rollout_undo: the pod template fields that change, old → new, with secret references and never their values', async (t) => {
  const { mock, context } = await withMock(t);
  const diff = await diffOf(context, 'rollout_undo', { namespace: 'staging', name: 'checkout-api' });
  assert.deepEqual(diff, [
    'Deployment staging/checkout-api: pod template of revision 4 → that of revision 3 (rolled out as a new revision)',
    'app: env DB_PASSWORD: secretKeyRef checkout-db/password-old → secretKeyRef checkout-db/password',
  ]);
  const values = secretValues(mock);
  assert.ok(values.length > 0);
  for (const value of values) assert.ok(!diff.join('\n').includes(value), 'a secret value reached the diff');
  assert.match(
    JSON.stringify(mock.get('Deployment', 'staging', 'checkout-api')?.['spec']),
    /password-old/,
    'the dry run changed nothing',
  );
});

test('scale: replicas before → after', async (t) => {
  const { mock, context } = await withMock(t);
  const replicas = (mock.get('Deployment', 'staging', 'checkout-api')?.['spec'] as { replicas: number }).replicas;
  assert.deepEqual(await diffOf(context, 'scale', { namespace: 'staging', name: 'checkout-api', replicas: 0 }), [
    `Deployment staging/checkout-api: replicas ${replicas} → 0 (every pod stops)`,
  ]);
});

test('delete_pod: which pod goes, and that its ReplicaSet replaces it', async (t) => {
  const { context } = await withMock(t);
  const [line] = await diffOf(context, 'delete_pod', { namespace: 'staging', name: POD });
  assert.match(
    line ?? '',
    new RegExp(
      `^Pod staging/${POD}: deleted; its controller \\(ReplicaSet checkout-api-7d9f8c6b5 .*Deployment checkout-api\\) creates a replacement$`,
    ),
  );
});

test('rollout_restart: the restartedAt stamp the pod template would get, and that every pod is replaced', async (t) => {
  const { context } = await withMock(t);
  const [line] = await diffOf(context, 'rollout_restart', { namespace: 'staging', name: 'checkout-api' });
  assert.match(
    line ?? '',
    /^Deployment staging\/checkout-api: pod template annotation kubectl\.kubernetes\.io\/restartedAt: \(none\) → \d{4}-\d\d-\d\dT.*; every pod is replaced, one by one$/,
  );
});
