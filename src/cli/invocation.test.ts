import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { commandForm } from './invocation.ts';

test('an installed kubewhy (the name on PATH is this entry) is printed as kubewhy', () => {
  const root = mkdtempSync(join(tmpdir(), 'kubewhy-invocation-'));
  const entry = join(root, 'lib', 'kubewhy.js');
  mkdirSync(join(root, 'lib'));
  mkdirSync(join(root, 'bin'));
  writeFileSync(entry, '');
  chmodSync(entry, 0o755);
  symlinkSync(entry, join(root, 'bin', 'kubewhy'));
  assert.equal(commandForm({ entry, path: join(root, 'bin'), cwd: '/' }), 'kubewhy');
});

test('a checkout is printed as node and the entry, relative to where the person is', () => {
  const root = mkdtempSync(join(tmpdir(), 'kubewhy-invocation-'));
  const entry = join(root, 'bin', 'kubewhy.js');
  assert.equal(commandForm({ entry, path: '', cwd: root }), 'node bin/kubewhy.js');
  assert.equal(commandForm({ entry, path: '', cwd: '/usr' }), `node ${entry}`);
});
