import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mentionScore } from './mentions.ts';

test('words match names by their stem, not their spelling', () => {
  assert.ok(mentionScore('pricing-api', 'prices endpoint returning 503') > 0);
  assert.ok(mentionScore('payment-gateway', 'payments are failing') > 0);
  assert.equal(mentionScore('checkout-api', 'the cart page is slow'), 0);
});
