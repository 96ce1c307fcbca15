import assert from 'node:assert/strict';
import { test } from 'node:test';
import { subjectLabels } from './alert-subject.ts';

test("an exporter's labels name the scrape target, except when the alert is about the target being down", () => {
  const crashLooping = subjectLabels({ alertname: 'KubePodCrashLooping', pod: 'kube-state-metrics-7d9f-x2k4q', container: 'kube-state-metrics', service: 'kube-prometheus-stack-kube-state-metrics', exported_pod: 'cart-6f58-mjcbt', namespace: 'shop' });
  assert.equal(crashLooping.pod, 'cart-6f58-mjcbt');
  const down = subjectLabels({ alertname: 'TargetDown', job: 'node-exporter', namespace: 'monitoring', service: 'prometheus-node-exporter' });
  assert.equal(down.service, 'prometheus-node-exporter');
  const celery = subjectLabels({ alertname: 'CeleryTaskFailureRateHigh', service: 'celery-exporter', container: 'celery-exporter', namespace: 'media' });
  assert.equal(celery.service, undefined);
});
