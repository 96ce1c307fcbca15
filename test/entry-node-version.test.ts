/**
 * bin/kubewhy.js under a Node older than 22.12: one line that names the version needed, the
 * version found and what to do, and exit code 1, instead of a crash on a flag or an API that
 * Node does not have yet. Runs when this machine has such a Node on PATH (besides the one
 * running the tests); skips with the reason otherwise.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, constants, copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, test } from 'node:test';
import { repositoryRoot } from './helpers/package-tarball.ts';

function nodeVersion(binary: string): string | undefined {
  try {
    return execFileSync(binary, ['--version'], { encoding: 'utf8', timeout: 10_000 }).trim();
  } catch {
    return undefined;
  }
}

function isTooOld(version: string): boolean {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  return major < 22 || (major === 22 && minor < 12);
}

/** The first Node on PATH (or in the usual places) older than 22.12, with its version. */
function findOldNode(): { binary: string; version: string } | undefined {
  const candidates = [
    ...(process.env.PATH ?? '')
      .split(delimiter)
      .filter(Boolean)
      .map((directory) => join(directory, 'node')),
    '/usr/local/bin/node',
    '/usr/bin/node',
  ];
  for (const binary of new Set(candidates)) {
    try {
      accessSync(binary, constants.X_OK);
    } catch {
      continue;
    }
    const version = nodeVersion(binary);
    if (version && isTooOld(version)) return { binary, version };
  }
  return undefined;
}

const oldNode = findOldNode();

function runEntry(entry: string, binary: string) {
  const result = spawnSync(binary, [entry, 'diagnose', '--help'], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(result.status, 1, `exit code ${result.status}; stderr: ${result.stderr}`);
  assert.equal(result.stdout, '');
  const lines = result.stderr.split('\n').filter(Boolean);
  assert.equal(lines.length, 1, `expected one line, got:\n${result.stderr}`);
  return lines[0] ?? '';
}

describe(
  'bin/kubewhy.js under a Node older than 22.12',
  { skip: oldNode ? false : 'no Node older than 22.12 on this machine to start bin/kubewhy.js with' },
  () => {
    test('in a checkout: one line naming the Node needed, the Node found and scripts/use-node24.sh, and exit code 1', () => {
      assert.ok(oldNode);
      const line = runEntry(join(repositoryRoot, 'bin', 'kubewhy.js'), oldNode.binary);
      assert.match(line, /kubewhy needs Node >= 22\.12/);
      assert.ok(line.includes(oldNode.version), `the line does not name the Node found (${oldNode.version}): ${line}`);
      assert.match(line, /source scripts\/use-node24\.sh/);
      assert.match(line, /Node 24/);
    });

    test('in an installed package (no src/): the same line, telling to install Node 24 instead', (t) => {
      assert.ok(oldNode);
      const packageDirectory = mkdtempSync(join(tmpdir(), 'kubewhy-entry-'));
      t.after(() => rmSync(packageDirectory, { recursive: true, force: true }));
      mkdirSync(join(packageDirectory, 'bin'));
      copyFileSync(join(repositoryRoot, 'bin', 'kubewhy.js'), join(packageDirectory, 'bin', 'kubewhy.js'));
      copyFileSync(join(repositoryRoot, 'package.json'), join(packageDirectory, 'package.json'));
      const line = runEntry(join(packageDirectory, 'bin', 'kubewhy.js'), oldNode.binary);
      assert.match(line, /kubewhy needs Node >= 22\.12/);
      assert.ok(line.includes(oldNode.version));
      assert.match(line, /install Node 24/);
      assert.doesNotMatch(line, /use-node24/);
    });
  },
);
