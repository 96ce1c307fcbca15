import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  culpritOf,
  diagnosedCulpritKeys,
  podOfAlert,
  POD_NAME_SHAPES,
  takeOrderOf,
  WELL_KNOWN_SERVICES,
  workloadOfOwner,
  workloadOfPodName,
} from './correlate.ts';

test('every pod name shape matches its examples, strips them to their base, and rejects its counter-examples', () => {
  for (const shape of POD_NAME_SHAPES) {
    shape.examples.matches.forEach((pod, index) => {
      const match = shape.pattern.exec(pod);
      assert.ok(match, `${shape.id} should match ${pod}`);
      assert.equal(match[1], shape.examples.base[index], `${shape.id} strips ${pod}`);
    });
    for (const pod of shape.examples.notMatches)
      assert.equal(shape.pattern.test(pod), false, `${shape.id} should not match ${pod}`);
  }
});

test("a pod's name points at its workload, and says when it cannot tell a DaemonSet from a Job", () => {
  assert.deepEqual(workloadOfPodName('checkout-api-7d9f8c6b5-x2k4q'), {
    kind: 'Deployment',
    name: 'checkout-api',
    rule: 'deployment-pod',
  });
  assert.deepEqual(workloadOfPodName('events-mongo-0'), {
    kind: 'StatefulSet',
    name: 'events-mongo',
    rule: 'statefulset-pod',
  });
  assert.deepEqual(workloadOfPodName('fluent-bit-b4hlt'), {
    kind: 'DaemonSet or Job',
    name: 'fluent-bit',
    rule: 'daemonset-or-job-pod',
  });
  assert.deepEqual(workloadOfPodName('nightly-load-29906400-8kq2x'), {
    kind: 'CronJob',
    name: 'nightly-load',
    rule: 'cronjob-pod',
  });
  assert.deepEqual(workloadOfPodName('kube-apiserver-control-plane'), {
    kind: 'Pod',
    name: 'kube-apiserver-control-plane',
    rule: 'bare-pod',
  });
});

test('an owner reference climbs to the top workload: a ReplicaSet to its Deployment, a Job to its CronJob', () => {
  assert.deepEqual(workloadOfOwner('ReplicaSet', 'cart-6f58f6bfb9'), { kind: 'Deployment', name: 'cart' });
  assert.deepEqual(workloadOfOwner('Job', 'nightly-load-29906400'), { kind: 'CronJob', name: 'nightly-load' });
  assert.deepEqual(workloadOfOwner('Job', 'db-migrate'), { kind: 'Job', name: 'db-migrate' });
  assert.deepEqual(workloadOfOwner('StatefulSet', 'events-mongo'), { kind: 'StatefulSet', name: 'events-mongo' });
});

test('two pods of one Deployment and the Deployment itself are one incident', () => {
  const first = culpritOf({
    alertname: 'KubePodCrashLooping',
    namespace: 'shop',
    pod: 'cart-6f58f6bfb9-mjcbt',
    container: 'app',
  });
  const second = culpritOf({ alertname: 'KubePodNotReady', namespace: 'shop', pod: 'cart-6f58f6bfb9-x2k4q' });
  const deployment = culpritOf({
    alertname: 'KubeDeploymentReplicasMismatch',
    namespace: 'shop',
    deployment: 'cart',
    job: 'kube-state-metrics',
  });
  assert.equal(first?.key, 'workload:shop/cart');
  assert.equal(second?.key, first?.key);
  assert.equal(deployment?.key, first?.key);
  assert.equal(first?.kind, 'Deployment');
  assert.ok(deployment!.breadth > first!.breadth, 'the Deployment alert sees the whole incident');
});

test('owner labels from kube-state-metrics win over the pod name', () => {
  const culprit = culpritOf({
    alertname: 'PodOwned',
    namespace: 'shop',
    pod: 'oddly-named',
    owner_kind: 'ReplicaSet',
    owner_name: 'cart-6f58f6bfb9',
  });
  assert.deepEqual(culprit, {
    key: 'workload:shop/cart',
    keys: ['workload:shop/cart'],
    findKeys: ['workload:shop/cart'],
    scope: 'workload',
    kind: 'Deployment',
    namespace: 'shop',
    name: 'cart',
    rule: 'owner',
    breadth: 1,
  });
  const createdBy = culpritOf({
    alertname: 'PodInfo',
    namespace: 'data',
    pod: 'x',
    created_by_kind: 'StatefulSet',
    created_by_name: 'events-mongo',
  });
  assert.equal(createdBy?.key, 'workload:data/events-mongo');
  // kube-state-metrics says <none> for a pod nothing owns: the pod's name decides.
  const unowned = culpritOf({
    alertname: 'PodOwned',
    namespace: 'shop',
    pod: 'cart-6f58f6bfb9-mjcbt',
    owner_kind: '<none>',
    owner_name: '<none>',
  });
  assert.equal(unowned?.rule, 'deployment-pod');
});

test("the object's own labels (exported_*) win over the scrape target's, and an exporter's pod names nothing", () => {
  const culprit = culpritOf({
    alertname: 'KubePodCrashLooping',
    namespace: 'monitoring',
    pod: 'kube-state-metrics-57cb5c4fd-95clr',
    container: 'kube-state-metrics',
    exported_namespace: 'shop',
    exported_pod: 'cart-6f58f6bfb9-mjcbt',
  });
  assert.equal(culprit?.key, 'workload:shop/cart');
  const deployment = culpritOf({
    alertname: 'KubeDeploymentReplicasMismatch',
    namespace: 'monitoring',
    exported_namespace: 'shop',
    deployment: 'kube-state-metrics',
    exported_deployment: 'cart',
  });
  assert.equal(deployment?.key, 'workload:shop/cart');
  const onlyExporter = culpritOf({
    alertname: 'KubeQuotaAlmostFull',
    namespace: 'shop',
    pod: 'kube-state-metrics-57cb5c4fd-95clr',
    resourcequota: 'compute',
  });
  assert.equal(onlyExporter?.key, 'quota:shop/compute');
});

test('a CronJob, its Jobs and their pods are one incident; a DaemonSet alert and its pods are one too', () => {
  const cronjob = culpritOf({ alertname: 'KubeCronJobFailed', namespace: 'batch', cronjob: 'nightly-load' });
  const job = culpritOf({ alertname: 'KubeJobFailed', namespace: 'batch', job_name: 'nightly-load-29906400' });
  const pod = culpritOf({ alertname: 'KubePodNotReady', namespace: 'batch', pod: 'nightly-load-29906400-8kq2x' });
  assert.equal(job?.key, cronjob?.key);
  assert.equal(job?.scheduledMinute, 29906400);
  assert.equal(cronjob?.scheduledMinute, undefined);
  assert.equal(pod?.key, cronjob?.key);
  const daemonset = culpritOf({
    alertname: 'KubeDaemonSetRolloutStuck',
    namespace: 'logging',
    daemonset: 'fluent-bit',
  });
  const daemonPod = culpritOf({ alertname: 'KubePodCrashLooping', namespace: 'logging', pod: 'fluent-bit-b4hlt' });
  assert.equal(daemonPod?.key, daemonset?.key);
  assert.equal(daemonPod?.kind, 'DaemonSet or Job');
});

test('alerts about no workload correlate on their own subject, or not at all', () => {
  assert.equal(
    culpritOf({ alertname: 'KubeNodeNotReady', node: 'worker-1', job: 'kube-state-metrics' })?.key,
    'node:worker-1',
  );
  assert.equal(
    culpritOf({ alertname: 'KubePersistentVolumeFillingUp', namespace: 'data', persistentvolumeclaim: 'scratch' })?.key,
    'pvc:data/scratch',
  );
  assert.equal(
    culpritOf({ alertname: 'TargetDown', namespace: 'shop', service: 'cart', job: 'cart' })?.key,
    'service:shop/cart',
  );
  assert.equal(culpritOf({ alertname: 'KubeCPUOvercommit', severity: 'warning' }), undefined);
  assert.equal(culpritOf({ alertname: 'Watchdog' }), undefined);
  // A namespace alone is too coarse to be one incident.
  assert.equal(culpritOf({ alertname: 'SomethingInShop', namespace: 'shop' }), undefined);
  // A workload label without a namespace cannot be placed.
  assert.equal(culpritOf({ alertname: 'Odd', deployment: 'cart' }), undefined);
});

test('a pod alert that also names its node belongs to the workload, not the node', () => {
  assert.equal(
    culpritOf({ alertname: 'KubePodNotReady', namespace: 'shop', pod: 'cart-6f58f6bfb9-mjcbt', node: 'worker-1' })?.key,
    'workload:shop/cart',
  );
});

test('the same workload in two clusters is two incidents', () => {
  const east = culpritOf({
    alertname: 'KubePodCrashLooping',
    namespace: 'shop',
    pod: 'cart-6f58f6bfb9-mjcbt',
    cluster: 'east',
  });
  const west = culpritOf({
    alertname: 'KubePodCrashLooping',
    namespace: 'shop',
    pod: 'cart-6f58f6bfb9-mjcbt',
    cluster: 'west',
  });
  assert.equal(east?.key, 'workload:shop/cart cluster=east');
  assert.notEqual(east?.key, west?.key);
});

test("a StatefulSet's claims are one set, and answer for the StatefulSets their names may come from", () => {
  const claim = culpritOf({
    alertname: 'KubePersistentVolumeFillingUp',
    namespace: 'data',
    persistentvolumeclaim: 'data-events-mongo-0',
  });
  assert.equal(claim?.key, 'pvc:data/data-events-mongo');
  assert.deepEqual(claim?.keys, ['pvc:data/data-events-mongo', 'workload:data/events-mongo', 'workload:data/mongo']);
  const sibling = culpritOf({
    alertname: 'KubePersistentVolumeFillingUp',
    namespace: 'data',
    persistentvolumeclaim: 'data-events-mongo-1',
  });
  assert.equal(sibling?.key, claim?.key);
  const pod = culpritOf({ alertname: 'KubePodNotReady', namespace: 'data', pod: 'events-mongo-1' });
  assert.ok(claim?.keys.includes(pod!.key), 'the pod finds the run its claim started');
});

test("a Service answers for the workload of its name, with a chart's suffix stripped", () => {
  assert.deepEqual(
    culpritOf({ alertname: 'KubeServiceNoEndpoints', namespace: 'streaming', service: 'kafka-headless' })?.keys,
    ['service:streaming/kafka-headless', 'workload:streaming/kafka-headless', 'workload:streaming/kafka'],
  );
  assert.deepEqual(
    culpritOf({ alertname: 'KubeServiceNoEndpoints', namespace: 'events', service: 'consumer-management' })?.keys,
    ['service:events/consumer-management', 'workload:events/consumer-management', 'workload:events/consumer'],
  );
  assert.deepEqual(
    culpritOf({ alertname: 'TargetDown', namespace: 'shop', service: 'cart', job: 'cart', cluster: 'east' })?.keys,
    ['service:shop/cart cluster=east', 'workload:shop/cart cluster=east'],
  );
});

test("a pod named like an exporter, or with a container named exporter, is the subject of its own alerts; the scrape job's own pod is not", () => {
  const daemonPod = culpritOf({
    alertname: 'KubePodNotReady',
    namespace: 'monitoring',
    pod: 'node-exporter-7nwnx',
    job: 'kube-state-metrics',
  });
  const daemonset = culpritOf({
    alertname: 'KubeDaemonSetRolloutStuck',
    namespace: 'monitoring',
    daemonset: 'node-exporter',
    job: 'kube-state-metrics',
  });
  assert.equal(daemonPod?.key, 'workload:monitoring/node-exporter');
  assert.equal(daemonPod?.key, daemonset?.key);
  const cronPod = culpritOf({
    alertname: 'KubeContainerWaiting',
    namespace: 'analytics',
    pod: 'weekly-export-29872860-htv8g',
    container: 'exporter',
    job: 'kube-state-metrics',
  });
  assert.equal(
    cronPod?.key,
    culpritOf({ alertname: 'KubeJobNotCompleted', namespace: 'analytics', job_name: 'weekly-export-29872860' })?.key,
  );
  // An exporter's own pod, scraped as the target: the job names it, so it is no subject.
  assert.equal(
    culpritOf({
      alertname: 'RedisDown',
      namespace: 'cache',
      pod: 'redis-exporter-6f58f6bfb9-mjcbt',
      job: 'redis-exporter',
    }),
    undefined,
  );
  const filesystem = {
    alertname: 'NodeFilesystemSpaceFillingUp',
    namespace: 'monitoring',
    pod: 'kps-prometheus-node-exporter-b4hlt',
    container: 'node-exporter',
    job: 'node-exporter',
    node: 'worker-1',
  };
  assert.equal(
    culpritOf(filesystem)?.key,
    'node:worker-1',
    "a chart's release-prefixed exporter pod is the target too",
  );
  assert.equal(
    culpritOf({ ...filesystem, pod: 'exporter-b4hlt' })?.key,
    'node:worker-1',
    'its container names the job',
  );
  assert.equal(
    podOfAlert({
      alertname: 'KubeQuotaAlmostFull',
      namespace: 'shop',
      pod: 'kube-state-metrics-57cb5c4fd-95clr',
      resourcequota: 'compute',
    }),
    undefined,
  );
  assert.equal(
    podOfAlert({
      alertname: 'KubePodNotReady',
      namespace: 'shop',
      pod: 'kube-state-metrics-57cb5c4fd-95clr',
      exported_pod: 'cart-6f58f6bfb9-mjcbt',
    }),
    'cart-6f58f6bfb9-mjcbt',
  );
});

test("a Service named for its workload's console or UI answers for the workload; the cluster DNS Service answers for CoreDNS", () => {
  assert.ok(
    culpritOf({ alertname: 'KubeServiceNoEndpoints', namespace: 'storage', service: 'minio-console' })?.keys.includes(
      'workload:storage/minio',
    ),
  );
  assert.ok(
    culpritOf({ alertname: 'KubeServiceNoEndpoints', namespace: 'kafka', service: 'redpanda-ui' })?.keys.includes(
      'workload:kafka/redpanda',
    ),
  );
  const dns = culpritOf({
    alertname: 'KubeServiceNoEndpoints',
    namespace: 'kube-system',
    service: 'kube-dns',
    cluster: 'east',
  });
  assert.deepEqual(dns?.keys, [
    'service:kube-system/kube-dns cluster=east',
    'workload:kube-system/coredns cluster=east',
    'workload:kube-system/kube-dns cluster=east',
  ]);
  assert.equal(
    dns?.keys.includes(
      culpritOf({
        alertname: 'KubePodCrashLooping',
        namespace: 'kube-system',
        pod: 'coredns-66x8wh4m2p-7j2tz',
        cluster: 'east',
      })!.key,
    ),
    true,
  );
  // The convention is kube-system's: a kube-dns Service elsewhere is a Service like any other.
  assert.deepEqual(culpritOf({ alertname: 'KubeServiceNoEndpoints', namespace: 'lab', service: 'kube-dns' })?.keys, [
    'service:lab/kube-dns',
    'workload:lab/kube-dns',
  ]);
  for (const row of WELL_KNOWN_SERVICES) assert.ok(row.reason.length > 0 && row.workloads.length > 0, row.service);
});

test("a claim without an ordinal answers for the workloads its dash-prefixes name: a Deployment's claim", () => {
  const claim = culpritOf({
    alertname: 'KubePersistentVolumeClaimPending',
    namespace: 'wiki',
    persistentvolumeclaim: 'wiki-shared',
  });
  assert.deepEqual(claim?.keys, ['pvc:wiki/wiki-shared', 'workload:wiki/wiki-shared', 'workload:wiki/wiki']);
  assert.ok(
    claim?.keys.includes(
      culpritOf({ alertname: 'KubeDeploymentReplicasMismatch', namespace: 'wiki', deployment: 'wiki' })!.key,
    ),
  );
  assert.deepEqual(
    culpritOf({ alertname: 'KubePersistentVolumeClaimPending', namespace: 'data', persistentvolumeclaim: 'scratch' })
      ?.keys,
    ['pvc:data/scratch', 'workload:data/scratch'],
  );
});

test("a quota alert finds the workload-level runs of its namespace; a pod's alert registers no namespace key, and quota alerts are taken last", () => {
  const quota = culpritOf({
    alertname: 'KubeQuotaFullyUsed',
    namespace: 'reports',
    resourcequota: 'compute-resources',
    cluster: 'east',
  });
  const deployment = culpritOf({
    alertname: 'KubeDeploymentReplicasMismatch',
    namespace: 'reports',
    deployment: 'report-api',
    cluster: 'east',
  });
  const pod = culpritOf({
    alertname: 'KubePodCrashLooping',
    namespace: 'reports',
    pod: 'report-api-6f58f6bfb9-mjcbt',
    cluster: 'east',
  });
  assert.equal(deployment?.namespaceKey, 'namespace:reports cluster=east');
  assert.ok(quota?.findKeys.includes(deployment.namespaceKey), 'the quota alert finds the Deployment run');
  assert.equal(
    quota?.keys.includes(deployment.namespaceKey),
    false,
    'a run the quota alert starts does not answer for the namespace',
  );
  assert.equal(pod?.namespaceKey, undefined);
  assert.equal(
    culpritOf({ alertname: 'KubeHpaMaxedOut', namespace: 'reports', horizontalpodautoscaler: 'report-worker' })
      ?.namespaceKey,
    undefined,
    'an autoscaler at its maximum is not short of pods',
  );
  assert.ok(
    culpritOf({ alertname: 'KubeJobFailed', namespace: 'reports', job_name: 'daily-rollup-29400975' })?.namespaceKey,
  );
  assert.deepEqual(pod?.findKeys, pod?.keys);
  assert.ok(takeOrderOf(quota) > takeOrderOf(deployment));
  assert.equal(takeOrderOf(pod), takeOrderOf(undefined));
});

test("a diagnosed culprit's keys are the ones its own alerts carry, in the run's cluster", () => {
  const labels = {
    alertname: 'KubePodNotReady',
    namespace: 'web',
    pod: 'storefront-j89c8sk2wl-xtq8n',
    cluster: 'east',
  };
  const nodeAlert = culpritOf({ alertname: 'KubeNodePressure', node: 'ip-10-0-3-41', cluster: 'east' });
  assert.deepEqual(diagnosedCulpritKeys({ kind: 'Node', name: 'ip-10-0-3-41' }, labels), [nodeAlert!.key]);
  const redis = culpritOf({
    alertname: 'KubeStatefulSetReplicasMismatch',
    namespace: 'cache',
    statefulset: 'cart-redis',
    cluster: 'east',
  });
  assert.deepEqual(diagnosedCulpritKeys({ kind: 'StatefulSet', namespace: 'cache', name: 'cart-redis' }, labels), [
    redis!.key,
  ]);
  assert.deepEqual(diagnosedCulpritKeys({ kind: 'Job', namespace: 'etl', name: 'ledger-export-29400975' }, labels), [
    'workload:etl/ledger-export cluster=east',
  ]);
  assert.deepEqual(
    diagnosedCulpritKeys({ kind: 'Pod', namespace: 'web', name: 'storefront-j89c8sk2wl-xtq8n' }, labels),
    ['workload:web/storefront cluster=east'],
  );
  assert.deepEqual(diagnosedCulpritKeys({ kind: 'Service', namespace: 'warehouse', name: 'inventory' }, labels), [
    'service:warehouse/inventory cluster=east',
  ]);
  assert.deepEqual(diagnosedCulpritKeys({ kind: 'Deployment', name: 'no-namespace' }, labels), []);
  assert.deepEqual(
    diagnosedCulpritKeys({ kind: 'Deployment', namespace: 'web', name: 'storefront' }, { alertname: 'X' }),
    ['workload:web/storefront'],
  );
});
