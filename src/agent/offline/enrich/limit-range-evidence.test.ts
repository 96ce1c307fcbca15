import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ResourceQuotasData } from '../../../tools/list-resource-quotas.ts';
import { describeBreach, readLimitBreaches } from './limit-range-evidence.ts';

const ranges: ResourceQuotasData['limitRanges'] = [
  {
    name: 'defaults',
    limits: [{ type: 'Container', default: { memory: '512Mi' }, defaultRequest: { memory: '256Mi' } }],
  },
  {
    name: 'mem-guardrails',
    limits: [
      {
        type: 'Container',
        max: { memory: '2Gi', cpu: '2' },
        min: { cpu: '100m' },
        maxLimitRequestRatio: { memory: '2' },
      },
      { type: 'Pod', max: { memory: '3Gi' } },
    ],
  },
];

test('the LimitRange that sets the broken bound is named with both numbers, whichever bound it is', () => {
  const [max] = readLimitBreaches(
    'Error creating: pods "indexer-7bdb8774ff-" is forbidden: maximum memory usage per Container is 2Gi, but limit is 4Gi',
  );
  assert.equal(
    describeBreach(max!, ranges, 'search'),
    "LimitRange search/mem-guardrails sets the maximum memory per Container to 2Gi; the pod's limit is 4Gi (2Gi over)",
  );
  const both = readLimitBreaches(
    'pods "w-1" is forbidden: [minimum cpu usage per Container is 100m, but request is 50m, maximum memory usage per Pod is 3Gi, but limit is 4Gi]',
  );
  assert.deepEqual(
    both.map((breach) => describeBreach(breach, ranges, 'search')),
    [
      "LimitRange search/mem-guardrails sets the minimum cpu per Container to 100m; the pod's request is 50m (50m under)",
      "LimitRange search/mem-guardrails sets the maximum memory per Pod to 3Gi; the pod's limit is 4Gi (1Gi over)",
    ],
  );
  const [ratio] = readLimitBreaches(
    'pods "w-1" is forbidden: memory max limit to request ratio per Container is 2, but provided ratio is 4.000000',
  );
  assert.equal(
    describeBreach(ratio!, ranges, 'search'),
    "LimitRange search/mem-guardrails sets the largest memory limit/request ratio per Container to 2; the pod's ratio is 4",
  );
});

test('counter-examples: a quota refusal reads no breach, and a bound no LimitRange sets names none', () => {
  assert.deepEqual(
    readLimitBreaches(
      'pods "w-1" is forbidden: exceeded quota: compute, requested: limits.memory=2Gi, used: limits.memory=7Gi, limited: limits.memory=8Gi',
    ),
    [],
  );
  const [other] = readLimitBreaches(
    'pods "w-1" is forbidden: maximum memory usage per Container is 1Gi, but limit is 4Gi',
  );
  assert.equal(describeBreach(other!, ranges, 'search'), undefined);
  const [pvc] = readLimitBreaches(
    'persistentvolumeclaims "data" is forbidden: maximum storage usage per PersistentVolumeClaim is 50Gi, but request is 100Gi',
  );
  assert.equal(describeBreach(pvc!, ranges, 'search'), undefined);
});
