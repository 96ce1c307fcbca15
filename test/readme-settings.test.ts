import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { SETTING_NAMES } from '../src/config.ts';

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

/** The README's "## Settings" section: its table's first column, every `NAME` in it. */
function settingsInReadme(): Set<string> {
  const section = README.split(/^## /m).find((part) => part.startsWith('Settings\n')) ?? '';
  const names = new Set<string>();
  for (const line of section.split('\n')) {
    const firstCell = /^\| ([^|]+) \|/.exec(line)?.[1] ?? '';
    for (const match of firstCell.matchAll(/`([A-Z][A-Z0-9_]+)`/g)) names.add(match[1] ?? '');
  }
  return names;
}

test('every setting kubewhy reads has a row in the README settings table', () => {
  const documented = settingsInReadme();
  const missing = SETTING_NAMES.filter((name) => !documented.has(name));
  assert.deepEqual(missing, [], `settings missing from the README's table: ${missing.join(', ')}`);
});

test('the README settings table lists no setting kubewhy does not read', () => {
  const unknown = [...settingsInReadme()].filter((name) => !SETTING_NAMES.includes(name));
  assert.deepEqual(unknown, [], `the README lists settings that do not exist: ${unknown.join(', ')}`);
});
