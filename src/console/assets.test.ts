import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Script } from 'node:vm';
import { CONSOLE_ASSETS } from './assets.ts';

test('the console script is valid JavaScript and fetches only its own page', () => {
  const script = CONSOLE_ASSETS.get('console.js');
  assert.ok(script);
  assert.doesNotThrow(() => new Script(script.body));
  assert.match(script.body, /window\.location\.href/);
  assert.doesNotMatch(script.body, /https?:\/\//, 'no other origin');
});

test('the stylesheet shows focus and loads nothing from elsewhere', () => {
  const css = CONSOLE_ASSETS.get('console.css');
  assert.ok(css);
  assert.match(css.body, /:focus-visible/);
  assert.doesNotMatch(css.body, /url\(|@import/);
  assert.match(css.etag, /^"[0-9a-f]{20}"$/);
});
