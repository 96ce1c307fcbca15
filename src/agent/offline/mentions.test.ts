import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mentionScore, pickMentioned, type Candidate } from './mentions.ts';

test('words match names by their stem, not their spelling', () => {
  assert.ok(mentionScore('pricing-api', 'prices endpoint returning 503') > 0);
  assert.ok(mentionScore('payment-gateway', 'payments are failing') > 0);
  assert.equal(mentionScore('checkout-api', 'the cart page is slow'), 0);
});

const workload = (name: string, namespace: string, unhealthy: boolean): Candidate => ({ focus: { kind: 'workload', workloadKind: 'Deployment', namespace, name }, name, namespace, unhealthy });

test('a failing workload every word of whose name the report holds outranks a healthy one named in full', () => {
  const candidates = [workload('kafka', 'streaming', false), workload('zookeeper', 'streaming', true)];
  assert.equal(pickMentioned(candidates, 'zk warnings all over since the migration, kafka still up??', ['streaming'])?.name, 'zookeeper');
  // Counter-example: only some words of the failing name; the healthy one named in full is what was asked about.
  const partial = [workload('kafka', 'streaming', false), workload('kafka-connect-sink', 'streaming', true)];
  assert.equal(pickMentioned(partial, 'is kafka ok? the sink lag alert fired', ['streaming'])?.name, 'kafka');
});

test('a namespace word where nothing fails may be a word of what fails elsewhere', () => {
  const candidates = [workload('price-api', 'pricing', false), workload('pricing-engine', 'shop', true)];
  assert.equal(pickMentioned(candidates, 'pricing deploy stuck halfway, new pod keeps dying', ['pricing', 'shop'])?.name, 'pricing-engine');
  // Counter-example: something fails in the named namespace; no name is picked, so the namespace is the lead.
  const failingThere = [workload('price-api', 'pricing', true), workload('pricing-engine', 'shop', true)];
  assert.equal(pickMentioned(failingThere, 'pricing deploy stuck halfway, new pod keeps dying', ['pricing', 'shop']), undefined);
});
