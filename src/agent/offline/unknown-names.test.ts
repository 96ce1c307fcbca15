import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { withinOneEdit } from './edit-distance.ts';
import { NAME_FORMS, namesAKind, UNKNOWN_NAME_EXAMPLES, unknownName } from './unknown-names.ts';

const { known: KNOWN, namespaces: NAMESPACES } = UNKNOWN_NAME_EXAMPLES;

describe('the forms a sentence names things in', () => {
  for (const form of NAME_FORMS) {
    describe(form.id, () => {
      for (const example of form.examples) {
        test(`finds "${example.name}" in "${example.text}"`, () => {
          assert.deepEqual(unknownName(example.text, KNOWN, NAMESPACES), {
            name: example.name,
            ...(example.kind ? { kind: example.kind } : {}),
            ...(example.namespace ? { namespace: example.namespace } : {}),
          });
        });
      }
      for (const text of form.counterexamples) {
        test(`finds no unknown name in "${text}"`, () => assert.equal(unknownName(text, KNOWN, NAMESPACES), undefined));
      }
    });
  }
});

test('a kebab-case name that nothing in the cluster carries is reported, with the kind the sentence gives it', () => {
  assert.deepEqual(unknownName('billing-worker in finance keeps crashing', KNOWN), { name: 'billing-worker' });
  assert.deepEqual(unknownName('node worker-9 is NotReady', KNOWN), { name: 'worker-9', kind: 'Node' });
  assert.deepEqual(unknownName('pods in the shop-eu namespace are pending', KNOWN), {
    name: 'shop-eu',
    kind: 'Namespace',
  });
});

test('names the cluster has, their pods and their short forms, versions, tickets and everyday words are not reported', () => {
  assert.equal(unknownName('checkout-api in shop keeps restarting', KNOWN), undefined);
  assert.equal(unknownName('pod checkout-api-7d9f8c6b5-x2k4q is crash-looping', KNOWN), undefined);
  assert.equal(unknownName('node ip-10-0-1-23 looks out-of-memory', KNOWN), undefined);
  assert.equal(unknownName('broken since deployment v2.3 and ticket API-2207', KNOWN), undefined);
  assert.equal(unknownName('the job failed and the service is down', KNOWN), undefined);
  // A verb typed without its g is a state too; a name that merely ends in "in" is still a name.
  assert.equal(unknownName('new scheduler pod crashloopin in remit since the change', KNOWN), undefined);
  assert.equal(unknownName('job failin again', KNOWN), undefined);
  assert.deepEqual(unknownName('deployment keycloak-admin is down', KNOWN), {
    name: 'keycloak-admin',
    kind: 'Deployment',
  });
  // A site's hostname names no object; a known name mistyped by one letter is that name.
  assert.equal(unknownName('ingress is 503ing all of pay.northwind-goods.com!!', KNOWN), undefined);
  assert.equal(unknownName('chekout-api in shop keeps restarting', KNOWN), undefined);
  assert.deepEqual(unknownName('northwind-goods in shop keeps restarting', KNOWN), { name: 'northwind-goods' });
});

test('one edit apart: a letter added, dropped, changed or two swapped; not two', () => {
  assert.ok(withinOneEdit('settlment-api', 'settlement-api'));
  assert.ok(withinOneEdit('chekcout-api', 'checkout-api'));
  assert.ok(withinOneEdit('checkout-apj', 'checkout-api'));
  assert.ok(!withinOneEdit('chkout-api', 'checkout-api'));
  assert.ok(!withinOneEdit('checkout-api', 'checkout-api'));
});

test('words that name nothing at all are no unknown name either: they are left to the search', () => {
  assert.equal(unknownName('x', KNOWN), undefined);
  assert.equal(unknownName('everything is fine, just checking', KNOWN), undefined);
  assert.equal(unknownName('checkout is down', KNOWN), undefined);
  assert.equal(unknownName('payments keeps restarting in prod', KNOWN), undefined);
  assert.equal(unknownName('the nightly job did not run', KNOWN), undefined);
});

test('a plain word after a kind word is no unknown name when a name in the cluster has it as one of its words', () => {
  assert.equal(unknownName('deployment checkout keeps restarting', KNOWN), undefined);
  assert.equal(unknownName('job nightly did not run', KNOWN), undefined);
});

test('words that name a kind of object point somewhere; words that name none do not', () => {
  for (const text of [
    'a node went NotReady in prod',
    'the nightly job did not run',
    'pods keep restarting',
    'the payments namespace is slow',
    'svc frontend has no endpoints',
  ])
    assert.equal(namesAKind(text), true, text);
  for (const text of [
    'x',
    'everything is fine, just checking',
    'checkout is down',
    'no idea what happened',
    'prod is on fire',
  ])
    assert.equal(namesAKind(text), false, text);
});
