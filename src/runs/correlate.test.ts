import assert from 'node:assert/strict';
import { test } from 'node:test';
import { culpritOf, POD_NAME_SHAPES, workloadOfOwner, workloadOfPodName } from './correlate.ts';

test('every pod name shape matches its examples, strips them to their base, and rejects its counter-examples', () => {
  for (const shape of POD_NAME_SHAPES) {
    shape.examples.matches.forEach((pod, index) => {
      const match = shape.pattern.exec(pod);
      assert.ok(match, `${shape.id} should match ${pod}`);
      assert.equal(match[1], shape.examples.base[index], `${shape.id} strips ${pod}`);
    });
    for (const pod of shape.examples.notMatches) assert.equal(shape.pattern.test(pod), false, `${shape.id} should not match ${pod}`);
  }
});

test("a pod's name points at its workload, and says when it cannot tell a DaemonSet from a Job", () => {
  assert.deepEqual(workloadOfPodName('checkout-api-7d9f8c6b5-x2k4q'), { kind: 'Deployment', name: 'checkout-api', rule: 'deployment-pod' });
  assert.deepEqual(workloadOfPodName('events-mongo-0'), { kind: 'StatefulSet', name: 'events-mongo', rule: 'statefulset-pod' });
  assert.deepEqual(workloadOfPodName('fluent-bit-b4hlt'), { kind: 'DaemonSet or Job', name: 'fluent-bit', rule: 'daemonset-or-job-pod' });
  assert.deepEqual(workloadOfPodName('nightly-load-29906400-8kq2x'), { kind: 'CronJob', name: 'nightly-load', rule: 'cronjob-pod' });
  assert.deepEqual(workloadOfPodName('kube-apiserver-control-plane'), { kind: 'Pod', name: 'kube-apiserver-control-plane', rule: 'bare-pod' });
});

test('an owner reference climbs to the top workload: a ReplicaSet to its Deployment, a Job to its CronJob', () => {
  assert.deepEqual(workloadOfOwner('ReplicaSet', 'cart-6f58f6bfb9'), { kind: 'Deployment', name: 'cart' });
  assert.deepEqual(workloadOfOwner('Job', 'nightly-load-29906400'), { kind: 'CronJob', name: 'nightly-load' });
  assert.deepEqual(workloadOfOwner('Job', 'db-migrate'), { kind: 'Job', name: 'db-migrate' });
  assert.deepEqual(workloadOfOwner('StatefulSet', 'events-mongo'), { kind: 'StatefulSet', name: 'events-mongo' });
});

test('two pods of one Deployment and the Deployment itself are one incident', () => {
  const first = culpritOf({ alertname: 'KubePodCrashLooping', namespace: 'shop', pod: 'cart-6f58f6bfb9-mjcbt', container: 'app' });
  const second = culpritOf({ alertname: 'KubePodNotReady', namespace: 'shop', pod: 'cart-6f58f6bfb9-x2k4q' });
  const deployment = culpritOf({ alertname: 'KubeDeploymentReplicasMismatch', namespace: 'shop', deployment: 'cart', job: 'kube-state-metrics' });
  assert.equal(first?.key, 'workload:shop/cart');
  assert.equal(second?.key, first?.key);
  assert.equal(deployment?.key, first?.key);
  assert.equal(first?.kind, 'Deployment');
  assert.ok(deployment!.breadth > first!.breadth, 'the Deployment alert sees the whole incident');
});

test('owner labels from kube-state-metrics win over the pod name', () => {
  const culprit = culpritOf({ alertname: 'PodOwned', namespace: 'shop', pod: 'oddly-named', owner_kind: 'ReplicaSet', owner_name: 'cart-6f58f6bfb9' });
  assert.deepEqual(culprit, { key: 'workload:shop/cart', keys: ['workload:shop/cart'], scope: 'workload', kind: 'Deployment', namespace: 'shop', name: 'cart', rule: 'owner', breadth: 1 });
  const createdBy = culpritOf({ alertname: 'PodInfo', namespace: 'data', pod: 'x', created_by_kind: 'StatefulSet', created_by_name: 'events-mongo' });
  assert.equal(createdBy?.key, 'workload:data/events-mongo');
  // kube-state-metrics says <none> for a pod nothing owns: the pod's name decides.
  const unowned = culpritOf({ alertname: 'PodOwned', namespace: 'shop', pod: 'cart-6f58f6bfb9-mjcbt', owner_kind: '<none>', owner_name: '<none>' });
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
  const deployment = culpritOf({ alertname: 'KubeDeploymentReplicasMismatch', namespace: 'monitoring', exported_namespace: 'shop', deployment: 'kube-state-metrics', exported_deployment: 'cart' });
  assert.equal(deployment?.key, 'workload:shop/cart');
  const onlyExporter = culpritOf({ alertname: 'KubeQuotaAlmostFull', namespace: 'shop', pod: 'kube-state-metrics-57cb5c4fd-95clr', resourcequota: 'compute' });
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
  const daemonset = culpritOf({ alertname: 'KubeDaemonSetRolloutStuck', namespace: 'logging', daemonset: 'fluent-bit' });
  const daemonPod = culpritOf({ alertname: 'KubePodCrashLooping', namespace: 'logging', pod: 'fluent-bit-b4hlt' });
  assert.equal(daemonPod?.key, daemonset?.key);
  assert.equal(daemonPod?.kind, 'DaemonSet or Job');
});

test('alerts about no workload correlate on their own subject, or not at all', () => {
  assert.equal(culpritOf({ alertname: 'KubeNodeNotReady', node: 'worker-1', job: 'kube-state-metrics' })?.key, 'node:worker-1');
  assert.equal(culpritOf({ alertname: 'KubePersistentVolumeFillingUp', namespace: 'data', persistentvolumeclaim: 'scratch' })?.key, 'pvc:data/scratch');
  assert.equal(culpritOf({ alertname: 'TargetDown', namespace: 'shop', service: 'cart', job: 'cart' })?.key, 'service:shop/cart');
  assert.equal(culpritOf({ alertname: 'KubeCPUOvercommit', severity: 'warning' }), undefined);
  assert.equal(culpritOf({ alertname: 'Watchdog' }), undefined);
  // A namespace alone is too coarse to be one incident.
  assert.equal(culpritOf({ alertname: 'SomethingInShop', namespace: 'shop' }), undefined);
  // A workload label without a namespace cannot be placed.
  assert.equal(culpritOf({ alertname: 'Odd', deployment: 'cart' }), undefined);
});

test('a pod alert that also names its node belongs to the workload, not the node', () => {
  assert.equal(culpritOf({ alertname: 'KubePodNotReady', namespace: 'shop', pod: 'cart-6f58f6bfb9-mjcbt', node: 'worker-1' })?.key, 'workload:shop/cart');
});

test('the same workload in two clusters is two incidents', () => {
  const east = culpritOf({ alertname: 'KubePodCrashLooping', namespace: 'shop', pod: 'cart-6f58f6bfb9-mjcbt', cluster: 'east' });
  const west = culpritOf({ alertname: 'KubePodCrashLooping', namespace: 'shop', pod: 'cart-6f58f6bfb9-mjcbt', cluster: 'west' });
  assert.equal(east?.key, 'workload:shop/cart cluster=east');
  assert.notEqual(east?.key, west?.key);
});

test("a StatefulSet's claims are one set, and answer for the StatefulSets their names may come from", () => {
  const claim = culpritOf({ alertname: 'KubePersistentVolumeFillingUp', namespace: 'data', persistentvolumeclaim: 'data-events-mongo-0' });
  assert.equal(claim?.key, 'pvc:data/data-events-mongo');
  assert.deepEqual(claim?.keys, ['pvc:data/data-events-mongo', 'workload:data/events-mongo', 'workload:data/mongo']);
  const sibling = culpritOf({ alertname: 'KubePersistentVolumeFillingUp', namespace: 'data', persistentvolumeclaim: 'data-events-mongo-1' });
  assert.equal(sibling?.key, claim?.key);
  const pod = culpritOf({ alertname: 'KubePodNotReady', namespace: 'data', pod: 'events-mongo-1' });
  assert.ok(claim?.keys.includes(pod!.key), 'the pod finds the run its claim started');
});

test("a Service answers for the workload of its name, with a chart's suffix stripped", () => {
  assert.deepEqual(culpritOf({ alertname: 'KubeServiceNoEndpoints', namespace: 'streaming', service: 'kafka-headless' })?.keys, [
    'service:streaming/kafka-headless',
    'workload:streaming/kafka-headless',
    'workload:streaming/kafka',
  ]);
  assert.deepEqual(culpritOf({ alertname: 'KubeServiceNoEndpoints', namespace: 'events', service: 'consumer-management' })?.keys, [
    'service:events/consumer-management',
    'workload:events/consumer-management',
    'workload:events/consumer',
  ]);
  assert.deepEqual(culpritOf({ alertname: 'TargetDown', namespace: 'shop', service: 'cart', job: 'cart', cluster: 'east' })?.keys, ['service:shop/cart cluster=east', 'workload:shop/cart cluster=east']);
});
