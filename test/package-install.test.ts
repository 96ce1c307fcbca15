/**
 * The package as a user gets it: `npm pack`, then `npm install -g` of the tarball into a
 * scratch prefix, then the installed `kubewhy` started from a folder outside the package.
 * It must run the built JavaScript (a package under node_modules cannot have its types
 * stripped), find its demo scenario and background clusters inside the package, and ship
 * neither sources nor tests. Dependencies come from npm's cache where `npm ci` left them.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse } from 'yaml';
import {
  environmentWithThisNode,
  listTarball,
  packPackage,
  repositoryRoot,
  runProgram,
} from './helpers/package-tarball.ts';

let scratch = '';
let tarball = '';
let entries: string[] = [];
let kubewhy = '';
let installedPackage = '';
let elsewhere = '';

const demoExpectation = parse(
  await readFile(
    join(repositoryRoot, 'mock-cluster', 'scenarios', 'checkout-secret-rotation', 'scenario.yaml'),
    'utf8',
  ),
) as { expect: { category: string; culprit: string } };

function runInstalled(args: string[], extra: NodeJS.ProcessEnv = {}) {
  return runProgram(kubewhy, args, {
    cwd: elsewhere,
    env: environmentWithThisNode({
      KUBEWHY_CLUSTER: 'mock',
      KUBEWHY_MODEL: 'offline',
      KUBEWHY_DATA_DIR: join(scratch, 'data'),
      ...extra,
    }),
    timeoutMs: 60_000,
  });
}

before(
  async () => {
    scratch = await mkdtemp(join(tmpdir(), 'kubewhy-package-'));
    tarball = await packPackage(scratch);
    entries = await listTarball(tarball);
    const prefix = join(scratch, 'prefix');
    const installed = await runProgram(
      'npm',
      ['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball],
      { cwd: scratch, env: environmentWithThisNode(), timeoutMs: 240_000 },
    );
    assert.equal(installed.code, 0, `npm install -g failed:\n${installed.stdout}${installed.stderr}`);
    kubewhy = join(prefix, 'bin', 'kubewhy');
    installedPackage = join(prefix, 'lib', 'node_modules', 'kubewhy');
    elsewhere = join(scratch, 'elsewhere');
    await mkdir(elsewhere);
  },
  { timeout: 480_000 },
);

after(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('the packed tarball', () => {
  test('holds the built entry, the demo scenario and the backgrounds', () => {
    for (const required of [
      'bin/kubewhy.js',
      'dist/src/main.js',
      'dist/src/runs/workers/agent-worker.js',
      'mock-cluster/scenarios/checkout-secret-rotation/scenario.yaml',
      'mock-cluster/backgrounds/eks/background.yaml',
      'package.json',
    ]) {
      assert.ok(entries.includes(required), `${required} is not in the tarball`);
    }
  });

  test('ships no sources, no tests and no scenario but the demo one', () => {
    assert.deepEqual(
      entries.filter((path) => /\.test\.|\.typecheck\./.test(path)),
      [],
    );
    assert.deepEqual(
      entries.filter((path) => path.startsWith('src/') || path.startsWith('test/') || /\.ts$/.test(path)),
      [],
    );
    assert.deepEqual(
      entries.filter(
        (path) =>
          path.startsWith('mock-cluster/scenarios/') &&
          !path.startsWith('mock-cluster/scenarios/checkout-secret-rotation/'),
      ),
      [],
    );
  });
});

describe('the installed CLI, started outside the package', () => {
  test('prints the diagnose flags', async () => {
    const result = await runInstalled(['diagnose', '--help']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^usage: kubewhy diagnose/);
  });

  test('diagnoses the demo incident it ships, found from the package and not from the working folder', async () => {
    const result = await runInstalled(['diagnose', '--json']);
    assert.equal(result.code, 0, result.stderr);
    const run = JSON.parse(result.stdout) as {
      diagnosis?: { category: string; culprit: { kind: string; namespace: string; name: string } };
    };
    assert.equal(run.diagnosis?.category, demoExpectation.expect.category);
    const culprit = run.diagnosis?.culprit;
    assert.equal(culprit && `${culprit.kind}/${culprit.namespace}/${culprit.name}`, demoExpectation.expect.culprit);
  });

  test('diagnoses the installed demo scenario inside a background cluster it ships', async () => {
    const result = await runInstalled([
      'diagnose',
      '--scenario',
      join(installedPackage, 'mock-cluster', 'scenarios', 'checkout-secret-rotation'),
      '--background',
      'eks',
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(
      result.stdout,
      new RegExp(`Diagnosis: ${demoExpectation.expect.category} — ${demoExpectation.expect.culprit}`),
    );
  });
});
