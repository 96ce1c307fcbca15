/**
 * The mock cluster behaves as a real API server and its controllers would, seen through the
 * real kubectl and kubewhy's own tools: ages agree between get and describe, a lost node's
 * pod logs fail as the kubelet dial does, watches stream, self reviews answer, printers
 * match kubectl's columns, and scaling or restarting a Deployment makes pods.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startMockCluster, type MockCluster } from '../mock-cluster/index.ts';
import { kubectlRunner, type KubectlRunner } from '../mock-cluster/kubectl-runner.ts';
import { createKubeCluster } from '../src/cluster/kube-adapter.ts';
import { createToolRegistry } from '../src/tools/registry.ts';
import { ensureKubectl } from '../scripts/binaries.ts';
import { callThroughGate } from './helpers/gated-calls.ts';

const FIXTURE = new URL('../mock-cluster/testdata/real-api', import.meta.url).pathname;

let cluster: MockCluster;
let kubectl: KubectlRunner;
let cacheDir: string;

before(async () => {
  let kubectlPath: string;
  [cluster, kubectlPath, cacheDir] = await Promise.all([
    startMockCluster({ scenario: FIXTURE }),
    ensureKubectl(),
    mkdtemp(join(tmpdir(), 'kubewhy-kubectl-cache-')),
  ]);
  kubectl = kubectlRunner({ kubectlPath, kubeconfigPath: cluster.kubeconfigPath, cacheDir });
});
after(async () => {
  await cluster.close();
  await rm(cacheDir, { recursive: true, force: true });
});

/** The cells of the row whose first cell is `name`, split on kubectl's column gaps. */
function row(output: string, name: string): string[] {
  const line = output.split('\n').find((candidate) => candidate.split(/\s{2,}/)[0] === name);
  assert.ok(line, `no row ${name} in:\n${output}`);
  return line.split(/\s{2,}/);
}

describe('the mock as a real API server', () => {
  test('describe (local clock) and get (server clock) show the same ages: the snapshot is served moved to now', async () => {
    const events = await kubectl.run(
      'get',
      'events',
      '-n',
      'shop',
      '--field-selector',
      'involvedObject.name=checkout-7c6b5d4f8-ccccc',
    );
    assert.equal(row(events.stdout, '3h')[0], '3h', 'get: the event was last seen 3h before the snapshot');
    const described = await kubectl.run('describe', 'pod', '-n', 'shop', 'checkout-7c6b5d4f8-ccccc');
    assert.match(described.stdout, /Warning\s+BackOff\s+3h \(x12 over 3h\)\s+kubelet/, described.stdout);
    const deployment = await kubectl.run('describe', 'deployment', '-n', 'shop', 'web');
    assert.equal(row((await kubectl.run('get', 'deployment', '-n', 'shop', 'web')).stdout, 'web')[4], '10d');
    const created = /CreationTimestamp:\s+(.+)/.exec(deployment.stdout)?.[1] ?? '';
    assert.ok(
      Math.abs(Date.now() - 10 * 86_400_000 - Date.parse(created)) < 60_000,
      `describe's creation time is 10 days before the local now: ${created}`,
    );
  });

  test('logs of a pod on a lost node fail with the kubelet dial error, and get_pod_logs says so readably', async () => {
    const logs = await kubectl.run('logs', '-n', 'shop', 'batch-runner');
    assert.equal(logs.code, 1);
    assert.equal(
      logs.stderr.trim(),
      'Error from server: Get "https://10.0.3.7:10250/containerLogs/shop/batch-runner/runner": dial tcp 10.0.3.7:10250: i/o timeout',
    );
    const healthy = await kubectl.run('logs', '-n', 'shop', 'web-5d8f7c9b6-aaaaa');
    assert.equal(healthy.code, 0, 'a pod on a Ready node still has its (empty) log');
    const tools = createKubeCluster({ kubeconfigPath: cluster.kubeconfigPath, retries: 2, retryBaseDelayMs: 5 });
    const started = performance.now();
    const result = await callThroughGate({
      registry: createToolRegistry(),
      name: 'get_pod_logs',
      input: { namespace: 'shop', name: 'batch-runner' },
      context: { cluster: tools, signal: AbortSignal.timeout(20_000), outputBudgetBytes: 16_384 },
    });
    assert.ok(!result.ok);
    assert.match(result.content, /dial tcp 10\.0\.3\.7:10250: i\/o timeout/);
    assert.match(result.content, /kubelet of node node-b does not answer.*list_nodes/);
    assert.ok(performance.now() - started < 5_000, 'a dead kubelet is not retried');
  });

  test('get -w prints the list, then each pod a scale creates, as a watch stream', async () => {
    const watch = kubectl.start('get', 'pods', '-n', 'shop', '-l', 'app=web', '-w');
    try {
      await watch.waitFor(/web-5d8f7c9b6-bbbbb/);
      const scaled = await kubectl.run('scale', 'deployment/web', '-n', 'shop', '--replicas=3');
      assert.equal(scaled.code, 0, scaled.stderr);
      const output = await watch.waitFor(/web-5d8f7c9b6-(?!aaaaa|bbbbb)\w{5}\s+1\/1\s+Running/);
      assert.equal(output.split('\n').filter((line) => line.startsWith('NAME')).length, 1, 'one header');
    } finally {
      watch.stop();
    }
    const pods = await kubectl.run('get', 'pods', '-n', 'shop', '-l', 'app=web', '--no-headers');
    assert.equal(pods.stdout.trim().split('\n').length, 3);
    assert.deepEqual(row((await kubectl.run('get', 'deployment', '-n', 'shop', 'web')).stdout, 'web').slice(0, 4), [
      'web',
      '3/3',
      '3',
      '3',
    ]);
    assert.equal((await kubectl.run('scale', 'deployment/web', '-n', 'shop', '--replicas=2')).code, 0);
    const after = (await kubectl.run('get', 'pods', '-n', 'shop', '-l', 'app=web', '--no-headers')).stdout
      .trim()
      .split('\n');
    assert.deepEqual(
      after.map((line) => line.split(/\s+/)[2]).sort(),
      ['Running', 'Running', 'Terminating'],
      'scaling down terminates a pod, gracefully',
    );
  });

  test('rollout restart makes a new ReplicaSet with running pods, and rollout status reports it done; a crash loop times out', async () => {
    assert.equal((await kubectl.run('rollout', 'restart', 'deployment/web', '-n', 'shop')).code, 0);
    const status = await kubectl.run('rollout', 'status', 'deployment/web', '-n', 'shop', '--timeout=20s');
    assert.equal(status.stdout.trim(), 'deployment "web" successfully rolled out', status.stderr);
    const replicaSets = await kubectl.run('get', 'rs', '-n', 'shop', '-l', 'app=web', '--no-headers');
    const counts = replicaSets.stdout
      .trim()
      .split('\n')
      .map((line) => line.split(/\s+/).slice(1, 4).join(' '));
    assert.deepEqual(counts.sort(), ['0 0 0', '2 2 2']);
    const history = await kubectl.run('rollout', 'history', 'deployment/web', '-n', 'shop');
    assert.match(history.stdout, /^23\s/m, 'the restart is revision 23');
    const stuck = await kubectl.run('rollout', 'status', 'deployment/checkout', '-n', 'shop', '--timeout=2s');
    assert.equal(stuck.code, 1);
    assert.match(
      stuck.stdout,
      /Waiting for deployment "checkout" rollout to finish: 0 of 1 updated replicas are available/,
    );
    assert.match(stuck.stderr, /timed out waiting for the condition/);
  });

  test('scaling a crash-looping Deployment adds pods that crash the same way', async () => {
    assert.equal((await kubectl.run('scale', 'deployment/checkout', '-n', 'shop', '--replicas=2')).code, 0);
    const pods = await kubectl.run('get', 'pods', '-n', 'shop', '-l', 'app=checkout', '--no-headers');
    const states = pods.stdout
      .trim()
      .split('\n')
      .map((line) => line.split(/\s+/)[2]);
    assert.deepEqual(states, ['CrashLoopBackOff', 'CrashLoopBackOff']);
  });

  test('a Deployment at revision 22 that said generation 4 has a generation no lower than its revision, observed', async () => {
    const read = await kubectl.run(
      'get',
      'deployment',
      'checkout',
      '-n',
      'shop',
      '-o',
      'jsonpath={.metadata.generation} {.status.observedGeneration}',
    );
    assert.equal(read.stdout, '4 4', 'generation 3 at revision 3, bumped once by the scale, and observed');
    const web = cluster.scenario.objects.find(
      (object) => object.kind === 'Deployment' && object.metadata.name === 'web',
    );
    assert.equal(web?.metadata.generation, 22);
    assert.equal((web?.['status'] as { observedGeneration?: number }).observedGeneration, 22);
  });

  test('auth whoami and auth can-i answer for the admin and for an impersonated service account', async () => {
    assert.match(
      (await kubectl.run('auth', 'whoami')).stdout,
      /Username\s+kubernetes-admin\nGroups\s+\[kubeadm:cluster-admins system:masters system:authenticated\]/,
    );
    const asAccount = ['--as', 'system:serviceaccount:shop:reader'];
    const whoami = await kubectl.run('auth', 'whoami', ...asAccount);
    assert.match(
      whoami.stdout,
      /Username\s+system:serviceaccount:shop:reader\nGroups\s+\[system:serviceaccounts system:serviceaccounts:shop system:authenticated\]/,
    );
    assert.equal((await kubectl.run('auth', 'can-i', 'delete', 'pods', '-n', 'shop')).stdout.trim(), 'yes');
    const denied = await kubectl.run('auth', 'can-i', 'list', 'pods', '-n', 'shop', ...asAccount);
    assert.deepEqual([denied.stdout.trim(), denied.code], ['no', 1]);
    assert.equal(
      (
        await kubectl.run(
          'create',
          'role',
          'pod-reader',
          '-n',
          'shop',
          '--verb=get,list,watch',
          '--resource=pods,pods/log',
        )
      ).code,
      0,
    );
    assert.equal(
      (
        await kubectl.run(
          'create',
          'rolebinding',
          'reader',
          '-n',
          'shop',
          '--role=pod-reader',
          '--serviceaccount=shop:reader',
        )
      ).code,
      0,
    );
    assert.equal((await kubectl.run('auth', 'can-i', 'list', 'pods', '-n', 'shop', ...asAccount)).stdout.trim(), 'yes');
    assert.equal(
      (
        await kubectl.run('auth', 'can-i', 'get', 'pods', '--subresource=log', '-n', 'shop', ...asAccount)
      ).stdout.trim(),
      'yes',
    );
    assert.equal(
      (await kubectl.run('auth', 'can-i', 'list', 'pods', '-n', 'default', ...asAccount)).stdout.trim(),
      'no',
    );
    const refused = await kubectl.run('delete', 'pod', 'web-5d8f7c9b6-aaaaa', '-n', 'shop', ...asAccount);
    assert.equal(
      refused.stderr.trim(),
      'Error from server (Forbidden): pods "web-5d8f7c9b6-aaaaa" is forbidden: User "system:serviceaccount:shop:reader" cannot delete resource "pods" in API group "" in the namespace "shop"',
    );
  });

  test('get endpointslices prints NAME, ADDRESSTYPE, PORTS, ENDPOINTS and AGE', async () => {
    const { stdout } = await kubectl.run('get', 'endpointslices', '-n', 'shop');
    assert.match(stdout.split('\n')[0] ?? '', /^NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE$/);
    assert.deepEqual(row(stdout, 'web-x7k2p'), ['web-x7k2p', 'IPv4', '8080,9090', '10.42.0.5,10.42.0.6', '10d']);
  });

  test('get hpa prints TARGETS as each metric current/target', async () => {
    const { stdout } = await kubectl.run('get', 'hpa', '-n', 'shop');
    assert.equal(row(stdout, 'web')[2], 'cpu: 31%/65%, memory: 300Mi/500Mi');
  });

  test('explain reads the OpenAPI v3 schemas: fields, types and descriptions of the served kinds', async () => {
    const replicas = await kubectl.run('explain', 'deployment.spec.replicas');
    assert.equal(replicas.code, 0, replicas.stderr);
    assert.match(replicas.stdout, /GROUP:\s+apps\nKIND:\s+Deployment\nVERSION:\s+v1\n\nFIELD: replicas <integer>/);
    assert.match(replicas.stdout, /Number of desired pods\./);
    const containers = await kubectl.run('explain', 'pods.spec.containers');
    assert.match(containers.stdout, /FIELD: containers <\[\]Container>/);
    assert.match(containers.stdout, /The container image's CMD is used/);
    assert.match((await kubectl.run('explain', 'hpa.spec.metrics')).stdout, /FIELD: metrics <\[\]MetricSpec>/);
  });
});
