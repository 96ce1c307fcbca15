import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { stringify } from 'yaml';
import { startMockCluster, type MockCluster } from '../mock-cluster/index.ts';
import { runKubewhy, type CliResult } from './helpers/run-kubewhy.ts';

const NODE_SCENARIO = 'mock-cluster/scenarios/eks-node-lost-orders-capacity';

/** `kubewhy diagnose` as a newcomer runs it: a HOME of its own, no KUBEWHY_CLUSTER, the offline engine. */
function diagnose(args: string[], environment: Record<string, string>): Promise<CliResult> {
  return runKubewhy(['diagnose', ...args], {
    env: { PATH: process.env.PATH ?? '', KUBEWHY_MODEL: 'offline', KUBEWHY_LOG_LEVEL: 'warn', ...environment },
    timeoutMs: 60_000,
  });
}

/** A home whose ~/.kube/config has two contexts: `prod` (the mock cluster serving `mock`, current) and `lab` (another cluster). */
function homeWithKubeconfig(mock: MockCluster, options: { current?: string } = {}): string {
  const home = mkdtempSync(join(tmpdir(), 'kubewhy-home-'));
  mkdirSync(join(home, '.kube'));
  writeFileSync(
    join(home, '.kube', 'config'),
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        { name: 'prod-cluster', cluster: { server: mock.url } },
        { name: 'lab-cluster', cluster: { server: 'http://127.0.0.1:1' } },
      ],
      users: [{ name: 'admin', user: {} }],
      contexts: [
        { name: 'prod', context: { cluster: 'prod-cluster', user: 'admin' } },
        { name: 'lab', context: { cluster: 'lab-cluster', user: 'admin' } },
      ],
      'current-context': options.current ?? 'prod',
    }),
  );
  return home;
}

test('with only ~/.kube/config, diagnose reads its current context and says so, never the demo', async (t) => {
  const mock = await startMockCluster({ scenario: NODE_SCENARIO });
  t.after(() => mock.close());
  const home = homeWithKubeconfig(mock);
  const { code, stdout } = await diagnose(['a node went NotReady in prod'], {
    HOME: home,
    KUBEWHY_DATA_DIR: join(home, 'data'),
  });
  assert.equal(code, 0, stdout);
  assert.match(
    stdout,
    new RegExp(
      `^Cluster: context prod \\(${mock.url.replaceAll('.', '\\.')}, from ${join(home, '.kube', 'config')}\\)`,
      'm',
    ),
  );
  assert.doesNotMatch(stdout, /checkout-api|bad-credentials/);
  assert.match(stdout, /Diagnosis: node-failure/);
});

test('--json carries the cluster the run read', async (t) => {
  const mock = await startMockCluster({ scenario: NODE_SCENARIO });
  t.after(() => mock.close());
  const home = homeWithKubeconfig(mock);
  const { code, stdout, stderr } = await diagnose(['--json', 'a node went NotReady'], {
    HOME: home,
    KUBEWHY_DATA_DIR: join(home, 'data'),
  });
  assert.equal(code, 0, stderr);
  assert.equal(stderr, '', 'nothing on stderr with --json');
  const printed = JSON.parse(stdout) as { cluster: { source: string; context: string; server: string } };
  assert.deepEqual(
    { source: printed.cluster.source, context: printed.cluster.context, server: printed.cluster.server },
    { source: 'kubeconfig', context: 'prod', server: mock.url },
  );
});

test('KUBECONFIG wins over ~/.kube/config, and --context picks another context', async (t) => {
  const mock = await startMockCluster({ scenario: NODE_SCENARIO });
  t.after(() => mock.close());
  const home = homeWithKubeconfig(mock, { current: 'lab' });
  const elsewhere = mkdtempSync(join(tmpdir(), 'kubewhy-kubeconfig-'));
  const file = join(elsewhere, 'config');
  writeFileSync(
    file,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: mock.url } }],
      users: [{ name: 'u', user: {} }],
      contexts: [{ name: 'staging', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'staging',
    }),
  );
  const fromVariable = await diagnose(['--quiet', 'a node went NotReady'], {
    HOME: home,
    KUBECONFIG: file,
    KUBEWHY_DATA_DIR: join(home, 'data'),
  });
  assert.equal(fromVariable.code, 0, fromVariable.stderr);
  assert.match(fromVariable.stdout, /^Cluster: context staging /m);

  const fromFlag = await diagnose(['--quiet', '--context', 'prod', 'a node went NotReady'], {
    HOME: home,
    KUBEWHY_DATA_DIR: join(home, 'data'),
  });
  assert.equal(fromFlag.code, 0, fromFlag.stderr);
  assert.match(fromFlag.stdout, /^Cluster: context prod /m);
});

test('an unreachable API server is said at once, with its address and context', async (t) => {
  const mock = await startMockCluster({ scenario: NODE_SCENARIO });
  t.after(() => mock.close());
  const home = homeWithKubeconfig(mock, { current: 'lab' });
  const { code, stderr } = await diagnose(['--quiet', 'a node went NotReady'], {
    HOME: home,
    KUBEWHY_DATA_DIR: join(home, 'data'),
    KUBEWHY_CLUSTER_TIMEOUT_SECONDS: '2',
  });
  assert.equal(code, 1);
  assert.match(stderr, /cannot read the cluster \(context lab \(http:\/\/127\.0\.0\.1:1, from .*\)\): .*unreachable/);
});

test('no kubeconfig anywhere: diagnose says where it looked and how to try the demo, and reads nothing', async () => {
  const home = mkdtempSync(join(tmpdir(), 'kubewhy-home-'));
  const { code, stdout, stderr } = await diagnose(['a node went NotReady in prod'], {
    HOME: home,
    KUBEWHY_DATA_DIR: join(home, 'data'),
  });
  assert.equal(code, 2);
  assert.equal(stdout, '');
  assert.match(stderr, /no cluster to read/);
  assert.match(stderr, new RegExp(`${join(home, '.kube', 'config')} \\(not there\\)`));
  assert.match(stderr, /--scenario DIR/);
});

test('a kubeconfig or a context that is not there gets one line naming it, not a stack trace', async (t) => {
  const mock = await startMockCluster({ scenario: NODE_SCENARIO });
  t.after(() => mock.close());
  const home = homeWithKubeconfig(mock);
  const missingFile = await diagnose(['--kubeconfig', '/nonexistent/kubeconfig', 'x'], { HOME: home });
  assert.equal(missingFile.code, 2);
  assert.equal(missingFile.stderr.trim(), 'kubewhy diagnose: kubeconfig not found: /nonexistent/kubeconfig');

  const missingContext = await diagnose(['--context', 'nope', 'x'], { HOME: home });
  assert.equal(missingContext.code, 2);
  assert.equal(
    missingContext.stderr.trim(),
    `kubewhy diagnose: context "nope" is not in kubeconfig ${join(home, '.kube', 'config')} (it has contexts: prod, lab)`,
  );
});

test('the demo runs only when asked: KUBEWHY_CLUSTER=mock serves it, and says it is the mock', async () => {
  const home = mkdtempSync(join(tmpdir(), 'kubewhy-home-'));
  const { code, stdout } = await diagnose(['--quiet', 'checkout-api in staging keeps restarting'], {
    HOME: home,
    KUBEWHY_CLUSTER: 'mock',
    KUBEWHY_DATA_DIR: join(home, 'data'),
  });
  assert.equal(code, 0);
  assert.match(stdout, /^Cluster: mock cluster, scenario checkout-secret-rotation \(http:\/\/127\.0\.0\.1:\d+\)/m);
});

test('progress goes to stderr as the run works: the cluster, then each tool call', async () => {
  const home = mkdtempSync(join(tmpdir(), 'kubewhy-home-'));
  const { code, stderr } = await diagnose(
    ['--scenario', 'mock-cluster/scenarios/checkout-secret-rotation', 'checkout-api in staging keeps restarting'],
    { HOME: home, KUBEWHY_DATA_DIR: join(home, 'data') },
  );
  assert.equal(code, 0);
  const lines = stderr.trim().split('\n');
  assert.match(lines[0] ?? '', /^Reading mock cluster, scenario checkout-secret-rotation/);
  assert.ok(
    lines.some((line) =>
      /^ {2}describe_pod \{namespace: staging, name: checkout-api-\S+\} → ok \(\d+ ms\)$/.test(line),
    ),
    stderr,
  );
});
