import assert from 'node:assert/strict';
import { test } from 'node:test';
import { unknownName } from './locate.ts';

const KNOWN = ['invoice-worker', 'finance', 'shop', 'ip-10-0-1-23.eu-west-1.compute.internal', 'checkout-api', 'checkout-api-7d9f8c6b5-x2k4q'];

test('a kebab-case name that nothing in the cluster carries is reported, with the kind the sentence gives it', () => {
  assert.deepEqual(unknownName('billing-worker in finance keeps crashing', KNOWN), { name: 'billing-worker' });
  assert.deepEqual(unknownName('node worker-9 is NotReady', KNOWN), { name: 'worker-9', kind: 'Node' });
  assert.deepEqual(unknownName('pods in the shop-eu namespace are pending', KNOWN), { name: 'shop-eu', kind: 'Namespace' });
  assert.deepEqual(unknownName('everything in payments-prod is down', KNOWN), { name: 'payments-prod', kind: 'Namespace' });
});

test('names the cluster has, their pods and their short forms, versions, tickets and everyday words are not reported', () => {
  assert.equal(unknownName('checkout-api in shop keeps restarting', KNOWN), undefined);
  assert.equal(unknownName('pod checkout-api-7d9f8c6b5-x2k4q is crash-looping', KNOWN), undefined);
  assert.equal(unknownName('node ip-10-0-1-23 looks out-of-memory', KNOWN), undefined);
  assert.equal(unknownName('broken since deployment v2.3 and ticket API-2207', KNOWN), undefined);
  assert.equal(unknownName('the job failed and the service is down', KNOWN), undefined);
});

test('words match names by their stem, not their spelling', async () => {
  const { mentionScore } = await import('./locate.ts');
  assert.ok(mentionScore('pricing-api', 'prices endpoint returning 503') > 0);
  assert.ok(mentionScore('payment-gateway', 'payments are failing') > 0);
  assert.equal(mentionScore('checkout-api', 'the cart page is slow'), 0);
});

test("an exporter's labels name the scrape target, except when the alert is about the target being down", async () => {
  const { subjectLabels } = await import('./locate.ts');
  const crashLooping = subjectLabels({ alertname: 'KubePodCrashLooping', pod: 'kube-state-metrics-7d9f-x2k4q', container: 'kube-state-metrics', service: 'kube-prometheus-stack-kube-state-metrics', exported_pod: 'cart-6f58-mjcbt', namespace: 'shop' });
  assert.equal(crashLooping.pod, 'cart-6f58-mjcbt');
  const down = subjectLabels({ alertname: 'TargetDown', job: 'node-exporter', namespace: 'monitoring', service: 'prometheus-node-exporter' });
  assert.equal(down.service, 'prometheus-node-exporter');
  const celery = subjectLabels({ alertname: 'CeleryTaskFailureRateHigh', service: 'celery-exporter', container: 'celery-exporter', namespace: 'media' });
  assert.equal(celery.service, undefined);
});
