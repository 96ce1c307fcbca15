import assert from 'node:assert/strict';
import { test } from 'node:test';

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
