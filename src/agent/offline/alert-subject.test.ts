import assert from 'node:assert/strict';
import { test } from 'node:test';
import { subjectLabels } from './alert-subject.ts';

test("an exporter's labels name the scrape target, except when the alert is about the target being down", () => {
  const crashLooping = subjectLabels({
    alertname: 'KubePodCrashLooping',
    pod: 'kube-state-metrics-7d9f-x2k4q',
    container: 'kube-state-metrics',
    service: 'kube-prometheus-stack-kube-state-metrics',
    exported_pod: 'cart-6f58-mjcbt',
    namespace: 'shop',
  });
  assert.equal(crashLooping.pod, 'cart-6f58-mjcbt');
  const down = subjectLabels({
    alertname: 'TargetDown',
    job: 'node-exporter',
    namespace: 'monitoring',
    service: 'prometheus-node-exporter',
  });
  assert.equal(down.service, 'prometheus-node-exporter');
  const celery = subjectLabels({
    alertname: 'CeleryTaskFailureRateHigh',
    service: 'celery-exporter',
    container: 'celery-exporter',
    namespace: 'media',
  });
  assert.equal(celery.service, undefined);
});

test("a series about another namespace's object: the scraper's pod and Service are set aside, the exported ones kept", () => {
  const ingress = subjectLabels({
    alertname: 'NGINXHighHttp5xxErrorRate',
    namespace: 'ingress-nginx',
    pod: 'ingress-nginx-controller-6f5c8b7d9c-8fj2w',
    exported_namespace: 'payments',
    exported_service: 'payments-gateway',
    ingress: 'payments-gateway',
  });
  assert.deepEqual([ingress.namespace, ingress.pod, ingress.service], ['payments', undefined, 'payments-gateway']);
  const metrics = subjectLabels({
    alertname: 'NginxIngressHigh5xxRate',
    namespace: 'ingress-nginx',
    exported_namespace: 'storefront',
    service: 'ingress-nginx-controller-metrics',
  });
  assert.equal(metrics.service, undefined);
  // Counter-example: exported_namespace equal to namespace says nothing about the scraper.
  const same = subjectLabels({
    alertname: 'KubePodCrashLooping',
    namespace: 'shop',
    exported_namespace: 'shop',
    pod: 'cart-6f58-mjcbt',
  });
  assert.equal(same.pod, 'cart-6f58-mjcbt');
});
