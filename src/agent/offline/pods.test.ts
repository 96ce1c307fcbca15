import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PodSummaryData } from '../../tools/format/pod-status.ts';
import { failingStateOf, podsOfWorkloadsDown, retriedToSuccess } from './pods.ts';

const pod = (fields: Partial<PodSummaryData>): PodSummaryData => ({
  namespace: 'shop',
  name: 'web-1',
  status: 'Running',
  phase: 'Running',
  ready: '1/1',
  restarts: 0,
  healthy: true,
  ...fields,
});

test("a failing pod's state is read in the terms a report uses; a healthy pod has none", () => {
  assert.equal(
    failingStateOf(pod({ status: 'CrashLoopBackOff', ready: '0/1', restarts: 7, healthy: false })),
    'crashing',
  );
  assert.equal(
    failingStateOf(pod({ status: 'ImagePullBackOff', phase: 'Pending', ready: '0/1', healthy: false })),
    'image-pull',
  );
  assert.equal(
    failingStateOf(
      pod({
        status: 'Pending',
        phase: 'Pending',
        ready: '0/1',
        unschedulable: '0/3 nodes are available',
        healthy: false,
      }),
    ),
    'pending',
  );
  assert.equal(failingStateOf(pod({ status: 'Running', ready: '0/1', healthy: false })), 'not-ready');
  assert.equal(failingStateOf(pod({ status: 'Error', phase: 'Failed', ready: '0/1', healthy: false })), 'crashing');
  assert.equal(failingStateOf(pod({})), undefined);
});

test("a Job's failed attempt that a later attempt completed is history; a failed one alone is not", () => {
  const failed = pod({
    name: 'migrate-a',
    status: 'Error',
    phase: 'Failed',
    healthy: false,
    owner: { kind: 'Job', name: 'migrate' },
  });
  const succeeded = pod({
    name: 'migrate-b',
    status: 'Completed',
    phase: 'Succeeded',
    owner: { kind: 'Job', name: 'migrate' },
  });
  assert.equal(retriedToSuccess(failed, [failed, succeeded]), true);
  assert.equal(retriedToSuccess(failed, [failed]), false);
  assert.equal(retriedToSuccess(failed, [failed, { ...succeeded, owner: { kind: 'Job', name: 'other' } }]), false);
});

test('a workload that serves nothing is picked over a rollout stuck beside healthy replicas; a Job is never down', () => {
  const gateway = ['a', 'b'].map((suffix) =>
    pod({
      name: `gateway-7d5c4b9f86-${suffix}`,
      ready: '0/1',
      healthy: false,
      owner: { kind: 'ReplicaSet', name: 'gateway-7d5c4b9f86' },
    }),
  );
  const relayOld = pod({ name: 'relay-5b7f6c8d94-aaaaa', owner: { kind: 'ReplicaSet', name: 'relay-5b7f6c8d94' } });
  const relayNew = pod({
    name: 'relay-6c9d8f7b5-bbbbb',
    status: 'ImagePullBackOff',
    phase: 'Pending',
    ready: '0/1',
    healthy: false,
    owner: { kind: 'ReplicaSet', name: 'relay-6c9d8f7b5' },
  });
  const all = [...gateway, relayOld, relayNew];
  assert.deepEqual(
    podsOfWorkloadsDown([...gateway, relayNew], all).map((one) => one.name),
    gateway.map((one) => one.name),
  );
  // Counter-example: with every failing workload still serving, all the troubled pods stay candidates.
  assert.deepEqual(podsOfWorkloadsDown([relayNew], [relayOld, relayNew]), [relayNew]);
  const job = pod({
    name: 'report-1',
    status: 'Error',
    phase: 'Failed',
    healthy: false,
    owner: { kind: 'Job', name: 'report' },
  });
  assert.deepEqual(podsOfWorkloadsDown([job, relayNew], [job, relayOld, relayNew]), [job, relayNew]);
});
