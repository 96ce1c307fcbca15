/**
 * Rollout history and undo of StatefulSets and DaemonSets: the real kubectl 1.33 against
 * the mock serving mock-cluster/testdata/rollout-sts-ds, where the history lives in
 * ControllerRevisions. Every assertion is about what kubectl prints or what the cluster holds.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startMockCluster, type MockCluster } from '../mock-cluster/index.ts';
import { ensureKubectl } from '../scripts/binaries.ts';

const FIXTURE = new URL('../mock-cluster/testdata/rollout-sts-ds', import.meta.url).pathname;

let kubectlPath: string;
let cacheDir: string;

before(async () => {
  [kubectlPath, cacheDir] = await Promise.all([ensureKubectl(), mkdtemp(join(tmpdir(), 'kubewhy-kubectl-cache-'))]);
});
after(() => rm(cacheDir, { recursive: true, force: true }));

/** A fresh mock per test, so undos in one test never show in another. */
async function withCluster(
  check: (
    cluster: MockCluster,
    kubectl: (...args: string[]) => Promise<{ stdout: string; stderr: string; code: number }>,
  ) => Promise<void>,
): Promise<void> {
  const cluster = await startMockCluster({ scenario: FIXTURE });
  const kubectl = (...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> =>
    new Promise((resolve) => {
      execFile(
        kubectlPath,
        ['--kubeconfig', cluster.kubeconfigPath, '--cache-dir', cacheDir, '-n', 'data', ...args],
        { timeout: 30_000 },
        (error, stdout, stderr) => {
          resolve({ stdout, stderr, code: error ? Number((error as { code?: number }).code ?? 1) : 0 });
        },
      );
    });
  try {
    await check(cluster, kubectl);
  } finally {
    await cluster.close();
  }
}

/** The REVISION and CHANGE-CAUSE rows of `rollout history`. */
function historyRows(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => /^\d+\s/.test(line))
    .map((line) => line.trim().replace(/\s{2,}/g, ' | '));
}

function template(
  cluster: MockCluster,
  kind: string,
  name: string,
): { image?: string; env?: { name: string; value?: string }[] } {
  const spec = cluster.get(kind, 'data', name)?.['spec'] as {
    template: { spec: { containers: { image?: string; env?: { name: string; value?: string }[] }[] } };
  };
  return spec.template.spec.containers[0] ?? {};
}

describe('kubectl rollout history and undo of StatefulSets and DaemonSets', () => {
  test('get controllerrevisions prints each revision with its controller', () =>
    withCluster(async (_cluster, kubectl) => {
      const { stdout, stderr } = await kubectl('get', 'controllerrevisions', '-l', 'app=orders-db');
      assert.match(stdout.split('\n')[0] ?? '', /^NAME\s+CONTROLLER\s+REVISION\s+AGE$/, stderr);
      assert.match(stdout, /orders-db-7c9d5f8b46\s+statefulset\.apps\/orders-db\s+3\s+30m/);
      assert.equal(stdout.trim().split('\n').length, 4, 'only the selected revisions');
    }));

  test('rollout history sts lists the revisions with their change causes, and one revision in full', () =>
    withCluster(async (_cluster, kubectl) => {
      const history = await kubectl('rollout', 'history', 'sts/orders-db');
      assert.deepEqual(
        historyRows(history.stdout),
        ['1 | <none>', '2 | postgres 16.3', '3 | raise max connections'],
        history.stderr,
      );
      const detail = await kubectl('rollout', 'history', 'sts/orders-db', '--revision=1');
      assert.match(detail.stdout, /with revision #1/);
      assert.match(detail.stdout, /Image:\s+registry\.example\.com\/data\/postgres:16\.2/);
      assert.doesNotMatch(detail.stdout, /POSTGRES_MAX_CONNECTIONS/);
    }));

  test('rollout history ds lists its revisions, and --revision shows the older env', () =>
    withCluster(async (_cluster, kubectl) => {
      const history = await kubectl('rollout', 'history', 'ds/log-agent');
      assert.deepEqual(historyRows(history.stdout), ['1 | <none>', '2 | <none>'], history.stderr);
      const detail = await kubectl('rollout', 'history', 'ds/log-agent', '--revision=1');
      assert.match(detail.stdout, /LOG_LEVEL:\s+info/);
    }));

  test('a workload the snapshot lists without revisions still has revision 1', () =>
    withCluster(async (_cluster, kubectl) => {
      assert.deepEqual(historyRows((await kubectl('rollout', 'history', 'sts/cache')).stdout), ['1 | <none>']);
      assert.deepEqual(historyRows((await kubectl('rollout', 'history', 'ds/node-probe')).stdout), ['1 | <none>']);
      const named = await kubectl(
        'get',
        'controllerrevision',
        'cache-5f6d7c8b9',
        '-o',
        'jsonpath={.revision} {.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}',
      );
      assert.equal(named.stdout, '1 StatefulSet/cache', 'named after status.updateRevision');
    }));

  test('rollout undo sts --dry-run=server changes nothing', () =>
    withCluster(async (cluster, kubectl) => {
      const undo = await kubectl('rollout', 'undo', 'sts/orders-db', '--dry-run=server');
      assert.equal(undo.stdout.trim(), 'statefulset.apps/orders-db rolled back (server dry run)', undo.stderr);
      assert.equal(template(cluster, 'StatefulSet', 'orders-db').env?.length, 2);
      assert.deepEqual(historyRows((await kubectl('rollout', 'history', 'sts/orders-db')).stdout), [
        '1 | <none>',
        '2 | postgres 16.3',
        '3 | raise max connections',
      ]);
    }));

  test('rollout undo sts restores the previous template and the history shows it as the newest revision', () =>
    withCluster(async (cluster, kubectl) => {
      const undo = await kubectl('rollout', 'undo', 'sts/orders-db');
      assert.equal(undo.stdout.trim(), 'statefulset.apps/orders-db rolled back', undo.stderr);
      assert.deepEqual(template(cluster, 'StatefulSet', 'orders-db').env, [{ name: 'POSTGRES_DB', value: 'orders' }]);
      assert.deepEqual(historyRows((await kubectl('rollout', 'history', 'sts/orders-db')).stdout), [
        '1 | <none>',
        '3 | raise max connections',
        '4 | postgres 16.3',
      ]);
      const status = await kubectl('get', 'sts', 'orders-db', '-o', 'jsonpath={.status.updateRevision}');
      assert.equal(status.stdout, 'orders-db-6d8f7b5c94');
    }));

  test('rollout undo sts --to-revision goes to that revision; an unknown one is refused', () =>
    withCluster(async (cluster, kubectl) => {
      const undo = await kubectl('rollout', 'undo', 'sts/orders-db', '--to-revision=1');
      assert.equal(undo.code, 0, undo.stderr);
      assert.equal(template(cluster, 'StatefulSet', 'orders-db').image, 'registry.example.com/data/postgres:16.2');
      const unknown = await kubectl('rollout', 'undo', 'sts/orders-db', '--to-revision=9');
      assert.match(unknown.stderr, /unable to find specified revision 9 in history/);
    }));

  test('rollout undo ds --to-revision restores image and env and records a new revision', () =>
    withCluster(async (cluster, kubectl) => {
      const rehearsal = await kubectl('rollout', 'undo', 'ds/log-agent', '--to-revision=1', '--dry-run=server');
      assert.equal(rehearsal.stdout.trim(), 'daemonset.apps/log-agent rolled back (server dry run)', rehearsal.stderr);
      assert.equal(template(cluster, 'DaemonSet', 'log-agent').image, 'registry.example.com/ops/log-agent:3.1.0');
      const undo = await kubectl('rollout', 'undo', 'ds/log-agent', '--to-revision=1');
      assert.equal(undo.stdout.trim(), 'daemonset.apps/log-agent rolled back', undo.stderr);
      const restored = template(cluster, 'DaemonSet', 'log-agent');
      assert.deepEqual(
        [restored.image, restored.env],
        ['registry.example.com/ops/log-agent:3.0.4', [{ name: 'LOG_LEVEL', value: 'info' }]],
      );
      assert.deepEqual(historyRows((await kubectl('rollout', 'history', 'ds/log-agent')).stdout), [
        '2 | <none>',
        '3 | <none>',
      ]);
    }));

  test('a template change other than an undo is recorded as a new revision', () =>
    withCluster(async (cluster, kubectl) => {
      const set = await kubectl('set', 'image', 'ds/node-probe', 'probe=registry.example.com/ops/node-probe:1.1.0');
      assert.equal(set.code, 0, set.stderr);
      assert.deepEqual(historyRows((await kubectl('rollout', 'history', 'ds/node-probe')).stdout), [
        '1 | <none>',
        '2 | <none>',
      ]);
      assert.equal(
        cluster
          .list('ControllerRevision', 'data')
          .filter((revision) => revision.metadata.ownerReferences?.[0]?.name === 'node-probe').length,
        2,
      );
    }));
});
