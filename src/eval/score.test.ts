import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hasArguments } from './score.ts';

test('an action has the expected arguments when it carries each of them, equal, whatever else it names', () => {
  assert.equal(hasArguments({ namespace: 'analytics', name: 'insights-pg', kind: 'StatefulSet' }, { namespace: 'analytics', name: 'insights-pg' }), true);
  assert.equal(hasArguments({ namespace: 'shop', name: 'web' }, { namespace: 'shop', name: 'web' }), true);
  // Counter-examples: an argument missing, or another value.
  assert.equal(hasArguments({ namespace: 'shop' }, { namespace: 'shop', name: 'web' }), false);
  assert.equal(hasArguments({ namespace: 'shop', name: 'api' }, { namespace: 'shop', name: 'web' }), false);
  assert.equal(hasArguments({ namespace: 'shop', name: 'web', replicas: 2 }, { namespace: 'shop', name: 'web', replicas: 3 }), false);
});
