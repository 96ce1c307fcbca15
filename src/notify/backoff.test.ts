import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_RETRY_AFTER_MS, retryDelayMs } from './backoff.ts';

const settings = { backoffMs: 5000, backoffMaxMs: 300_000 };
const middle = (): number => 0.5;

test('the wait doubles per attempt up to the maximum', () => {
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7, 8, 12].map((attempts) => retryDelayMs({ attempts, settings, random: middle })),
    [5000, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000],
  );
});

test('jitter keeps the wait within 20% and never past the maximum', () => {
  assert.equal(retryDelayMs({ attempts: 1, settings, random: () => 0 }), 4000);
  assert.equal(retryDelayMs({ attempts: 1, settings, random: () => 0.999_999 }), 6000);
  assert.equal(retryDelayMs({ attempts: 20, settings, random: () => 0.999_999 }), 300_000);
});

test("the receiver's Retry-After is taken as given, bounded by an hour", () => {
  assert.equal(retryDelayMs({ attempts: 1, retryAfterMs: 30_000, settings }), 30_000);
  assert.equal(retryDelayMs({ attempts: 9, retryAfterMs: 0, settings }), 0);
  assert.equal(retryDelayMs({ attempts: 1, retryAfterMs: 86_400_000, settings }), MAX_RETRY_AFTER_MS);
});

test('ten minutes of a receiver down take a handful of attempts, the last wait at most the maximum', () => {
  let elapsed = 0;
  let attempts = 0;
  while (elapsed < 600_000) {
    attempts++;
    elapsed += retryDelayMs({ attempts, settings, random: middle });
  }
  assert.ok(attempts <= 8, `${attempts} attempts`);
});
