import { AppsV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startMockCluster, type MockCluster } from './server.ts';

const FIXTURE = new URL('./testdata/conformance', import.meta.url).pathname;
const SCENARIO_NOW = Date.parse('2026-11-29T10:00:00Z');

let cluster: MockCluster;
let core: CoreV1Api;
let apps: AppsV1Api;

before(async () => {
  cluster = await startMockCluster({ scenario: FIXTURE, generatedPods: [{ namespace: 'load', count: 5000 }] });
  const config = new KubeConfig();
  config.loadFromFile(cluster.kubeconfigPath);
  core = config.makeApiClient(CoreV1Api);
  apps = config.makeApiClient(AppsV1Api);
});
after(() => cluster.close());

describe('reads through @kubernetes/client-node', () => {
  test('lists pods with equality and set-based label selectors', async () => {
    const checkout = await core.listNamespacedPod({ namespace: 'shop', labelSelector: 'app=checkout' });
    assert.deepEqual(checkout.items.map((pod) => pod.metadata?.name).sort(), [
      'checkout-7d9f8c6b5-m8n2p',
      'checkout-7d9f8c6b5-x2k4q',
    ]);
    const setBased = await core.listNamespacedPod({
      namespace: 'shop',
      labelSelector: 'app in (web,report),tier!=batch',
    });
    assert.deepEqual(
      setBased.items.map((pod) => pod.metadata?.name),
      ['web-6f5d8b7c9-abcde'],
    );
    const withoutApp = await core.listNamespacedPod({ namespace: 'shop', labelSelector: '!app' });
    assert.ok(
      withoutApp.items.every((pod) => pod.metadata?.labels?.['app'] === undefined) && withoutApp.items.length > 0,
    );
  });

  test('filters by field selectors: status.phase, spec.nodeName, involvedObject.name', async () => {
    const pending = await core.listNamespacedPod({ namespace: 'shop', fieldSelector: 'status.phase=Pending' });
    assert.ok(pending.items.length > 0 && pending.items.every((pod) => pod.status?.phase === 'Pending'));
    const onNodeA = await core.listPodForAllNamespaces({
      fieldSelector: 'spec.nodeName=node-a,metadata.namespace=shop',
    });
    assert.ok(onNodeA.items.length > 0 && onNodeA.items.every((pod) => pod.spec?.nodeName === 'node-a'));
    const events = await core.listNamespacedEvent({
      namespace: 'shop',
      fieldSelector: 'involvedObject.name=report-generator,involvedObject.kind=Pod',
    });
    assert.deepEqual(
      events.items.map((event) => event.reason),
      ['FailedScheduling'],
    );
  });

  test('answers an unsupported field label with 400 BadRequest', async () => {
    await assert.rejects(
      core.listNamespacedPod({ namespace: 'shop', fieldSelector: 'spec.imaginary=x' }),
      (error: { code?: number; body?: string }) =>
        error.code === 400 && /field label not supported/.test(String(error.body)),
    );
  });

  test('reads current and previous container logs', async () => {
    const current = await core.readNamespacedPodLog({
      name: 'checkout-7d9f8c6b5-x2k4q',
      namespace: 'shop',
      container: 'app',
    });
    assert.match(current, /panic: missing required configuration PAYMENT_TIMEOUT_MS\n/);
    assert.doesNotMatch(current, /previous run/);
    const previous = await core.readNamespacedPodLog({
      name: 'checkout-7d9f8c6b5-x2k4q',
      namespace: 'shop',
      container: 'app',
      previous: true,
    });
    assert.match(previous, /\(previous run\)/);
    const tail = await core.readNamespacedPodLog({ name: 'checkout-7d9f8c6b5-x2k4q', namespace: 'shop', tailLines: 2 });
    assert.equal(tail, 'main.main()\n\t/src/cmd/checkout/main.go:42 +0x1d4\n');
    const limited = await core.readNamespacedPodLog({
      name: 'checkout-7d9f8c6b5-x2k4q',
      namespace: 'shop',
      limitBytes: 10,
    });
    assert.equal(
      limited,
      new Date(Date.parse('2026-11-29T09:57:50Z') + cluster.clockShiftMs).toISOString().slice(0, 10),
      'the first 10 bytes: the date the first line carries, on the served clock',
    );
  });

  test('applies sinceSeconds against the served clock and prefixes timestamps shifted with the log', async () => {
    const recent = await core.readNamespacedPodLog({
      name: 'checkout-7d9f8c6b5-x2k4q',
      namespace: 'shop',
      previous: true,
      sinceSeconds: 345,
      timestamps: true,
    });
    const lines = recent.trimEnd().split('\n');
    assert.deepEqual(lines.length, 2, recent);
    const written = new Date(Date.parse('2026-11-29T09:54:19.900Z') + cluster.clockShiftMs).toISOString();
    assert.ok((lines[0] ?? '').startsWith(`${written.replace('.900Z', '.9Z')} ${written} ERROR`), lines[0]);
  });

  test('refuses previous logs of a container that never terminated, as the kubelet does', async () => {
    await assert.rejects(
      core.readNamespacedPodLog({ name: 'web-6f5d8b7c9-abcde', namespace: 'shop', previous: true }),
      (error: { code?: number; body?: string }) =>
        error.code === 400 &&
        /previous terminated container \\?"web\\?" in pod \\?"web-6f5d8b7c9-abcde\\?" not found/.test(
          String(error.body),
        ),
    );
  });

  test('pages 5,000 generated pods with limit and continue, each exactly once', async () => {
    const started = performance.now();
    const seen = new Map<string, number>();
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await core.listNamespacedPod({
        namespace: 'load',
        limit: 500,
        ...(token ? { _continue: token } : {}),
      });
      pages += 1;
      for (const pod of page.items) seen.set(pod.metadata?.name ?? '', (seen.get(pod.metadata?.name ?? '') ?? 0) + 1);
      token = page.metadata?._continue || undefined;
      if (token) assert.ok((page.metadata?.remainingItemCount ?? 0) > 0);
    } while (token);
    assert.equal(pages, 10);
    assert.equal(seen.size, 5000);
    assert.ok([...seen.values()].every((count) => count === 1));
    assert.ok(performance.now() - started < 10_000, 'paging 5,000 pods stays fast');
  });

  test('the generated namespace is a realistic mix, mostly healthy', async () => {
    const pods = cluster.list('Pod', 'load');
    const running = pods.filter((pod) => (pod['status'] as { phase?: string }).phase === 'Running').length;
    const pending = pods.filter((pod) => (pod['status'] as { phase?: string }).phase === 'Pending').length;
    assert.equal(pods.length, 5000);
    assert.ok(running > 4500 && pending > 100, `running ${running}, pending ${pending}`);
    const deployments = await apps.listNamespacedDeployment({ namespace: 'load' });
    assert.equal(deployments.items.length, 100);
  });

  test('serves the scenario moved to the real now, and the real clock as the Date header', async () => {
    const response = await fetch(`${cluster.url}/version`);
    const date = Date.parse(response.headers.get('date') ?? '');
    assert.ok(Math.abs(date - Date.now()) < 2_000, response.headers.get('date') ?? 'no Date');
    assert.ok(
      cluster.now().getTime() - (SCENARIO_NOW + cluster.clockShiftMs) >= 0 &&
        cluster.now().getTime() - (SCENARIO_NOW + cluster.clockShiftMs) < 120_000,
      'the scenario now, shifted, is the served clock at start',
    );
    assert.equal(cluster.clockShiftMs % 1000, 0, 'whole seconds, as metav1.Time serialises');
    assert.equal(((await response.json()) as { gitVersion: string }).gitVersion, 'v1.33.0');
  });

  test('answers NotFound as a Status object', async () => {
    const response = await fetch(`${cluster.url}/apis/apps/v1/namespaces/shop/deployments/nope`);
    assert.equal(response.status, 404);
    assert.deepEqual(await response.json(), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'deployments.apps "nope" not found',
      reason: 'NotFound',
      details: { name: 'nope', group: 'apps', kind: 'deployments' },
      code: 404,
    });
  });
});
