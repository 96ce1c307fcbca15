import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PodDetailsData } from '../../tools/describe-pod.ts';
import { classifyCase } from './classify.ts';
import type { Case } from './case.ts';

const NOW = new Date('2026-11-20T12:00:00Z');

/** A running, ready pod whose container was OOM-killed two hours ago, `restarts` times in all. */
function quietAfterOomKills(restarts: number): Case {
  const pod = {
    namespace: 'shop',
    name: 'orders-worker-6c9d7b5f48-k2vxn',
    status: 'Running',
    phase: 'Running',
    ready: '1/1',
    restarts,
    labels: {},
    conditions: [{ type: 'Ready', status: 'True' }],
    containers: [
      {
        name: 'worker',
        init: false,
        image: 'orders-worker:2.4.1',
        ready: true,
        restartCount: restarts,
        state: { state: 'running', startedAt: '2026-11-20T10:00:05Z' },
        lastState: { state: 'terminated', reason: 'OOMKilled', exitCode: 137, finishedAt: '2026-11-20T10:00:00Z' },
      },
    ],
    spec: {
      containers: [
        {
          name: 'worker',
          init: false,
          image: 'orders-worker:2.4.1',
          ports: [],
          env: [],
          envFrom: [],
          resources: { limits: { memory: '256Mi' } },
          probes: [],
          volumeMounts: [],
        },
      ],
      volumes: [],
      tolerations: [],
      imagePullSecrets: [],
    },
    owners: [],
    workload: { kind: 'Deployment', name: 'orders-worker' },
    events: [],
  } as unknown as PodDetailsData;
  return {
    focus: { kind: 'pod', namespace: 'shop', name: pod.name },
    clusterNow: NOW,
    pod,
    workload: { kind: 'Deployment', namespace: 'shop', name: 'orders-worker' },
  };
}

test('a pod killed for memory again and again is still an OOM problem, however quiet it is now', () => {
  const finding = classifyCase(quietAfterOomKills(6));
  assert.equal(finding?.category, 'oom-killed');
  assert.match(finding?.evidence.join('\n') ?? '', /OOMKilled \(exit code 137\).*256Mi/);
});

test('a pod that crashed once, long ago, and runs ready since has recovered', () => {
  assert.equal(classifyCase(quietAfterOomKills(1))?.category, 'no-issue');
});
