import assert from 'node:assert/strict';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { listScenarioDirs, loadScenario, ScenarioError, scenarioExpect } from './loader.ts';

const FIXTURE = new URL('./testdata/conformance', import.meta.url).pathname;
const workspace = await mkdtemp(join(tmpdir(), 'kubewhy-loader-'));
after(() => rm(workspace, { recursive: true, force: true }));

/** A copy of the fixture with one file changed. */
async function variant(
  name: string,
  change: { file: string; edit: (text: string) => string } | { add: string; text: string },
): Promise<string> {
  const dir = join(workspace, name);
  await cp(FIXTURE, dir, { recursive: true });
  if ('edit' in change)
    await writeFile(join(dir, change.file), change.edit(await readFile(join(dir, change.file), 'utf8')));
  else {
    await mkdir(join(dir, change.add, '..'), { recursive: true });
    await writeFile(join(dir, change.add), change.text);
  }
  return dir;
}

async function loadError(dir: string): Promise<ScenarioError> {
  try {
    await loadScenario(dir);
  } catch (error) {
    assert.ok(error instanceof ScenarioError, `expected a ScenarioError, got ${String(error)}`);
    return error;
  }
  assert.fail('the scenario loaded');
}

test('loads the fixture: objects from multi-document YAML and kind: List, logs, meta', async () => {
  const scenario = await loadScenario(FIXTURE);
  assert.equal(scenario.name, 'mock-conformance');
  assert.equal(scenarioExpect(scenario).category, 'app-crash');
  assert.ok(
    scenario.objects.some((object) => object.kind === 'Node' && object.metadata.name === 'node-b'),
    'items of a kind: List are loaded',
  );
  assert.deepEqual(
    scenario.logs.map((log) => `${log.pod}/${log.container}${log.previous ? ' (previous)' : ''}`).sort(),
    [
      'checkout-7d9f8c6b5-x2k4q/app',
      'checkout-7d9f8c6b5-x2k4q/app (previous)',
      'orders-migrate/wait-db (previous)',
      'web-6f5d8b7c9-abcde/web',
    ],
  );
});

test('fills uid, resourceVersion and creationTimestamp, and resolves owner and event references', async () => {
  const scenario = await loadScenario(FIXTURE);
  for (const object of scenario.objects) {
    assert.match(
      object.metadata.uid ?? '',
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
      `${object.kind}/${object.metadata.name} uid`,
    );
    assert.match(object.metadata.resourceVersion ?? '', /^\d+$/);
    assert.ok(
      !Number.isNaN(Date.parse(object.metadata.creationTimestamp ?? '')),
      `${object.kind}/${object.metadata.name} creationTimestamp`,
    );
  }
  const deployment = scenario.objects.find(
    (object) => object.kind === 'Deployment' && object.metadata.name === 'checkout',
  );
  const replicaSet = scenario.objects.find(
    (object) => object.kind === 'ReplicaSet' && object.metadata.name === 'checkout-7d9f8c6b5',
  );
  assert.equal(replicaSet?.metadata.ownerReferences?.[0]?.uid, deployment?.metadata.uid);
  const pod = scenario.objects.find(
    (object) => object.kind === 'Pod' && object.metadata.name === 'checkout-7d9f8c6b5-x2k4q',
  );
  const event = scenario.objects.find((object) => object.metadata.name === 'checkout-7d9f8c6b5-x2k4q.backoff');
  assert.equal((event?.['involvedObject'] as { uid?: string }).uid, pod?.metadata.uid);
  const again = await loadScenario(FIXTURE);
  assert.equal(
    again.objects.find((object) => object.metadata.name === 'checkout')?.metadata.uid,
    deployment?.metadata.uid,
    'uids are stable across loads',
  );
});

test('adds namespaces that objects use but cluster.yaml does not list', async () => {
  const dir = await variant('implicit-namespace', {
    file: 'cluster.yaml',
    edit: (text) => `${text}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: lonely, namespace: elsewhere}\n`,
  });
  const scenario = await loadScenario(dir);
  const namespaces = scenario.objects
    .filter((object) => object.kind === 'Namespace')
    .map((object) => object.metadata.name);
  for (const name of ['elsewhere', 'default', 'kube-system', 'shop']) assert.ok(namespaces.includes(name), name);
  assert.equal(namespaces.filter((name) => name === 'shop').length, 1, 'a listed namespace is not added twice');
});

test('bad YAML names the file, the document and the line', async () => {
  const dir = await variant('bad-yaml', {
    file: 'cluster.yaml',
    edit: (text) =>
      text.replace('kind: Deployment\nmetadata:\n  name: checkout', 'kind: Deployment\nmetadata:\n  name: [checkout'),
  });
  const error = await loadError(dir);
  assert.equal(error.file, 'cluster.yaml');
  assert.equal(error.document, 3);
  assert.match(error.message, /cluster\.yaml, document 3.*invalid YAML.*line \d+/);
});

test('a missing kind names the document and the field', async () => {
  const dir = await variant('missing-kind', {
    file: 'cluster.yaml',
    edit: (text) => text.replace('apiVersion: v1\nkind: Namespace\n', 'apiVersion: v1\n'),
  });
  const error = await loadError(dir);
  assert.deepEqual([error.file, error.document, error.field], ['cluster.yaml', 1, 'kind']);
  assert.match(error.message, /cluster\.yaml, document 1, field kind: is required/);
});

test('a bad item inside a kind: List names the item', async () => {
  const dir = await variant('bad-list-item', {
    file: 'cluster.yaml',
    edit: (text) =>
      text.replace('  kind: Node\n  metadata:\n    name: node-b', '  kind: Node\n  metadata:\n    title: node-b'),
  });
  const error = await loadError(dir);
  assert.deepEqual([error.file, error.document, error.field], ['cluster.yaml', 2, 'items[1].metadata.name']);
});

test('a log for a pod that does not exist names the log file and the pod', async () => {
  const dir = await variant('orphan-log', { add: 'logs/shop/ghost-pod/app.log', text: 'boo\n' });
  const error = await loadError(dir);
  assert.deepEqual([error.file, error.field], ['logs/shop/ghost-pod/app.log', 'pod']);
  assert.match(error.message, /no Pod "ghost-pod" in namespace "shop"/);
});

test('a log for a container the pod does not have names the container', async () => {
  const dir = await variant('wrong-container', { add: 'logs/shop/web-6f5d8b7c9-abcde/sidecar.log', text: 'x\n' });
  const error = await loadError(dir);
  assert.equal(error.field, 'container');
  assert.match(error.message, /has no container "sidecar" \(it has: web\)/);
});

test('scenario.yaml problems name the field: unknown category, missing trigger', async () => {
  const badCategory = await loadError(
    await variant('bad-category', {
      file: 'scenario.yaml',
      edit: (text) => text.replace('category: app-crash', 'category: gremlins'),
    }),
  );
  assert.deepEqual([badCategory.file, badCategory.field], ['scenario.yaml', 'expect.category']);
  const noTrigger = await loadError(
    await variant('no-trigger', {
      file: 'scenario.yaml',
      edit: (text) => text.replace(/trigger:[\s\S]*?expect:/, 'trigger: {}\nexpect:'),
    }),
  );
  assert.deepEqual([noTrigger.file, noTrigger.field], ['scenario.yaml', 'trigger']);
});

test('duplicate objects are rejected with both documents named', async () => {
  const dir = await variant('duplicate', {
    file: 'cluster.yaml',
    edit: (text) => `${text}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: checkout-config, namespace: shop}\n`,
  });
  const error = await loadError(dir);
  assert.equal(error.field, 'metadata.name');
  assert.match(error.message, /already defined in document/);
});

test('lists scenario directories: only those with a scenario.yaml, sorted', async () => {
  const root = join(workspace, 'listing');
  await mkdir(join(root, 'b-scenario'), { recursive: true });
  await mkdir(join(root, 'a-scenario'), { recursive: true });
  await mkdir(join(root, 'not-a-scenario'), { recursive: true });
  await writeFile(join(root, 'b-scenario', 'scenario.yaml'), 'name: b\n');
  await writeFile(join(root, 'a-scenario', 'scenario.yaml'), 'name: a\n');
  assert.deepEqual(await listScenarioDirs(root), [join(root, 'a-scenario'), join(root, 'b-scenario')]);
  assert.deepEqual(await listScenarioDirs(join(root, 'missing')), []);
});
