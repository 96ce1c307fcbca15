/**
 * The mock cluster's conformance test: the real kubectl 1.33 (from the npm package the
 * project already depends on) against the mock serving mock-cluster/testdata/conformance.
 * Every assertion is about what kubectl prints, not its exit code alone.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startMockCluster, type MockCluster } from '../mock-cluster/index.ts';
import { ensureKubectl } from '../scripts/binaries.ts';

const FIXTURE = new URL('../mock-cluster/testdata/conformance', import.meta.url).pathname;

let cluster: MockCluster;
let kubectlPath: string;
let cacheDir: string;

before(async () => {
  [cluster, kubectlPath, cacheDir] = await Promise.all([
    startMockCluster({ scenario: FIXTURE }),
    ensureKubectl(),
    mkdtemp(join(tmpdir(), 'kubewhy-kubectl-cache-')),
  ]);
});
after(async () => {
  await cluster.close();
  await rm(cacheDir, { recursive: true, force: true });
});

/** Runs kubectl against the mock; resolves with its output whatever the exit code. */
function kubectl(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  return new Promise((resolve) => {
    execFile(
      kubectlPath,
      ['--kubeconfig', cluster.kubeconfigPath, '--cache-dir', cacheDir, ...args],
      { timeout: 30_000 },
      (error, stdout, stderr) => {
        resolve({ stdout, stderr, code: error ? Number((error as { code?: number }).code ?? 1) : 0 });
      },
    );
  });
}

/** kubectl's column output as rows keyed by header (columns located by the header's offsets). */
function parseColumns(output: string): Record<string, string>[] {
  const lines = output.split('\n').filter((line) => line.trim() !== '');
  const header = lines[0] ?? '';
  const starts = [...header.matchAll(/\S+(?: \S+)*/g)].map((match) => ({ name: match[0], start: match.index ?? 0 }));
  return lines
    .slice(1)
    .map((line) =>
      Object.fromEntries(
        starts.map((column, index) => [
          column.name,
          line.slice(column.start, starts[index + 1]?.start ?? line.length).trim(),
        ]),
      ),
    );
}

function rowNamed(rows: Record<string, string>[], name: string): Record<string, string> {
  const row = rows.find((candidate) => candidate['NAME'] === name);
  assert.ok(row, `no row ${name} in ${JSON.stringify(rows.map((candidate) => candidate['NAME']))}`);
  return row;
}

describe('kubectl against the mock cluster', () => {
  test('get pods -A shows every pod state the way kubectl computes it', async () => {
    const { stdout, stderr } = await kubectl('get', 'pods', '-A');
    assert.match(stdout.split('\n')[0] ?? '', /^NAMESPACE\s+NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/, stderr);
    const rows = parseColumns(stdout);
    const expectations: [string, string, string, RegExp][] = [
      ['checkout-7d9f8c6b5-x2k4q', '0/1', 'CrashLoopBackOff', /^5 \(2m\d*s? ago\)$/],
      ['checkout-7d9f8c6b5-m8n2p', '0/1', 'CrashLoopBackOff', /^4 \(\d+m\d*s? ago\)$/],
      ['report-generator', '0/1', 'Pending', /^0$/],
      ['orders-migrate', '0/1', 'Init:CrashLoopBackOff', /^3 \(3m\d*s? ago\)$/],
      ['search-indexer', '0/1', 'Init:0/1', /^0$/],
      ['db-backup-q7r2t', '0/1', 'Completed', /^0$/],
      ['cart-old', '1/1', 'Terminating', /^0$/],
      ['cart-new', '0/1', 'ContainerCreating', /^0$/],
      ['payments-canary', '0/1', 'ImagePullBackOff', /^0$/],
      ['web-6f5d8b7c9-abcde', '1/1', 'Running', /^0$/],
    ];
    for (const [name, ready, status, restarts] of expectations) {
      const row = rowNamed(rows, name);
      assert.deepEqual([row['NAMESPACE'], row['READY'], row['STATUS']], ['shop', ready, status], name);
      assert.match(row['RESTARTS'] ?? '', restarts, name);
    }
    assert.equal(rowNamed(rows, 'web-6f5d8b7c9-abcde')['AGE'], '28d', 'ages run on the scenario clock');
  });

  test('get deploy,rs shows rollout state and every revision ReplicaSet', async () => {
    const { stdout } = await kubectl('get', 'deploy,rs', '-n', 'shop');
    const [deployments = '', replicaSets = ''] = stdout.split('\n\n');
    assert.deepEqual(rowNamed(parseColumns(deployments), 'deployment.apps/checkout'), {
      NAME: 'deployment.apps/checkout',
      READY: '0/2',
      'UP-TO-DATE': '2',
      AVAILABLE: '0',
      AGE: '9d',
    });
    const rows = parseColumns(replicaSets);
    assert.deepEqual(rowNamed(rows, 'replicaset.apps/checkout-7d9f8c6b5'), {
      NAME: 'replicaset.apps/checkout-7d9f8c6b5',
      DESIRED: '2',
      CURRENT: '2',
      READY: '0',
      AGE: '30m',
    });
    assert.equal(rowNamed(rows, 'replicaset.apps/checkout-5c8d7b9f4')['DESIRED'], '0');
  });

  test('describe pod shows container state, last state and the events', async () => {
    const { stdout } = await kubectl('describe', 'pod', '-n', 'shop', 'checkout-7d9f8c6b5-x2k4q');
    assert.match(stdout, /Controlled By:\s+ReplicaSet\/checkout-7d9f8c6b5/);
    assert.match(stdout, /State:\s+Waiting\n\s+Reason:\s+CrashLoopBackOff/);
    assert.match(stdout, /Last State:\s+Terminated\n\s+Reason:\s+Error\n\s+Exit Code:\s+1/);
    assert.match(stdout, /Restart Count:\s+5/);
    assert.match(
      stdout,
      /Events:[\s\S]*Warning\s+BackOff\s+.*\(x23 over .*\)\s+kubelet\s+Back-off restarting failed container app/,
    );
    assert.match(
      stdout,
      /Normal\s+Pulled\s+.*Container image "registry.example.com\/shop\/checkout:1.2.0" already present/,
    );
  });

  test('logs and logs --previous print the scenario logs', async () => {
    const current = await kubectl('logs', '-n', 'shop', 'checkout-7d9f8c6b5-x2k4q');
    assert.match(
      current.stdout,
      /ERROR payment client: PAYMENT_TIMEOUT_MS is not set\npanic: missing required configuration PAYMENT_TIMEOUT_MS\n/,
    );
    const previous = await kubectl('logs', '-n', 'shop', 'checkout-7d9f8c6b5-x2k4q', '--previous', '--tail=1');
    assert.equal(previous.stdout, 'panic: missing required configuration PAYMENT_TIMEOUT_MS (previous run)\n');
    const init = await kubectl('logs', '-n', 'shop', 'orders-migrate', '-c', 'wait-db', '--previous');
    assert.match(init.stdout, /nc: bad address 'postgres'/);
    const waiting = await kubectl('logs', '-n', 'shop', 'payments-canary');
    assert.match(
      waiting.stderr,
      /BadRequest.*container "payments" in pod "payments-canary" is waiting to start: trying and failing to pull image/,
    );
  });

  test("get events --field-selector involvedObject.name lists only that object's events", async () => {
    const { stdout } = await kubectl(
      'get',
      'events',
      '-n',
      'shop',
      '--field-selector',
      'involvedObject.name=checkout-7d9f8c6b5-x2k4q',
    );
    const rows = parseColumns(stdout);
    assert.deepEqual(rows.map((row) => row['REASON']).sort(), ['BackOff', 'Pulled']);
    assert.ok(rows.every((row) => row['OBJECT'] === 'pod/checkout-7d9f8c6b5-x2k4q'));
    assert.equal(rows.find((row) => row['REASON'] === 'BackOff')?.['TYPE'], 'Warning');
  });

  test('rollout history lists the revisions with their change causes', async () => {
    const { stdout } = await kubectl('rollout', 'history', 'deployment/checkout', '-n', 'shop');
    assert.deepEqual(parseColumns(stdout.replace(/^deployment.apps\/checkout\s*\n/, '')), [
      { REVISION: '1', 'CHANGE-CAUSE': '<none>' },
      { REVISION: '2', 'CHANGE-CAUSE': 'bump to 1.1.0' },
      { REVISION: '3', 'CHANGE-CAUSE': 'bump to 1.2.0' },
    ]);
    const detail = await kubectl('rollout', 'history', 'deployment/checkout', '-n', 'shop', '--revision=2');
    assert.match(detail.stdout, /Image:\s+registry.example.com\/shop\/checkout:1.1.0/);
  });

  test('rollout undo rolls the template back and the history shows the new revision', async () => {
    const undo = await kubectl('rollout', 'undo', 'deployment/checkout', '-n', 'shop');
    assert.equal(undo.stdout.trim(), 'deployment.apps/checkout rolled back', undo.stderr);
    const history = await kubectl('rollout', 'history', 'deployment/checkout', '-n', 'shop');
    assert.deepEqual(parseColumns(history.stdout.replace(/^deployment.apps\/checkout\s*\n/, '')), [
      { REVISION: '1', 'CHANGE-CAUSE': '<none>' },
      { REVISION: '3', 'CHANGE-CAUSE': 'bump to 1.2.0' },
      { REVISION: '4', 'CHANGE-CAUSE': 'bump to 1.1.0' },
    ]);
    const image = await kubectl(
      'get',
      'deploy',
      'checkout',
      '-n',
      'shop',
      '-o',
      'jsonpath={.spec.template.spec.containers[0].image} {.metadata.annotations.deployment\\.kubernetes\\.io/revision}',
    );
    assert.equal(image.stdout, 'registry.example.com/shop/checkout:1.1.0 4');
    const replicaSets = parseColumns((await kubectl('get', 'rs', '-n', 'shop', '-l', 'app=checkout')).stdout);
    assert.equal(replicaSets.length, 3, 'the revision-2 ReplicaSet is reused, not copied');
    assert.equal(rowNamed(replicaSets, 'checkout-6b7f9d8c5')['DESIRED'], '2');
    assert.equal(rowNamed(replicaSets, 'checkout-7d9f8c6b5')['DESIRED'], '0');
  });

  test('scale --replicas changes spec.replicas, and the ReplicaSet gets the pods', async () => {
    const scale = await kubectl('scale', 'deployment/checkout', '-n', 'shop', '--replicas=4');
    assert.equal(scale.stdout.trim(), 'deployment.apps/checkout scaled', scale.stderr);
    const rows = parseColumns((await kubectl('get', 'deploy', 'checkout', '-n', 'shop')).stdout);
    // The undo above went back to a revision whose pods run, so the controllers' new pods are ready.
    assert.equal(rowNamed(rows, 'checkout')['READY'], '4/4');
    assert.equal((cluster.get('Deployment', 'shop', 'checkout')?.['spec'] as { replicas: number }).replicas, 4);
  });

  test('delete pod removes it, and its ReplicaSet replaces it', async () => {
    const deleted = await kubectl('delete', 'pod', '-n', 'shop', 'web-6f5d8b7c9-abcde');
    assert.equal(deleted.stdout.trim(), 'pod "web-6f5d8b7c9-abcde" deleted', deleted.stderr);
    const gone = await kubectl('get', 'pod', '-n', 'shop', 'web-6f5d8b7c9-abcde');
    assert.match(gone.stderr, /NotFound.*pods "web-6f5d8b7c9-abcde" not found/);
    const rows = parseColumns((await kubectl('get', 'pods', '-n', 'shop', '-l', 'app=web')).stdout);
    assert.equal(rows.length, 1);
    assert.match(rows[0]?.['NAME'] ?? '', /^web-6f5d8b7c9-[a-z0-9]{5}$/);
    assert.equal(rows[0]?.['STATUS'], 'ContainerCreating');
  });
});
