/**
 * `helm install`, `helm upgrade` and `helm uninstall` with the real helm binary against
 * the mock cluster (which accepts any kind and keeps helm's release record), checked with
 * the real kubectl: what helm creates is what the chart renders, and uninstall removes it.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startMockCluster, type MockCluster } from '../mock-cluster/index.ts';
import { ensureKubectl } from '../scripts/binaries.ts';
import {
  chartDirectory,
  renderChart,
  repositoryRoot,
  runCommand,
  runHelm,
  writeValuesFile,
  type CommandResult,
} from './fixtures/helm-support/helm.ts';
import { describeObject, isHelmHook, type KubernetesObject } from './fixtures/helm-support/objects.ts';

const RELEASE = 'kubewhy';
const NAMESPACE = 'kubewhy';
const VALUES = { act: { enabled: true, namespaces: ['staging', 'shop'] } };
const INSTANCE_LABEL = `app.kubernetes.io/instance=${RELEASE}`;

let cluster: MockCluster;

before(async () => {
  cluster = await startMockCluster({ scenario: join(repositoryRoot, 'test', 'fixtures', 'helm-empty') });
});

after(async () => {
  await cluster?.close();
});

function helm(args: string[]): Promise<CommandResult> {
  return runHelm([...args, '--kubeconfig', cluster.kubeconfigPath], { timeoutMs: 180_000 });
}

async function kubectl(args: string[]): Promise<CommandResult> {
  return runCommand(await ensureKubectl(), [...args, '--kubeconfig', cluster.kubeconfigPath]);
}

/** Everything labelled as this release, as "Kind/namespace/name", through `kubectl get`. */
async function listReleaseObjects(): Promise<string[]> {
  const queries = [
    ['get', 'deployments,services,serviceaccounts,secrets,persistentvolumeclaims', '--namespace', NAMESPACE],
    ['get', 'roles,rolebindings', '--all-namespaces'],
    ['get', 'clusterroles,clusterrolebindings'],
  ];
  const names: string[] = [];
  for (const query of queries) {
    const result = await kubectl([...query, '--selector', INSTANCE_LABEL, '--output', 'json']);
    assert.equal(result.code, 0, `kubectl ${query.join(' ')} failed:\n${result.stderr}`);
    const list = JSON.parse(result.stdout) as { items: KubernetesObject[] };
    names.push(...list.items.map(describeObject));
  }
  return names.sort();
}

async function readTokens(): Promise<Record<string, string>> {
  const result = await kubectl(['get', 'secret', `${RELEASE}-tokens`, '--namespace', NAMESPACE, '--output', 'json']);
  assert.equal(result.code, 0, result.stderr);
  return (JSON.parse(result.stdout) as { data: Record<string, string> }).data;
}

describe('helm against the mock cluster', () => {
  let expected: string[] = [];

  before(async () => {
    const rendered = await renderChart({ releaseName: RELEASE, namespace: NAMESPACE, values: VALUES });
    expected = rendered
      .filter((object) => !isHelmHook(object))
      .map(describeObject)
      .sort();
  });

  test('helm install succeeds and kubectl lists every object the chart renders', async () => {
    const valuesFile = await writeValuesFile(VALUES);
    const result = await helm([
      'install',
      RELEASE,
      chartDirectory,
      '--namespace',
      NAMESPACE,
      '--create-namespace',
      '-f',
      valuesFile,
      '--timeout',
      '120s',
    ]);
    assert.equal(result.code, 0, `helm install failed:\n${result.stderr}`);
    assert.match(result.stdout, /STATUS: deployed/);
    assert.match(
      result.stdout,
      /credentials_file: \/etc\/alertmanager\/secrets\/kubewhy-ingest\/token/,
      'the notes are printed',
    );
    assert.deepEqual(await listReleaseObjects(), expected);
  });

  test('helm keeps its release record in the cluster and reports the release deployed', async () => {
    const status = await helm(['status', RELEASE, '--namespace', NAMESPACE, '--output', 'json']);
    assert.equal(status.code, 0, status.stderr);
    const release = JSON.parse(status.stdout) as { info: { status: string }; version: number };
    assert.equal(release.info.status, 'deployed');
    const records = await kubectl([
      'get',
      'secrets',
      '--namespace',
      NAMESPACE,
      '--selector',
      `owner=helm,name=${RELEASE}`,
      '--output',
      'name',
    ]);
    assert.equal(records.stdout.trim(), `secret/sh.helm.release.v1.${RELEASE}.v${release.version}`);
  });

  test('helm upgrade keeps the generated tokens, so Alertmanager keeps working', async () => {
    const before = await readTokens();
    const result = await helm([
      'upgrade',
      RELEASE,
      chartDirectory,
      '--namespace',
      NAMESPACE,
      '--reuse-values',
      '--timeout',
      '120s',
    ]);
    assert.equal(result.code, 0, `helm upgrade failed:\n${result.stderr}`);
    assert.match(result.stdout, /REVISION: 2/);
    assert.deepEqual(await readTokens(), before);
    assert.deepEqual(await listReleaseObjects(), expected);
  });

  test('helm uninstall succeeds and removes every object and the release record', async () => {
    const result = await helm(['uninstall', RELEASE, '--namespace', NAMESPACE, '--timeout', '120s']);
    assert.equal(result.code, 0, `helm uninstall failed:\n${result.stderr}`);
    assert.deepEqual(await listReleaseObjects(), []);
    const records = await kubectl([
      'get',
      'secrets',
      '--namespace',
      NAMESPACE,
      '--selector',
      `owner=helm,name=${RELEASE}`,
      '--output',
      'name',
    ]);
    assert.equal(records.stdout.trim(), '');
    const list = await helm(['list', '--all-namespaces', '--output', 'json']);
    assert.deepEqual(JSON.parse(list.stdout), []);
  });
});
