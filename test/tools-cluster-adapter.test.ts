/**
 * The @kubernetes/client-node adapter against the mock cluster: the cluster's clock from the
 * Date header, paged lists bounded by maxItems, Secrets without values, and errors as values.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMockCluster, type MockCluster } from '../mock-cluster/index.ts';
import { createKubeCluster } from '../src/cluster/kube-adapter.ts';

const SCENARIOS = join(import.meta.dirname, '..', 'mock-cluster', 'scenarios');

describe('the cluster clock', () => {
  let mock: MockCluster;
  before(async () => {
    // A snapshot taken a year before the machine's clock, served moved to it.
    mock = await startMockCluster({ scenario: join(SCENARIOS, 'nightly-report-cronjob') });
  });
  after(() => mock.close());

  it("follows the API server's Date header once it has answered", async () => {
    const cluster = createKubeCluster({ kubeconfigPath: mock.kubeconfigPath });
    assert.ok(Math.abs(cluster.now().getTime() - Date.now()) < 1_000, 'the local clock before any answer');
    const result = await cluster.list('Namespace');
    assert.ok(result.ok);
    assert.ok(
      Math.abs(cluster.now().getTime() - mock.now().getTime()) < 2_000,
      `${cluster.now().toISOString()} vs ${mock.now().toISOString()}`,
    );
    assert.ok(Math.abs(mock.clockShiftMs) > 86_400_000, 'the snapshot was served moved to the real now');
  });
});

describe('lists', () => {
  let mock: MockCluster;
  before(async () => {
    mock = await startMockCluster({
      scenario: join(SCENARIOS, 'checkout-secret-rotation'),
      generatedPods: [{ namespace: 'bulk', count: 230 }],
    });
  });
  after(() => mock.close());

  it('follow continue tokens page by page', async () => {
    const cluster = createKubeCluster({ kubeconfigPath: mock.kubeconfigPath, pageSize: 50 });
    const result = await cluster.list('Pod', { namespace: 'bulk' });
    assert.ok(result.ok);
    assert.equal(result.value.items.length, 230);
    assert.equal(result.value.incomplete, false);
    const pages = mock.requestLog.filter((request) => request.path === '/api/v1/namespaces/bulk/pods');
    assert.equal(pages.length, 5);
  });

  it('stop at maxItems and say how many remain', async () => {
    const cluster = createKubeCluster({ kubeconfigPath: mock.kubeconfigPath, pageSize: 50 });
    const result = await cluster.list('Pod', { namespace: 'bulk', maxItems: 100 });
    assert.ok(result.ok);
    assert.equal(result.value.items.length, 100);
    assert.equal(result.value.incomplete, true);
    assert.equal(result.value.remainingItemCount, 130);
  });

  it('pass label and field selectors to the server', async () => {
    const cluster = createKubeCluster({ kubeconfigPath: mock.kubeconfigPath });
    const result = await cluster.list('Pod', {
      namespace: 'staging',
      labelSelector: 'app=checkout-api',
      fieldSelector: 'status.phase=Running',
    });
    assert.ok(result.ok);
    assert.ok(result.value.items.length > 0);
    assert.ok(result.value.items.every((pod) => pod.metadata?.labels?.['app'] === 'checkout-api'));
  });
});

describe('secrets and errors', () => {
  let mock: MockCluster;
  before(async () => {
    mock = await startMockCluster({ scenario: join(import.meta.dirname, 'fixtures', 'secret-canary') });
  });
  after(() => mock.close());

  it('hands out secret names, types and keys, never values', async () => {
    const cluster = createKubeCluster({ kubeconfigPath: mock.kubeconfigPath });
    const result = await cluster.listSecrets({ namespace: 'vault' });
    assert.ok(result.ok);
    const secret = result.value.find((item) => item.name === 'billing-db');
    assert.deepEqual(secret?.keys, ['api-key', 'password', 'token']);
    assert.ok(!JSON.stringify(result.value).includes('Q2FuYXJ5'), 'no base64 value');
    assert.ok(!JSON.stringify(result.value).includes('Canary'), 'no value, no annotation');
  });

  it('maps a missing object to not-found with the server message', async () => {
    const cluster = createKubeCluster({ kubeconfigPath: mock.kubeconfigPath });
    const result = await cluster.get('Deployment', { namespace: 'vault', name: 'nope' });
    assert.ok(!result.ok);
    assert.equal(result.error.kind, 'not-found');
    assert.equal(result.error.status, 404);
    assert.match(result.error.message, /get Deployment vault\/nope: .*nope/);
  });

  it('maps the previous log of a container that never terminated to not-found', async () => {
    const cluster = createKubeCluster({ kubeconfigPath: mock.kubeconfigPath });
    const result = await cluster.readPodLog({
      namespace: 'vault',
      name: 'sync-job-x7k2p',
      container: 'sync',
      previous: true,
    });
    assert.ok(!result.ok);
    assert.equal(result.error.kind, 'not-found');
  });

  it('maps an unreachable server to unavailable', async (context) => {
    const directory = await mkdtemp(join(tmpdir(), 'kubewhy-adapter-'));
    context.after(() => rm(directory, { recursive: true, force: true }));
    const kubeconfigPath = join(directory, 'kubeconfig');
    // Port 1 on loopback: nothing listens there, so the connection is refused.
    const kubeconfig = (await readFile(mock.kubeconfigPath, 'utf8')).replace(
      /server: \S+/,
      'server: http://127.0.0.1:1',
    );
    await writeFile(kubeconfigPath, kubeconfig);
    const cluster = createKubeCluster({ kubeconfigPath, retries: 1, retryBaseDelayMs: 1 });
    const result = await cluster.list('Pod', { namespace: 'vault' });
    assert.ok(!result.ok);
    assert.equal(result.error.kind, 'unavailable');
    assert.match(result.error.message, /unreachable/);
  });
});
