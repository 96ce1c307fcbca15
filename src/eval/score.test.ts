import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hasArguments, onScenarioClock } from './score.ts';

test('an action has the expected arguments when it carries each of them, equal, whatever else it names', () => {
  assert.equal(
    hasArguments(
      { namespace: 'analytics', name: 'insights-pg', kind: 'StatefulSet' },
      { namespace: 'analytics', name: 'insights-pg' },
    ),
    true,
  );
  assert.equal(hasArguments({ namespace: 'shop', name: 'web' }, { namespace: 'shop', name: 'web' }), true);
  // Counter-examples: an argument missing, or another value.
  assert.equal(hasArguments({ namespace: 'shop' }, { namespace: 'shop', name: 'web' }), false);
  assert.equal(hasArguments({ namespace: 'shop', name: 'api' }, { namespace: 'shop', name: 'web' }), false);
  assert.equal(
    hasArguments({ namespace: 'shop', name: 'web', replicas: 2 }, { namespace: 'shop', name: 'web', replicas: 3 }),
    false,
  );
});

test('times a diagnosis quotes on the served clock are matched as the scenario wrote them', () => {
  const shift = Date.parse('2026-12-07T15:57:10Z') - Date.parse('2026-06-03T08:30:05Z');
  const served =
    'the TLS certificate of api.example.com expired at 2026-12-07T13:39:49Z; log: 15:57:10 warn request failed';
  assert.equal(
    onScenarioClock(served, shift),
    'the TLS certificate of api.example.com expired at 2026-06-03T06:12:44Z; log: 08:30:05 warn request failed',
  );
  // Counter-examples: what is not a time stays as it is.
  assert.equal(
    onScenarioClock('port 8080, revision 12, 99:99:99, v1.2.3', shift),
    'port 8080, revision 12, 99:99:99, v1.2.3',
  );
});
