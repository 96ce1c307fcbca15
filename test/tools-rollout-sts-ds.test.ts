/**
 * rollout_history and rollout_undo for StatefulSets and DaemonSets, against the mock
 * serving mock-cluster/testdata/rollout-sts-ds: the history read from ControllerRevisions in
 * the shape a Deployment's has, and an undo that changes the cluster only after a dry run.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startMockCluster, type MockCluster } from '../mock-cluster/index.ts';
import { createKubeCluster } from '../src/cluster/kube-adapter.ts';
import { createToolRegistry } from '../src/tools/registry.ts';
import { callThroughGate, dryRunThroughGate } from './helpers/gated-calls.ts';
import type { RolloutHistoryData } from '../src/tools/rollout-history.ts';
import type { RolloutUndoData } from '../src/tools/rollout-undo.ts';
import type { ToolContext, ToolResult } from '../src/tools/tool.ts';

const SCENARIO = join(import.meta.dirname, '..', 'mock-cluster', 'testdata', 'rollout-sts-ds');
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

function assertOk(result: ToolResult): asserts result is ToolResult & { ok: true } {
  assert.ok(result.ok, result.content);
}

function firstContainer(
  mock: MockCluster,
  kind: string,
  name: string,
): { image?: string; env?: { name: string; value?: string }[] } {
  const spec = mock.get(kind, 'data', name)?.['spec'] as {
    template: { spec: { containers: { image?: string; env?: { name: string; value?: string }[] }[] } };
  };
  return spec.template.spec.containers[0] ?? {};
}

function patches(mock: MockCluster): boolean[] {
  return mock.requestLog
    .filter((request) => request.method === 'PATCH')
    .map((request) => /dryRun=All/.test(request.query));
}

describe('the cluster adapter', () => {
  it('lists ControllerRevisions by namespace and label selector, with the restoring patch intact', () =>
    withMock(async (_mock, context) => {
      const listed = await context.cluster.list('ControllerRevision', {
        namespace: 'data',
        labelSelector: 'app=log-agent',
      });
      assert.ok(listed.ok);
      assert.deepEqual(
        listed.value.items.map((revision) => [revision.metadata?.name, revision.revision]),
        [
          ['log-agent-5d7f9c8b64', 1],
          ['log-agent-8b6c4d7f95', 2],
        ],
      );
      const data = listed.value.items[0]?.data as { spec: { template: Record<string, unknown> } };
      assert.equal(data.spec.template['$patch'], 'replace');
    }));
});

describe('rollout_history of a StatefulSet or DaemonSet', () => {
  it("lists a StatefulSet's ControllerRevisions oldest first with what changed between them", () =>
    withMock(async (_mock, context) => {
      const result = await callThroughGate({
        registry,
        name: 'rollout_history',
        input: { namespace: 'data', name: 'orders-db', kind: 'StatefulSet' },
        context,
      });
      assertOk(result);
      const data = result.data as RolloutHistoryData;
      assert.equal(data.kind, 'StatefulSet');
      assert.equal(data.currentRevision, 3, 'the revision status.updateRevision names');
      assert.deepEqual(
        data.revisions.map((revision) => [
          revision.revision,
          revision.controllerRevision,
          revision.current,
          revision.readyReplicas,
          revision.replicas,
        ]),
        [
          [1, 'orders-db-58b4c7d9f6', false, 0, 0],
          [2, 'orders-db-6d8f7b5c94', false, 0, 0],
          [3, 'orders-db-7c9d5f8b46', true, 1, 3],
        ],
      );
      assert.equal(data.revisions[1]?.changeCause, 'postgres 16.3');
      assert.deepEqual(data.changes, [
        {
          fromRevision: 1,
          toRevision: 2,
          changes: [
            {
              container: 'postgres',
              field: 'image',
              from: 'registry.example.com/data/postgres:16.2',
              to: 'registry.example.com/data/postgres:16.3',
            },
          ],
        },
        {
          fromRevision: 2,
          toRevision: 3,
          changes: [{ container: 'postgres', field: 'env POSTGRES_MAX_CONNECTIONS', to: 'value "5000"' }],
        },
      ]);
      assert.match(
        result.content,
        /^Rollout history of StatefulSet data\/orders-db: current revision 3, 3 revision\(s\) kept\./,
      );
      assert.match(result.content, /revision 3 \(current\): ControllerRevision orders-db-7c9d5f8b46/);
    }));

  it("lists a DaemonSet's revisions, the newest current, with image and env changes", () =>
    withMock(async (_mock, context) => {
      const result = await callThroughGate({
        registry,
        name: 'rollout_history',
        input: { namespace: 'data', name: 'log-agent', kind: 'DaemonSet' },
        context,
      });
      assertOk(result);
      const data = result.data as RolloutHistoryData;
      assert.deepEqual([data.kind, data.currentRevision], ['DaemonSet', 2]);
      assert.deepEqual(
        data.revisions.map((revision) => [
          revision.revision,
          revision.current,
          revision.readyReplicas,
          revision.replicas,
        ]),
        [
          [1, false, 0, 0],
          [2, true, 0, 2],
        ],
      );
      assert.deepEqual(
        data.changes[0]?.changes.map((change) => `${change.field}: ${change.from} -> ${change.to}`),
        [
          'image: registry.example.com/ops/log-agent:3.0.4 -> registry.example.com/ops/log-agent:3.1.0',
          'env LOG_LEVEL: value "info" -> value "trace"',
        ],
      );
    }));

  it('shows one revision for a workload the snapshot lists without ControllerRevisions', () =>
    withMock(async (_mock, context) => {
      const result = await callThroughGate({
        registry,
        name: 'rollout_history',
        input: { namespace: 'data', name: 'cache', kind: 'StatefulSet' },
        context,
      });
      assertOk(result);
      const data = result.data as RolloutHistoryData;
      assert.deepEqual(
        data.revisions.map((revision) => [revision.revision, revision.controllerRevision, revision.current]),
        [[1, 'cache-5f6d7c8b9', true]],
      );
      assert.deepEqual(data.changes, []);
    }));

  it('answers a name of another kind with not-found that names the kind to ask for', () =>
    withMock(async (_mock, context) => {
      const result = await callThroughGate({
        registry,
        name: 'rollout_history',
        input: { namespace: 'data', name: 'web', kind: 'StatefulSet' },
        context,
      });
      assert.equal(result.ok ? 'ok' : result.error, 'not-found');
      assert.match(
        result.content,
        /data\/web is a Deployment, not a StatefulSet: call rollout_history again with kind "Deployment"/,
      );
      const deployment = await callThroughGate({
        registry,
        name: 'rollout_history',
        input: { namespace: 'data', name: 'web' },
        context,
      });
      assertOk(deployment);
      assert.equal((deployment.data as RolloutHistoryData).kind, 'Deployment', 'kind defaults to Deployment');
    }));

  it('answers an unknown name with not-found that points to the list tool', () =>
    withMock(async (_mock, context) => {
      const result = await callThroughGate({
        registry,
        name: 'rollout_history',
        input: { namespace: 'data', name: 'nothing', kind: 'DaemonSet' },
        context,
      });
      assert.equal(result.ok ? 'ok' : result.error, 'not-found');
      assert.match(result.content, /Use list_daemon_sets in "data"/);
    }));
});

describe('rollout_undo of a StatefulSet or DaemonSet', () => {
  it('dry run: validated by the server, the StatefulSet unchanged', () =>
    withMock(async (mock, context) => {
      const result = await dryRunThroughGate({
        registry,
        name: 'rollout_undo',
        input: { namespace: 'data', name: 'orders-db', kind: 'StatefulSet' },
        context,
      });
      assertOk(result);
      const data = result.data as RolloutUndoData;
      assert.deepEqual([data.kind, data.dryRun, data.fromRevision, data.toRevision], ['StatefulSet', true, 3, 2]);
      assert.match(
        result.content,
        /^Dry run passed: StatefulSet data\/orders-db would go back from revision 3 to the template of revision 2 \(ControllerRevision orders-db-6d8f7b5c94\)/,
      );
      assert.equal(firstContainer(mock, 'StatefulSet', 'orders-db').env?.length, 2);
      assert.deepEqual(patches(mock), [true]);
    }));

  it('puts the previous StatefulSet template back after a dry run, and the history shows it as a new revision', () =>
    withMock(async (mock, context) => {
      const result = await callThroughGate({
        registry,
        name: 'rollout_undo',
        input: { namespace: 'data', name: 'orders-db', kind: 'StatefulSet' },
        context,
      });
      assertOk(result);
      const data = result.data as RolloutUndoData;
      assert.deepEqual([data.dryRun, data.fromRevision, data.toRevision], [false, 3, 2]);
      assert.deepEqual(data.changes, [
        { container: 'postgres', field: 'env POSTGRES_MAX_CONNECTIONS', from: 'value "5000"' },
      ]);
      assert.deepEqual(patches(mock), [true, false], 'a dry run first, then the real call');
      assert.deepEqual(firstContainer(mock, 'StatefulSet', 'orders-db').env, [
        { name: 'POSTGRES_DB', value: 'orders' },
      ]);
      const history = await callThroughGate({
        registry,
        name: 'rollout_history',
        input: { namespace: 'data', name: 'orders-db', kind: 'StatefulSet' },
        context,
      });
      assertOk(history);
      const after = history.data as RolloutHistoryData;
      assert.equal(after.currentRevision, 4);
      assert.deepEqual(
        after.revisions.map((revision) => revision.revision),
        [1, 3, 4],
      );
    }));

  it('puts a given DaemonSet revision back', () =>
    withMock(async (mock, context) => {
      const result = await callThroughGate({
        registry,
        name: 'rollout_undo',
        input: { namespace: 'data', name: 'log-agent', kind: 'DaemonSet', toRevision: 1 },
        context,
      });
      assertOk(result);
      assert.deepEqual(patches(mock), [true, false]);
      const container = firstContainer(mock, 'DaemonSet', 'log-agent');
      assert.deepEqual(
        [container.image, container.env],
        ['registry.example.com/ops/log-agent:3.0.4', [{ name: 'LOG_LEVEL', value: 'info' }]],
      );
      assert.match(
        result.content,
        /^Rolled back DaemonSet data\/log-agent from revision 2 to the template of revision 1/,
      );
    }));

  it('refuses a revision that is not kept, changing nothing', () =>
    withMock(async (mock, context) => {
      const result = await callThroughGate({
        registry,
        name: 'rollout_undo',
        input: { namespace: 'data', name: 'orders-db', kind: 'StatefulSet', toRevision: 9 },
        context,
      });
      assert.equal(result.ok ? 'ok' : result.error, 'invalid-input');
      assert.match(result.content, /cannot undo StatefulSet data\/orders-db: revision 9 is not kept \(kept: 1, 2, 3\)/);
      assert.deepEqual(patches(mock), []);
    }));

  it('refuses a workload with one revision: there is nothing to go back to', () =>
    withMock(async (mock, context) => {
      const result = await callThroughGate({
        registry,
        name: 'rollout_undo',
        input: { namespace: 'data', name: 'node-probe', kind: 'DaemonSet' },
        context,
      });
      assert.equal(result.ok ? 'ok' : result.error, 'invalid-input');
      assert.match(result.content, /there is no revision before the current one \(kept: 1\)/);
      assert.deepEqual(patches(mock), []);
    }));

  it('answers a Deployment asked as a DaemonSet with not-found that names the kind, changing nothing', () =>
    withMock(async (mock, context) => {
      const result = await callThroughGate({
        registry,
        name: 'rollout_undo',
        input: { namespace: 'data', name: 'web', kind: 'DaemonSet' },
        context,
      });
      assert.equal(result.ok ? 'ok' : result.error, 'not-found');
      assert.match(
        result.content,
        /data\/web is a Deployment, not a DaemonSet: call rollout_undo again with kind "Deployment"/,
      );
      assert.deepEqual(patches(mock), []);
    }));
});
