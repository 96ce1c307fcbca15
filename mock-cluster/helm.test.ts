import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ensureHelm } from '../scripts/binaries.ts';
import { startMockCluster, type MockCluster } from './server.ts';

const FIXTURE = new URL('./testdata/conformance', import.meta.url).pathname;
const CHART = new URL('./testdata/chart', import.meta.url).pathname;

let cluster: MockCluster;
let helmPath: string;
let home: string;

before(async () => {
  [cluster, helmPath, home] = await Promise.all([
    startMockCluster({ scenario: FIXTURE }),
    ensureHelm(),
    mkdtemp(join(tmpdir(), 'kubewhy-helm-')),
  ]);
});
after(async () => {
  await cluster.close();
  await rm(home, { recursive: true, force: true });
});

function helm(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  const env = {
    ...process.env,
    HELM_CACHE_HOME: join(home, 'cache'),
    HELM_CONFIG_HOME: join(home, 'config'),
    HELM_DATA_HOME: join(home, 'data'),
  };
  return new Promise((resolve) => {
    execFile(
      helmPath,
      ['--kubeconfig', cluster.kubeconfigPath, ...args],
      { env, timeout: 60_000 },
      (_error, stdout, stderr) => resolve({ stdout, stderr }),
    );
  });
}

test('helm installs, upgrades and uninstalls a chart of assorted kinds against the mock', async () => {
  const install = await helm('install', 'demo', CHART, '-n', 'shop');
  assert.match(install.stdout, /STATUS: deployed/, install.stderr);
  for (const [kind, name] of [
    ['ConfigMap', 'demo-config'],
    ['Secret', 'demo-secret'],
    ['Deployment', 'demo'],
    ['Service', 'demo'],
    ['ServiceMonitor', 'demo'],
    ['PodDisruptionBudget', 'demo'],
  ]) {
    assert.ok(cluster.get(kind ?? '', 'shop', name ?? ''), `${kind}/${name} created`);
  }
  assert.ok(cluster.get('ClusterRole', undefined, 'demo-reader'), 'cluster-scoped objects too');
  assert.ok(
    cluster.list('ReplicaSet', 'shop').some((replicaSet) => replicaSet.metadata.name.startsWith('demo-')),
    'the deployment controller made a ReplicaSet',
  );
  const upgrade = await helm('upgrade', 'demo', CHART, '-n', 'shop', '--set', 'unused=1');
  assert.match(upgrade.stdout, /REVISION: 2/, upgrade.stderr);
  const list = await helm('list', '-n', 'shop');
  assert.match(list.stdout, /^demo\s+shop\s+2\s+.*deployed\s+mock-demo-0\.1\.0/m);
  const releases = cluster.list('Secret', 'shop').filter((secret) => secret.metadata.labels?.['owner'] === 'helm');
  assert.deepEqual(releases.map((secret) => secret.metadata.name).sort(), [
    'sh.helm.release.v1.demo.v1',
    'sh.helm.release.v1.demo.v2',
  ]);
  const uninstall = await helm('uninstall', 'demo', '-n', 'shop');
  assert.match(uninstall.stdout, /release "demo" uninstalled/, uninstall.stderr);
  assert.equal(cluster.get('Deployment', 'shop', 'demo'), undefined);
  assert.equal(cluster.get('ClusterRole', undefined, 'demo-reader'), undefined);
  assert.equal(
    cluster.list('Secret', 'shop').filter((secret) => secret.metadata.labels?.['owner'] === 'helm').length,
    0,
  );
});
