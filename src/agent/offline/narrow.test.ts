import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PodSummaryData } from '../../tools/format/pod-status.ts';
import { failingNamedByPods } from './narrow.ts';

function pod(
  namespace: string,
  name: string,
  owner: { kind: string; name: string } | undefined,
  healthy: boolean,
): PodSummaryData {
  return {
    namespace,
    name,
    status: healthy ? 'Running' : 'CrashLoopBackOff',
    phase: 'Running',
    ready: healthy ? '1/1' : '0/1',
    restarts: healthy ? 0 : 8,
    healthy,
    ...(owner ? { owner } : {}),
  };
}

const PODS = [
  pod('staging', 'checkout-api-7d9f8c6b5-x2k4q', { kind: 'ReplicaSet', name: 'checkout-api-7d9f8c6b5' }, false),
  pod('staging', 'checkout-api-5c8b7d6f4-tzs6v', { kind: 'ReplicaSet', name: 'checkout-api-5c8b7d6f4' }, true),
  pod('staging', 'frontend-69c7f4d8b5-hv2pl', { kind: 'ReplicaSet', name: 'frontend-69c7f4d8b5' }, true),
  pod('data', 'nightly-report-29012340-abcde', { kind: 'Job', name: 'nightly-report-29012340' }, false),
];

test('a failing workload the words name in full is the lead, read from the pods alone', () => {
  assert.deepEqual(failingNamedByPods(PODS, 'checkout-api in staging keeps restarting')?.focus, {
    kind: 'workload',
    workloadKind: 'Deployment',
    namespace: 'staging',
    name: 'checkout-api',
  });
  assert.deepEqual(failingNamedByPods(PODS, 'the nightly-report job failed again')?.focus, {
    kind: 'workload',
    workloadKind: 'CronJob',
    namespace: 'data',
    name: 'nightly-report',
  });
});

test('a healthy workload, a partial name or only a namespace leaves the wider inventory to be listed', () => {
  assert.equal(failingNamedByPods(PODS, 'frontend in staging is slow'), undefined);
  assert.equal(failingNamedByPods(PODS, 'checkout is failing'), undefined);
  assert.equal(failingNamedByPods(PODS, 'something is wrong in the staging namespace'), undefined);
});
