import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createFallback } from '../src/agent/models/create-model.ts';
import { ConfigError, DEFAULT_ANTHROPIC_MODEL, loadConfig } from '../src/config.ts';

const withKey = { ANTHROPIC_API_KEY: 'sk-ant-test-key-not-real' };

test('the default Claude model is a current one, not claude-sonnet-4-5 (end of life 2026-11-30)', () => {
  const config = loadConfig(withKey);
  assert.equal(config.model.provider, 'anthropic');
  assert.equal(config.model.provider === 'anthropic' && config.model.name, DEFAULT_ANTHROPIC_MODEL);
  assert.notEqual(DEFAULT_ANTHROPIC_MODEL, 'claude-sonnet-4-5');
  assert.match(DEFAULT_ANTHROPIC_MODEL, /^claude-sonnet-/);
});

test('model settings: the prompt cache, the fallback and when it takes over, with their defaults', () => {
  const defaults = loadConfig(withKey).model;
  assert.deepEqual(
    defaults.provider === 'anthropic' && [defaults.promptCache, defaults.fallback, defaults.fallbackAfterAttempts],
    ['5m', 'offline', 3],
  );
  const set = loadConfig({
    ...withKey,
    KUBEWHY_PROMPT_CACHE: '1h',
    KUBEWHY_MODEL_FALLBACK: 'none',
    KUBEWHY_MODEL_ATTEMPTS: '4',
  }).model;
  assert.deepEqual(set.provider === 'anthropic' && [set.promptCache, set.fallback, set.fallbackAfterAttempts], [
    '1h',
    'none',
    4,
  ]);
});

test('a bad model setting fails fast and names the setting', () => {
  for (const [name, value] of [
    ['KUBEWHY_PROMPT_CACHE', '2h'],
    ['KUBEWHY_MODEL_FALLBACK', 'claude'],
    ['KUBEWHY_MODEL_ATTEMPTS', '1'],
    ['KUBEWHY_MODEL_ATTEMPTS', 'three'],
  ] as const) {
    assert.throws(
      () => loadConfig({ ...withKey, [name]: value }),
      (error: unknown) => error instanceof ConfigError && error.message.includes(name),
      `${name}=${value}`,
    );
  }
});

test('the fallback is the offline engine unless turned off, and there is none for the offline engine itself', () => {
  const offlineFallback = createFallback(loadConfig({ ...withKey, KUBEWHY_MODEL_ATTEMPTS: '2' }).model);
  assert.equal(offlineFallback.fallbackModel?.name, 'offline');
  assert.equal(offlineFallback.fallbackAfterAttempts, 2);
  assert.deepEqual(createFallback(loadConfig({ ...withKey, KUBEWHY_MODEL_FALLBACK: 'none' }).model), {});
  assert.deepEqual(createFallback(loadConfig({}).model), {});
});
