import { AppsV1Api, BatchV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { summarizePod } from '../src/tools/format/pod-status.ts';
import { readEndpoints } from '../src/tools/format/service-endpoints.ts';
import { summarizeWorkload } from '../src/tools/format/workloads.ts';
import { BackgroundError, listBackgrounds, loadBackground, type Background } from './backgrounds.ts';
import { listScenarioDirs, loadScenario, type LoadedScenario } from './loader.ts';
import { ResourceRegistry } from './resources.ts';
import { scenarioMetaSchema } from './scenario-schema.ts';
import { startMockCluster } from './server.ts';
import { checkOwners } from './validate.ts';
import { validateObject } from './validation.ts';

const NAMES = await listBackgrounds();
const HOUR = 3_600_000;

/** The background served alone, as a scenario where nothing is wrong. */
function asScenario(background: Background): LoadedScenario {
  const meta = scenarioMetaSchema.parse({
    name: background.name,
    now: background.now,
    trigger: { incident: 'is anything wrong?' },
    expect: { category: 'no-issue', culprit: 'Namespace/default' },
  });
  return { name: background.name, dir: '', meta, objects: background.objects, logs: background.logs };
}

test('the three backgrounds ship: eks, aks and kubeadm', () => {
  assert.deepEqual(NAMES, ['aks', 'eks', 'kubeadm']);
});

for (const name of NAMES) {
  describe(`background ${name}`, async () => {
    const background = await loadBackground(name);
    const pods = background.objects.filter((object) => object.kind === 'Pod');

    test('loads with 25 to 50 pods in kube-system, monitoring and two or three team namespaces, and valid objects', () => {
      assert.ok(pods.length >= 25 && pods.length <= 50, `${pods.length} pods`);
      const namespaces = new Set(pods.map((pod) => pod.metadata.namespace));
      assert.ok(namespaces.has('kube-system') && namespaces.has('monitoring'), [...namespaces].join(', '));
      const teams = [...namespaces].filter(
        (namespace) => !['kube-system', 'monitoring', 'local-path-storage'].includes(namespace ?? ''),
      );
      assert.ok(teams.length >= 2 && teams.length <= 3, teams.join(', '));
      assert.deepEqual(checkOwners(background), []);
      const registry = new ResourceRegistry();
      const invalid = background.objects.flatMap((object) =>
        validateObject(registry.forObject(object), object).map(
          (cause) => `${object.kind}/${object.metadata.name}: ${cause.field} ${cause.message}`,
        ),
      );
      assert.deepEqual(invalid, []);
    });

    test('has the kinds a captured cluster holds', () => {
      const kinds = new Set(background.objects.map((object) => object.kind));
      for (const kind of [
        'Node',
        'Namespace',
        'Pod',
        'Deployment',
        'ReplicaSet',
        'StatefulSet',
        'DaemonSet',
        'CronJob',
        'Job',
        'Service',
        'Endpoints',
        'EndpointSlice',
        'ConfigMap',
        'Secret',
        'PersistentVolumeClaim',
        'PersistentVolume',
        'StorageClass',
        'ResourceQuota',
        'HorizontalPodAutoscaler',
        'Event',
      ]) {
        assert.ok(kinds.has(kind), `no ${kind}`);
      }
      assert.ok(background.logs.length >= 5, 'a handful of pods have logs');
    });

    test("is healthy now, read through the API with the product's own readers", async () => {
      const mock = await startMockCluster({ scenario: asScenario(background) });
      try {
        const config = new KubeConfig();
        config.loadFromFile(mock.kubeconfigPath);
        const core = config.makeApiClient(CoreV1Api);
        const apps = config.makeApiClient(AppsV1Api);
        const batch = config.makeApiClient(BatchV1Api);
        const now = mock.now();
        const unhealthyPods = (await core.listPodForAllNamespaces()).items
          .map((pod) => summarizePod(pod, now))
          .filter((pod) => !pod.healthy || !['Running', 'Completed'].includes(pod.status));
        assert.deepEqual(
          unhealthyPods.map((pod) => `${pod.namespace}/${pod.name} ${pod.status}`),
          [],
        );
        const nodes = (await core.listNode()).items;
        const sickNodes = nodes.filter((node) =>
          (node.status?.conditions ?? []).some(
            (condition) => (condition.type === 'Ready') !== (condition.status === 'True'),
          ),
        );
        assert.deepEqual(
          sickNodes.map((node) => node.metadata?.name),
          [],
        );
        const workloads = [
          ...(await apps.listDeploymentForAllNamespaces()).items.map((item) =>
            summarizeWorkload('Deployment', item, now),
          ),
          ...(await apps.listStatefulSetForAllNamespaces()).items.map((item) =>
            summarizeWorkload('StatefulSet', item, now),
          ),
          ...(await apps.listDaemonSetForAllNamespaces()).items.map((item) =>
            summarizeWorkload('DaemonSet', item, now),
          ),
        ];
        assert.deepEqual(
          workloads
            .filter((workload) => !workload.healthy || workload.ready !== workload.desired)
            .map((workload) => `${workload.kind} ${workload.namespace}/${workload.name}`),
          [],
        );
        const jobs = (await batch.listJobForAllNamespaces()).items;
        assert.ok(
          jobs.length > 0 &&
            jobs.every((job) =>
              job.status?.conditions?.some((condition) => condition.type === 'Complete' && condition.status === 'True'),
            ),
        );
        const readyPods = new Set(
          (await core.listPodForAllNamespaces()).items
            .filter((pod) => summarizePod(pod, now).healthy)
            .map((pod) => `${pod.metadata?.namespace}/${pod.metadata?.name}`),
        );
        for (const service of (await core.listServiceForAllNamespaces()).items) {
          const namespace = service.metadata?.namespace ?? '';
          const endpoints = readEndpoints(
            await core.readNamespacedEndpoints({ name: service.metadata?.name ?? '', namespace }),
          );
          assert.ok(
            endpoints.ready.length > 0 && endpoints.notReady.length === 0,
            `Service ${namespace}/${service.metadata?.name} has ready endpoints only`,
          );
          assert.ok(
            endpoints.ready.every((address) => readyPods.has(`${namespace}/${address.pod}`)),
            `Service ${namespace}/${service.metadata?.name} points at ready pods`,
          );
        }
        const claims = (await core.listPersistentVolumeClaimForAllNamespaces()).items;
        assert.ok(claims.length > 0 && claims.every((claim) => claim.status?.phase === 'Bound'));
        const warnings = (await core.listEventForAllNamespaces()).items.filter((event) => event.type === 'Warning');
        assert.ok(warnings.length > 0, 'there are old warnings to ignore');
        assert.ok(
          warnings.every((event) => now.getTime() - new Date(event.lastTimestamp ?? 0).getTime() >= HOUR),
          'every warning is at least an hour old',
        );
      } finally {
        await mock.close();
      }
    });

    test('keeps every ResourceQuota well under its limits', () => {
      for (const quota of background.objects.filter((object) => object.kind === 'ResourceQuota')) {
        const status = quota['status'] as { hard: Record<string, string>; used: Record<string, string> };
        for (const [resource, hard] of Object.entries(status.hard)) {
          const amount = (value: string): number =>
            value.endsWith('m')
              ? Number(value.slice(0, -1)) / 1000
              : value.endsWith('Gi')
                ? Number(value.slice(0, -2)) * 1024
                : value.endsWith('Mi')
                  ? Number(value.slice(0, -2))
                  : Number(value);
          assert.ok(
            amount(status.used[resource] ?? '0') <= amount(hard) / 2,
            `${quota.metadata.namespace} ${resource}: ${status.used[resource]} of ${hard}`,
          );
        }
      }
    });
  });
}

test('no background node shares a name with a node of a public scenario', async () => {
  const scenarioNodes = new Set<string>();
  for (const dir of await listScenarioDirs('mock-cluster/scenarios')) {
    for (const object of (await loadScenario(dir)).objects) {
      if (object.kind === 'Node') scenarioNodes.add(object.metadata.name);
      const node = (object['spec'] as { nodeName?: string } | undefined)?.nodeName;
      if (object.kind === 'Pod' && node) scenarioNodes.add(node);
    }
  }
  for (const name of NAMES) {
    const clashes = (await loadBackground(name)).objects.filter(
      (object) => object.kind === 'Node' && scenarioNodes.has(object.metadata.name),
    );
    assert.deepEqual(
      clashes.map((node) => node.metadata.name),
      [],
      name,
    );
  }
});

test('an unknown background is a BackgroundError that lists the known ones', async () => {
  await assert.rejects(
    loadBackground('gke'),
    (error: Error) =>
      error instanceof BackgroundError && error.message === 'unknown background "gke" (known: aks, eks, kubeadm)',
  );
  await assert.rejects(loadScenario('mock-cluster/scenarios/worker-bad-flag', { background: 'gke' }), BackgroundError);
});
