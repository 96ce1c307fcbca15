import assert from 'node:assert/strict';
import { test } from 'node:test';
import { confidenceWithoutMatch, describeUnmatched, nearlyNamed } from './unmatched.ts';

const NAMES = [
  'checkout-api',
  'frontend',
  'rabbitmq',
  'staging',
  'ip-10-20-1-34.eu-west-1.compute.internal',
  'default-pool',
];

test('words that name nothing are told apart from words that name something loosely', () => {
  assert.equal(nearlyNamed('x', NAMES), false);
  assert.equal(nearlyNamed('everything is fine, just checking', NAMES), false);
  assert.equal(nearlyNamed('we scaled rabbit to 4 but the 4th broker never joined', NAMES), true);
  assert.equal(nearlyNamed('the frontends are slow', NAMES), true);
  // A word every node pool shares ("default", "pool") points nowhere in particular.
  assert.equal(nearlyNamed('the default pool is full', NAMES), false);
});

test('the only failing workload is reported with at most medium confidence, the worst of several with low', () => {
  assert.equal(confidenceWithoutMatch('high', 1), 'medium');
  assert.equal(confidenceWithoutMatch('medium', 1), 'medium');
  assert.equal(confidenceWithoutMatch('low', 1), 'low');
  assert.equal(confidenceWithoutMatch('high', 3), 'low');
});

test('the answer quotes the words that matched nothing, shortened when long', () => {
  assert.equal(
    describeUnmatched(' x '),
    'The words "x" name no workload, pod, Service, node or namespace in the cluster.',
  );
  assert.ok(describeUnmatched('a'.repeat(200)).includes(`${'a'.repeat(77)}..."`));
});
