import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { V1PersistentVolume, V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { volumeMisfits } from './volume-fit.ts';

const claim: V1PersistentVolumeClaim = {
  metadata: { name: 'journal-tallyd-2', namespace: 'ledger' },
  spec: {
    storageClassName: '',
    accessModes: ['ReadWriteOnce'],
    resources: { requests: { storage: '200Gi' } },
    selector: {
      matchLabels: { pool: 'tally-journal' },
      matchExpressions: [{ key: 'tier', operator: 'In', values: ['ssd'] }],
    },
  },
};
const volume = (
  labels: Record<string, string>,
  spec: Partial<NonNullable<V1PersistentVolume['spec']>> = {},
): V1PersistentVolume => ({
  metadata: { name: 'pv-03', labels },
  spec: { accessModes: ['ReadWriteOnce'], capacity: { storage: '200Gi' }, ...spec },
});

test('a volume that does not bind the claim says each reason, with both sides', () => {
  assert.deepEqual(volumeMisfits(claim, volume({ pool: 'tally-jouranl', tier: 'ssd' })), [
    'label pool=tally-jouranl, the claim selects pool=tally-journal',
  ]);
  assert.deepEqual(
    volumeMisfits(
      claim,
      volume({ pool: 'tally-journal' }, { storageClassName: 'gp3', capacity: { storage: '100Gi' } }),
    ),
    [
      'class "gp3", the claim\'s is none',
      'label tier absent, the claim selects tier In (ssd)',
      'capacity 100Gi, the claim requests 200Gi',
    ],
  );
  assert.deepEqual(
    volumeMisfits(
      claim,
      volume(
        { pool: 'tally-journal', tier: 'ssd' },
        { accessModes: ['ReadOnlyMany'], claimRef: { name: 'journal-tallyd-0', namespace: 'ledger' } },
      ),
    ),
    ['claimed by ledger/journal-tallyd-0', 'access modes ReadOnlyMany, the claim needs ReadWriteOnce'],
  );
});

test('counter-examples: a volume that fits, or is already reserved for this claim, has no misfit', () => {
  assert.deepEqual(
    volumeMisfits(
      claim,
      volume({ pool: 'tally-journal', tier: 'ssd', extra: 'x' }, { capacity: { storage: '250Gi' } }),
    ),
    [],
  );
  assert.deepEqual(
    volumeMisfits(
      claim,
      volume({ pool: 'tally-journal', tier: 'ssd' }, { claimRef: { name: 'journal-tallyd-2', namespace: 'ledger' } }),
    ),
    [],
  );
});
