import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startMockCluster, type MockCluster } from './server.ts';

const FIXTURE = new URL('./testdata/conformance', import.meta.url).pathname;

let cluster: MockCluster;
before(async () => {
  cluster = await startMockCluster({ scenario: FIXTURE });
});
after(() => cluster.close());

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function api(
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${cluster.url}${path}`, {
    method,
    headers: { 'content-type': contentType, accept: 'application/json' },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Json };
}

const DEPLOYMENT = '/apis/apps/v1/namespaces/shop/deployments/checkout';

describe('writes', () => {
  test('creates an object with uid, creationTimestamp and a new resourceVersion; a second create is AlreadyExists', async () => {
    const created = await api('POST', '/api/v1/namespaces/shop/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'fresh' },
      data: { a: '1' },
    });
    assert.equal(created.status, 201);
    assert.match(created.body['metadata'].uid, /^[0-9a-f-]{36}$/);
    assert.equal(created.body['metadata'].namespace, 'shop');
    assert.ok(Number(created.body['metadata'].resourceVersion) > 1000);
    const again = await api('POST', '/api/v1/namespaces/shop/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'fresh' },
    });
    assert.equal(again.status, 409);
    assert.equal(again.body['reason'], 'AlreadyExists');
  });

  test('refuses a create in a namespace that does not exist, and an invalid name', async () => {
    const missing = await api('POST', '/api/v1/namespaces/nowhere/configmaps', { metadata: { name: 'x' } });
    assert.deepEqual(
      [missing.status, missing.body['reason'], missing.body['message']],
      [404, 'NotFound', 'namespaces "nowhere" not found'],
    );
    const invalid = await api('POST', '/api/v1/namespaces/shop/configmaps', { metadata: { name: 'Not_Valid' } });
    assert.equal(invalid.status, 422);
    assert.equal(invalid.body['reason'], 'Invalid');
    assert.equal(invalid.body['details'].causes[0].field, 'metadata.name');
  });

  test('dryRun=All answers with the result and stores nothing', async () => {
    const before = cluster.get('Deployment', 'shop', 'checkout')?.metadata.resourceVersion;
    const patched = await api(
      'PATCH',
      `${DEPLOYMENT}?dryRun=All`,
      { spec: { replicas: 7 } },
      'application/merge-patch+json',
    );
    assert.equal(patched.status, 200);
    assert.equal(patched.body['spec'].replicas, 7);
    assert.equal((cluster.get('Deployment', 'shop', 'checkout')?.['spec'] as Json)['replicas'], 2);
    assert.equal(cluster.get('Deployment', 'shop', 'checkout')?.metadata.resourceVersion, before);
    const deleted = await api('DELETE', '/api/v1/namespaces/shop/pods/web-6f5d8b7c9-abcde?dryRun=All');
    assert.equal(deleted.status, 200);
    assert.ok(cluster.get('Pod', 'shop', 'web-6f5d8b7c9-abcde'));
    const created = await api('POST', '/api/v1/namespaces/shop/configmaps?dryRun=All', { metadata: { name: 'dry' } });
    assert.equal(created.status, 201);
    assert.equal(cluster.get('ConfigMap', 'shop', 'dry'), undefined);
  });

  test('applies merge, strategic-merge and JSON patches, bumping resourceVersion and generation', async () => {
    const start = cluster.get('Deployment', 'shop', 'checkout');
    const merge = await api(
      'PATCH',
      DEPLOYMENT,
      { metadata: { labels: { team: 'payments' } } },
      'application/merge-patch+json',
    );
    assert.equal(merge.body['metadata'].labels.team, 'payments');
    assert.ok(Number(merge.body['metadata'].resourceVersion) > Number(start?.metadata.resourceVersion));
    assert.equal(
      merge.body['metadata'].generation,
      start?.metadata.generation,
      'a metadata change keeps the generation',
    );
    const strategic = await api(
      'PATCH',
      DEPLOYMENT,
      {
        spec: {
          template: { spec: { containers: [{ name: 'app', env: [{ name: 'PAYMENT_TIMEOUT_MS', value: '3000' }] }] } },
        },
      },
      'application/strategic-merge-patch+json',
    );
    const container = strategic.body['spec'].template.spec.containers[0];
    assert.equal(
      container.image,
      'registry.example.com/shop/checkout:1.2.0',
      'the container is merged by name, not replaced',
    );
    assert.deepEqual(
      container.env.map((variable: Json) => variable['name']),
      ['DB_HOST', 'PAYMENT_URL', 'PAYMENT_TIMEOUT_MS'],
    );
    assert.equal(strategic.body['metadata'].generation, (start?.metadata.generation ?? 0) + 1);
    const json = await api(
      'PATCH',
      DEPLOYMENT,
      [
        { op: 'test', path: '/spec/replicas', value: 2 },
        { op: 'replace', path: '/spec/replicas', value: 3 },
      ],
      'application/json-patch+json',
    );
    assert.equal(json.body['spec'].replicas, 3);
    const failedTest = await api(
      'PATCH',
      DEPLOYMENT,
      [{ op: 'test', path: '/spec/replicas', value: 99 }],
      'application/json-patch+json',
    );
    assert.equal(failedTest.status, 422);
  });

  test('a changed template makes a new ReplicaSet revision, as the deployment controller would', async () => {
    await api(
      'PATCH',
      DEPLOYMENT,
      {
        spec: {
          template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-11-29T10:00:00Z' } } },
        },
      },
      'application/strategic-merge-patch+json',
    );
    const owned = cluster
      .list('ReplicaSet', 'shop')
      .filter((replicaSet) => replicaSet.metadata.name.startsWith('checkout-'));
    const revisions = owned
      .map((replicaSet) => Number(replicaSet.metadata.annotations?.['deployment.kubernetes.io/revision']))
      .sort((left, right) => left - right);
    const newest = owned.find(
      (replicaSet) =>
        replicaSet.metadata.annotations?.['deployment.kubernetes.io/revision'] === String(Math.max(...revisions)),
    );
    assert.ok(revisions.length >= 4 && Math.max(...revisions) >= 4, `revisions ${revisions.join(',')}`);
    assert.equal(
      (newest?.['spec'] as Json)['replicas'],
      (cluster.get('Deployment', 'shop', 'checkout')?.['spec'] as Json)['replicas'],
    );
    assert.equal(
      cluster.get('Deployment', 'shop', 'checkout')?.metadata.annotations?.['deployment.kubernetes.io/revision'],
      String(Math.max(...revisions)),
    );
  });

  test('a PUT with a stale resourceVersion is a Conflict', async () => {
    const current = (await api('GET', '/api/v1/namespaces/shop/configmaps/checkout-config')).body;
    const updated = await api('PUT', '/api/v1/namespaces/shop/configmaps/checkout-config', {
      ...current,
      data: { LOG_LEVEL: 'debug' },
    });
    assert.equal(updated.status, 200);
    const stale = await api('PUT', '/api/v1/namespaces/shop/configmaps/checkout-config', {
      ...current,
      data: { LOG_LEVEL: 'warn' },
    });
    assert.equal(stale.status, 409);
    assert.equal(stale.body['reason'], 'Conflict');
  });

  test('scales through the scale subresource', async () => {
    const scale = await api('GET', `${DEPLOYMENT}/scale`);
    assert.equal(scale.body['kind'], 'Scale');
    assert.equal(scale.body['status'].selector, 'app=checkout');
    const scaled = await api('PATCH', `${DEPLOYMENT}/scale`, { spec: { replicas: 5 } }, 'application/merge-patch+json');
    assert.equal(scaled.body['spec'].replicas, 5);
    assert.equal((cluster.get('Deployment', 'shop', 'checkout')?.['spec'] as Json)['replicas'], 5);
    const negative = await api(
      'PATCH',
      `${DEPLOYMENT}/scale`,
      { spec: { replicas: -1 } },
      'application/merge-patch+json',
    );
    assert.equal(negative.status, 422);
  });

  test('deleting a Deployment deletes its ReplicaSets and their pods', async () => {
    const deleted = await api('DELETE', '/apis/apps/v1/namespaces/shop/deployments/web', {
      propagationPolicy: 'Background',
    });
    assert.equal(deleted.body['status'], 'Success');
    assert.equal(cluster.get('ReplicaSet', 'shop', 'web-6f5d8b7c9'), undefined);
    assert.equal(cluster.get('Pod', 'shop', 'web-6f5d8b7c9-abcde'), undefined);
    assert.equal((await api('DELETE', '/apis/apps/v1/namespaces/shop/deployments/web')).status, 404);
  });

  test('watch streams an ADDED event per object, then ends at timeoutSeconds', async () => {
    const pods = (await api('GET', '/api/v1/namespaces/shop/pods')).body['items'] as unknown[];
    for (const path of [
      '/api/v1/namespaces/shop/pods?watch=true&timeoutSeconds=1',
      '/api/v1/watch/namespaces/shop/pods?timeoutSeconds=1',
    ]) {
      const response = await fetch(`${cluster.url}${path}`);
      assert.equal(response.status, 200, path);
      const events = (await response.text())
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { type: string; object: { kind: string } });
      assert.equal(events.length, pods.length, path);
      assert.ok(
        events.every((event) => event.type === 'ADDED' && event.object.kind === 'Pod'),
        path,
      );
    }
  });

  test('a watch from a resourceVersion replays the changes after it, and 410 Expired for a version it no longer has', async () => {
    const list = await api('GET', '/api/v1/namespaces/shop/configmaps');
    const since = String((list.body['metadata'] as Json)['resourceVersion']);
    assert.equal(
      (
        await api('POST', '/api/v1/namespaces/shop/configmaps', {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'watched' },
          data: { a: '1' },
        })
      ).status,
      201,
    );
    const response = await fetch(
      `${cluster.url}/api/v1/namespaces/shop/configmaps?watch=true&resourceVersion=${since}&timeoutSeconds=1`,
    );
    const events = (await response.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; object: { metadata: { name: string } } });
    assert.deepEqual(
      events.map((event) => `${event.type} ${event.object.metadata.name}`),
      ['ADDED watched'],
    );
    const expired = await api('GET', '/api/v1/namespaces/shop/configmaps?watch=true&resourceVersion=not-a-version');
    assert.deepEqual([expired.status, expired.body['reason']], [410, 'Expired']);
  });
});

describe('any kind, generically', () => {
  test('creates, lists by label, updates and deletes Secrets the way helm keeps releases', async () => {
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'sh.helm.release.v1.demo.v1', labels: { owner: 'helm', name: 'demo', status: 'deployed' } },
      type: 'helm.sh/release.v1',
      stringData: { release: 'H4sI' },
    };
    assert.equal((await api('POST', '/api/v1/namespaces/shop/secrets', secret)).status, 201);
    const listed = await api('GET', '/api/v1/namespaces/shop/secrets?labelSelector=owner%3Dhelm,name%3Ddemo');
    assert.deepEqual(
      listed.body['items'].map((item: Json) => item['metadata'].name),
      ['sh.helm.release.v1.demo.v1'],
    );
    assert.equal(
      listed.body['items'][0].data.release,
      Buffer.from('H4sI').toString('base64'),
      'stringData is stored as base64 data',
    );
    const stored = listed.body['items'][0];
    const updated = await api('PUT', `/api/v1/namespaces/shop/secrets/${stored.metadata.name}`, {
      ...stored,
      metadata: { ...stored.metadata, labels: { ...stored.metadata.labels, status: 'superseded' } },
    });
    assert.equal(updated.body['metadata'].labels.status, 'superseded');
    assert.equal((await api('DELETE', `/api/v1/namespaces/shop/secrets/${stored.metadata.name}`)).status, 200);
  });

  test('creates a kind of an unknown group by its apiVersion, and discovery lists it', async () => {
    const widget = {
      apiVersion: 'widgets.example.com/v1alpha1',
      kind: 'Widget',
      metadata: { name: 'w1' },
      spec: { size: 3 },
    };
    assert.equal((await api('POST', '/apis/widgets.example.com/v1alpha1/namespaces/shop/widgets', widget)).status, 201);
    assert.equal(
      (await api('GET', '/apis/widgets.example.com/v1alpha1/namespaces/shop/widgets/w1')).body['spec'].size,
      3,
    );
    const resources = await api('GET', '/apis/widgets.example.com/v1alpha1');
    assert.deepEqual(
      resources.body['resources'].map((resource: Json) => [resource['name'], resource['kind'], resource['namespaced']]),
      [['widgets', 'Widget', true]],
    );
  });

  test('a CustomResourceDefinition makes its kind servable, cluster-scoped when it says so', async () => {
    const definition = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.example.org' },
      spec: {
        group: 'example.org',
        scope: 'Cluster',
        names: { kind: 'Gadget', plural: 'gadgets', singular: 'gadget' },
        versions: [{ name: 'v1', served: true, storage: true }],
      },
    };
    assert.equal(
      (await api('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', definition)).status,
      201,
    );
    assert.equal(
      (
        await api('POST', '/apis/example.org/v1/gadgets', {
          apiVersion: 'example.org/v1',
          kind: 'Gadget',
          metadata: { name: 'g1' },
        })
      ).status,
      201,
    );
    assert.equal((await api('GET', '/apis/example.org/v1/gadgets')).body['items'].length, 1);
  });

  test('server-side apply creates, then merges', async () => {
    const body = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  a: "1"\n';
    assert.equal(
      (
        await api(
          'PATCH',
          '/api/v1/namespaces/shop/configmaps/applied?fieldManager=helm&force=true',
          body,
          'application/apply-patch+yaml',
        )
      ).status,
      201,
    );
    const merged = await api(
      'PATCH',
      '/api/v1/namespaces/shop/configmaps/applied?fieldManager=helm',
      body.replace('a: "1"', 'b: "2"'),
      'application/apply-patch+yaml',
    );
    assert.deepEqual(merged.body['data'], { a: '1', b: '2' });
  });

  test('accepts a protobuf-encoded Secret, as client-go clientsets send them', async () => {
    const encodeLength = (length: number): number[] => {
      const bytes: number[] = [];
      do {
        bytes.push((length & 0x7f) | (length >= 0x80 ? 0x80 : 0));
        length >>>= 7;
      } while (length > 0);
      return bytes;
    };
    const field = (number: number, payload: Buffer): Buffer =>
      Buffer.concat([Buffer.from([(number << 3) | 2, ...encodeLength(payload.length)]), payload]);
    const entry = (key: string, value: Buffer): Buffer => Buffer.concat([field(1, Buffer.from(key)), field(2, value)]);
    const meta = Buffer.concat([field(1, Buffer.from('proto-secret')), field(11, entry('owner', Buffer.from('helm')))]);
    const secret = Buffer.concat([
      field(1, meta),
      field(2, entry('release', Buffer.from('payload'))),
      field(3, Buffer.from('helm.sh/release.v1')),
    ]);
    const typeMeta = Buffer.concat([field(1, Buffer.from('v1')), field(2, Buffer.from('Secret'))]);
    const body = Buffer.concat([Buffer.from('k8s\0', 'binary'), field(1, typeMeta), field(2, secret)]);
    const response = await fetch(`${cluster.url}/api/v1/namespaces/shop/secrets`, {
      method: 'POST',
      headers: { 'content-type': 'application/vnd.kubernetes.protobuf' },
      body,
    });
    assert.equal(response.status, 201);
    const stored = cluster.get('Secret', 'shop', 'proto-secret');
    assert.deepEqual(
      [stored?.metadata.labels, stored?.['type'], stored?.['data']],
      [{ owner: 'helm' }, 'helm.sh/release.v1', { release: Buffer.from('payload').toString('base64') }],
    );
  });
});

describe('discovery', () => {
  test('serves aggregated discovery when asked, with the groups helm and the agent need', async () => {
    const response = await fetch(`${cluster.url}/apis`, {
      headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json' },
    });
    assert.equal(
      response.headers.get('content-type'),
      'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    );
    const document = (await response.json()) as Json;
    const groups = document['items'].map((item: Json) => item['metadata'].name);
    for (const group of [
      'apps',
      'batch',
      'networking.k8s.io',
      'rbac.authorization.k8s.io',
      'policy',
      'autoscaling',
      'storage.k8s.io',
      'coordination.k8s.io',
      'monitoring.coreos.com',
    ])
      assert.ok(groups.includes(group), group);
    const apps = document['items'].find((item: Json) => item['metadata'].name === 'apps');
    const deployments = apps.versions[0].resources.find((resource: Json) => resource['resource'] === 'deployments');
    assert.deepEqual(deployments.subresources.find((sub: Json) => sub['subresource'] === 'scale').responseKind, {
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
    });
  });

  test('falls back to the legacy documents for clients that do not ask for aggregated discovery', async () => {
    assert.deepEqual((await api('GET', '/api')).body['versions'], ['v1']);
    const groups = (await api('GET', '/apis')).body;
    assert.equal(groups['kind'], 'APIGroupList');
    const monitoring = (await api('GET', '/apis/monitoring.coreos.com/v1')).body['resources'].map(
      (resource: Json) => resource['kind'],
    );
    assert.deepEqual(monitoring, ['ServiceMonitor', 'PodMonitor', 'PrometheusRule']);
    const core = (await api('GET', '/api/v1')).body['resources'].map((resource: Json) => resource['name']);
    assert.ok(core.includes('pods/log') && core.includes('secrets'));
  });
});
