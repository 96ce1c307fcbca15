import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mentionScore, pickMentioned, type Candidate } from './mentions.ts';
import { SHORTENED_NAMES, shortensName } from './edit-distance.ts';
import type { FailingState } from './report-words.ts';

test('words match names by their stem, not their spelling', () => {
  assert.ok(mentionScore('pricing-api', 'prices endpoint returning 503') > 0);
  assert.ok(mentionScore('payment-gateway', 'payments are failing') > 0);
  assert.equal(mentionScore('checkout-api', 'the cart page is slow'), 0);
});

const workload = (name: string, namespace: string, unhealthy: boolean): Candidate => ({
  focus: { kind: 'workload', workloadKind: 'Deployment', namespace, name },
  name,
  namespace,
  unhealthy,
});

test('a failing workload every word of whose name the report holds outranks a healthy one named in full', () => {
  const candidates = [workload('kafka', 'streaming', false), workload('zookeeper', 'streaming', true)];
  assert.equal(
    pickMentioned(candidates, 'zk warnings all over since the migration, kafka still up??', ['streaming'])?.name,
    'zookeeper',
  );
  // Counter-example: only some words of the failing name; the healthy one named in full is what was asked about.
  const partial = [workload('kafka', 'streaming', false), workload('kafka-connect-sink', 'streaming', true)];
  assert.equal(pickMentioned(partial, 'is kafka ok? the sink lag alert fired', ['streaming'])?.name, 'kafka');
});

test('a namespace word where nothing fails may be a word of what fails elsewhere', () => {
  const candidates = [workload('price-api', 'pricing', false), workload('pricing-engine', 'shop', true)];
  assert.equal(
    pickMentioned(candidates, 'pricing deploy stuck halfway, new pod keeps dying', ['pricing', 'shop'])?.name,
    'pricing-engine',
  );
  // Counter-example: something fails in the named namespace; no name is picked, so the namespace is the lead.
  const failingThere = [workload('price-api', 'pricing', true), workload('pricing-engine', 'shop', true)];
  assert.equal(
    pickMentioned(failingThere, 'pricing deploy stuck halfway, new pod keeps dying', ['pricing', 'shop']),
    undefined,
  );
});

const failing = (candidate: Candidate, ...states: FailingState[]): Candidate => ({
  ...candidate,
  unhealthy: true,
  states: new Set(states),
});

test('among failing namesakes, the one whose state shows the reported symptom is what the report means', () => {
  // "ledger" names the namespace of a Service without endpoints, and is a word of a crashing Deployment elsewhere.
  const service: Candidate = {
    focus: { kind: 'service', namespace: 'ledger', name: 'ledger-pg-rw' },
    name: 'ledger-pg-rw',
    namespace: 'ledger',
    unhealthy: true,
    states: new Set(['no-endpoints']),
  };
  const crashing = failing(workload('ledger-api', 'payments', true), 'crashing');
  assert.equal(
    pickMentioned([service, crashing], 'ledger pods crashlooping since the deploy', ['ledger', 'payments'])?.name,
    'ledger-api',
  );
  // Counter-example: the words report what the Service shows (gateway errors), so the crash elsewhere is not preferred.
  assert.equal(
    pickMentioned([service, crashing], 'ledger 503s since the deploy', ['ledger', 'payments'])?.name,
    'ledger-pg-rw',
  );
});

test('a failing Service that shows gateway errors outranks a failed Job in the same named namespace', () => {
  const service: Candidate = {
    focus: { kind: 'service', namespace: 'catalog', name: 'catalog-api' },
    name: 'catalog-api',
    namespace: 'catalog',
    unhealthy: true,
    states: new Set(['no-endpoints']),
  };
  const job = failing(
    {
      focus: { kind: 'workload', workloadKind: 'Job', namespace: 'catalog', name: 'catalog-api-migrate' },
      name: 'catalog-api-migrate',
      namespace: 'catalog',
      unhealthy: true,
    },
    'failed-run',
  );
  const text = 'shop site throwing 502s on every product page. catalog deploy went out around then too';
  assert.equal(pickMentioned([job, service], text, ['catalog', 'storefront'])?.name, 'catalog-api');
  // Counter-example: with no symptom in the words, neither is named beyond the namespace, so none is picked.
  assert.equal(
    pickMentioned([job, service], 'catalog deploy went out around then', ['catalog', 'storefront']),
    undefined,
  );
});

test('a name with each word cut short names the workload it shortens, and nothing else', () => {
  for (const [token, name] of SHORTENED_NAMES.match) {
    assert.ok(shortensName(token, name), `${token} shortens ${name}`);
    assert.ok(mentionScore(name, `${token} release hanging, new pods never come up`) >= 70, `${token} names ${name}`);
  }
  for (const [token, name] of SHORTENED_NAMES.noMatch)
    assert.ok(!shortensName(token, name), `${token} does not shorten ${name}`);
});
