import assert from 'node:assert/strict';
import { test } from 'node:test';
import { relevantChanges, type RevisionChange } from './remediation.ts';

const change = (changes: RevisionChange['changes']): RevisionChange => ({
  history: {
    kind: 'Deployment',
    namespace: 'maps',
    name: 'geocoder-api',
    desired: 3,
    currentRevision: 6,
    revisions: [],
    changes: [],
  },
  fromRevision: 5,
  toRevision: 6,
  changes,
});

test('a change to the sidecar an app dials through explains an unreachable dependency; elsewhere it does not', () => {
  const sidecarArgs = {
    container: 'cloud-sql-proxy',
    field: 'args',
    from: '["-ip_address_types=PRIVATE"]',
    to: '["--port=5432"]',
  };
  const appImage = { container: 'api', field: 'image', from: 'api:1.42.2', to: 'api:1.42.3' };
  const rollout = change([sidecarArgs, appImage]);
  assert.deepEqual(relevantChanges('dependency-unreachable', rollout, new Set(['cloud-sql-proxy'])), [sidecarArgs]);
  // Counter-examples: the app dials no sidecar, or the category is not about reaching something.
  assert.deepEqual(relevantChanges('dependency-unreachable', rollout), []);
  assert.deepEqual(relevantChanges('unschedulable-placement', rollout, new Set(['cloud-sql-proxy'])), []);
});
