/**
 * Write tools against the mock cluster, each approved through the gate: the real call
 * changes the cluster's state, the dry run (sent with dryRun=All) changes nothing; both go
 * through the same request builder. What each sends is what its API-call table lists (the
 * table the chart's ACT Role is tested against).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startMockCluster, type KubeObject, type MockCluster } from '../mock-cluster/index.ts';
import { createKubeCluster } from '../src/cluster/kube-adapter.ts';
import { formatApiCall } from '../src/cluster/write-api-calls.ts';
import { createToolRegistry, type WriteToolName } from '../src/tools/registry.ts';
import { WRITE_TOOL_API_CALLS } from '../src/tools/write-api-calls.ts';
import { callThroughGate, dryRunThroughGate } from './helpers/gated-calls.ts';
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
  const containers = (
    deployment?.['spec'] as {
      template: {
        spec: { containers: Array<{ env?: Array<{ name: string; valueFrom?: { secretKeyRef?: { key: string } } }> }> };
      };
    }
  ).template.spec.containers;
  return containers[0]?.env?.find((variable) => variable.name === 'DB_PASSWORD')?.valueFrom?.secretKeyRef?.key;
}

function templateAnnotations(object: KubeObject | undefined): Record<string, string> {
  return (
    (object?.['spec'] as { template?: { metadata?: { annotations?: Record<string, string> } } }).template?.metadata
      ?.annotations ?? {}
  );
}

function assertOk(result: ToolResult): asserts result is ToolResult & { ok: true } {
  assert.ok(result.ok, result.content);
}

describe('rollout_undo', () => {
  it('dry run: validated by the server, the Deployment unchanged', () =>
    withMock(async (mock, context) => {
      const result = await dryRunThroughGate({
        registry,
        name: 'rollout_undo',
        input: { namespace: 'staging', name: 'checkout-api' },
        context,
      });
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
      const result = await callThroughGate({
        registry,
        name: 'rollout_undo',
        input: { namespace: 'staging', name: 'checkout-api' },
        context,
      });
      assertOk(result);
      const data = result.data as RolloutUndoData;
      assert.deepEqual([data.fromRevision, data.toRevision, data.dryRun], [4, 3, false]);
      assert.deepEqual(data.changes, [
        {
          container: 'app',
          field: 'env DB_PASSWORD',
          from: 'secretKeyRef checkout-db/password-old',
          to: 'secretKeyRef checkout-db/password',
        },
      ]);
      assert.equal(passwordKey(mock.get('Deployment', 'staging', 'checkout-api')), 'password');
      const patches = mock.requestLog.filter((request) => request.method === 'PATCH');
      assert.deepEqual(
        patches.map((request) => /dryRun=All/.test(request.query)),
        [true, false],
        'a dry run first, then the real call',
      );
      const history = await callThroughGate({
        registry,
        name: 'rollout_history',
        input: { namespace: 'staging', name: 'checkout-api' },
        context,
      });
      assert.equal((history.ok ? (history.data as RolloutHistoryData) : undefined)?.currentRevision, 5);
    }));

  it('goes to a given revision', () =>
    withMock(async (mock, context) => {
      const result = await callThroughGate({
        registry,
        name: 'rollout_undo',
        input: { namespace: 'staging', name: 'checkout-api', toRevision: 2 },
        context,
      });
      assertOk(result);
      const deployment = mock.get('Deployment', 'staging', 'checkout-api') as
        { spec: { template: { spec: { containers: Array<{ image: string }> } } } } | undefined;
      assert.match(deployment?.spec.template.spec.containers[0]?.image ?? '', /checkout-api:1\.7\.0$/);
    }));

  it('refuses a revision that is not kept, changing nothing', () =>
    withMock(async (mock, context) => {
      const result = await callThroughGate({
        registry,
        name: 'rollout_undo',
        input: { namespace: 'staging', name: 'checkout-api', toRevision: 9 },
        context,
      });
      assert.equal(result.ok ? 'ok' : result.error, 'invalid-input');
      assert.match(result.content, /kept: 1, 2, 3, 4/);
      assert.equal(mock.requestLog.filter((request) => request.method === 'PATCH').length, 0);
    }));
});

describe('rollout_restart', () => {
  it('stamps the pod template with the cluster time; its dry run does not', () =>
    withMock(async (mock, context) => {
      const rehearsal = await dryRunThroughGate({
        registry,
        name: 'rollout_restart',
        input: { namespace: 'staging', name: 'frontend' },
        context,
      });
      assertOk(rehearsal);
      assert.equal(
        templateAnnotations(mock.get('Deployment', 'staging', 'frontend'))['kubectl.kubernetes.io/restartedAt'],
        undefined,
      );
      const result = await callThroughGate({
        registry,
        name: 'rollout_restart',
        input: { namespace: 'staging', name: 'frontend' },
        context,
      });
      assertOk(result);
      const stamp = templateAnnotations(mock.get('Deployment', 'staging', 'frontend'))[
        'kubectl.kubernetes.io/restartedAt'
      ];
      assert.ok(stamp, 'restartedAt is set');
      assert.ok(Math.abs(Date.parse(stamp) - mock.now().getTime()) < 5_000, `${stamp} is the cluster's time`);
    }));

  it('restarts a StatefulSet', () =>
    withMock(async (mock, context) => {
      const result = await callThroughGate({
        registry,
        name: 'rollout_restart',
        input: { namespace: 'staging', name: 'checkout-db', kind: 'StatefulSet' },
        context,
      });
      assertOk(result);
      assert.ok(
        templateAnnotations(mock.get('StatefulSet', 'staging', 'checkout-db'))['kubectl.kubernetes.io/restartedAt'],
      );
    }));
});

describe('scale', () => {
  it('sets the replicas; its dry run does not', () =>
    withMock(async (mock, context) => {
      const replicas = (): unknown =>
        (mock.get('Deployment', 'staging', 'frontend')?.['spec'] as { replicas?: number }).replicas;
      const before = replicas();
      const rehearsal = await dryRunThroughGate({
        registry,
        name: 'scale',
        input: { namespace: 'staging', name: 'frontend', replicas: 5 },
        context,
      });
      assertOk(rehearsal);
      assert.equal(replicas(), before);
      const result = await callThroughGate({
        registry,
        name: 'scale',
        input: { namespace: 'staging', name: 'frontend', replicas: 5 },
        context,
      });
      assertOk(result);
      assert.deepEqual([(result.data as ScaleData).previousReplicas, (result.data as ScaleData).replicas], [before, 5]);
      assert.equal(replicas(), 5);
    }));
});

describe('delete_pod', () => {
  it('deletes the pod and says its controller replaces it; its dry run keeps it', () =>
    withMock(async (mock, context) => {
      const rehearsal = await dryRunThroughGate({
        registry,
        name: 'delete_pod',
        input: { namespace: 'staging', name: POD },
        context,
      });
      assertOk(rehearsal);
      assert.ok(mock.get('Pod', 'staging', POD), 'still there after the dry run');
      const result = await callThroughGate({
        registry,
        name: 'delete_pod',
        input: { namespace: 'staging', name: POD },
        context,
      });
      assertOk(result);
      assert.equal((result.data as DeletePodData).willBeReplaced, true);
      assert.match(result.content, /creates a replacement/);
      assert.equal(mock.get('Pod', 'staging', POD), undefined);
    }));

  it('is destructive, the others are write', () => {
    const risks = Object.fromEntries(
      ['rollout_restart', 'rollout_undo', 'scale', 'delete_pod'].map((name) => [name, registry.get(name)?.risk]),
    );
    assert.deepEqual(risks, {
      rollout_restart: 'write',
      rollout_undo: 'write',
      scale: 'write',
      delete_pod: 'destructive',
    });
  });
});

/** A served request as RBAC names it: `group/resource[/subresource]:verb`. */
function grantOf(request: { method: string; path: string }): string {
  const parts = request.path.split('/').filter(Boolean);
  const [group, rest] = parts[0] === 'api' ? ['core', parts.slice(2)] : [parts[1] ?? '', parts.slice(3)];
  const scoped = rest[0] === 'namespaces' && rest.length > 2 ? rest.slice(2) : rest;
  const [resource, name, subresource] = scoped;
  const verbs: Record<string, string> = {
    GET: name === undefined ? 'list' : 'get',
    PATCH: 'patch',
    PUT: 'update',
    DELETE: 'delete',
    POST: 'create',
  };
  return `${group}/${resource}${subresource ? `/${subresource}` : ''}:${verbs[request.method] ?? request.method}`;
}

/** What a request changes or reads beyond the read roles: any verb but a plain get or list, and any subresource but a log. */
function isWriteSide(grant: string): boolean {
  const [resource = '', verb = ''] = grant.split(':');
  const subresource = resource.split('/')[2];
  return !['get', 'list'].includes(verb) || (subresource !== undefined && subresource !== 'log');
}

describe('what the write tools send is what their table lists', () => {
  it('every write tool has its API calls listed', () => {
    const writes = registry
      .list()
      .filter((tool) => tool.risk !== 'read')
      .map((tool) => tool.name)
      .sort();
    assert.deepEqual(Object.keys(WRITE_TOOL_API_CALLS).sort(), writes);
  });

  const cases: Array<{ tool: WriteToolName; input: Record<string, unknown>; sends: string[] }> = [
    {
      tool: 'rollout_restart',
      input: { namespace: 'staging', name: 'checkout-db', kind: 'StatefulSet' },
      sends: ['apps/statefulsets:patch'],
    },
    { tool: 'rollout_undo', input: { namespace: 'staging', name: 'checkout-api' }, sends: ['apps/deployments:patch'] },
    {
      tool: 'scale',
      input: { namespace: 'staging', name: 'frontend', replicas: 3 },
      sends: ['apps/deployments/scale:get', 'apps/deployments/scale:patch'],
    },
    {
      tool: 'scale',
      input: { namespace: 'staging', name: 'frontend-69c7f4d8b5', kind: 'ReplicaSet', replicas: 0 },
      sends: ['apps/replicasets/scale:get', 'apps/replicasets/scale:patch'],
    },
    { tool: 'delete_pod', input: { namespace: 'staging', name: POD }, sends: ['core/pods:delete'] },
  ];
  for (const { tool, input, sends } of cases) {
    it(`${tool} ${JSON.stringify(input)} sends ${sends.join(', ')}, all in its table`, () =>
      withMock(async (mock, context) => {
        assertOk(await callThroughGate({ registry, name: tool, input, context }));
        const sent = [...new Set(mock.requestLog.map(grantOf).filter(isWriteSide))].sort();
        assert.deepEqual(sent, [...sends].sort());
        const listed = new Set(WRITE_TOOL_API_CALLS[tool].map(formatApiCall));
        assert.deepEqual(
          sent.filter((grant) => !listed.has(grant)),
          [],
          `${tool} sends calls its table lacks`,
        );
      }));
  }
});
