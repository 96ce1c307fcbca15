import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { listScenarioDirs } from './loader.ts';
import { validateScenarios } from './validate.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const PUBLIC_SCENARIOS = join(ROOT, 'mock-cluster', 'scenarios');
const FIXTURE = join(ROOT, 'mock-cluster', 'testdata', 'conformance');
const workspace = await mkdtemp(join(tmpdir(), 'kubewhy-validate-'));
after(() => rm(workspace, { recursive: true, force: true }));

function kubewhy(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'kubewhy.js'), ...args], { cwd: ROOT });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test(
  'every public scenario validates',
  { skip: (await listScenarioDirs(PUBLIC_SCENARIOS)).length === 0 ? 'no public scenarios yet' : false },
  async () => {
    const reports = await validateScenarios(PUBLIC_SCENARIOS);
    const failing = reports
      .filter((report) => report.problems.length > 0)
      .map((report) => `${report.name}: ${report.problems.join('; ')}`);
    assert.deepEqual(failing, []);
  },
);

test('kubewhy validate-scenarios prints one line per scenario and exits 0 when all are sound', async () => {
  const root = join(workspace, 'sound');
  await cp(FIXTURE, join(root, 'conformance'), { recursive: true });
  const result = await kubewhy(['validate-scenarios', root]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /^ok {4}conformance {2}\d+ objects, 4 logs$/m);
});

test('kubewhy validate-scenarios reports each problem and exits non-zero', async () => {
  const root = join(workspace, 'broken');
  await cp(FIXTURE, join(root, 'first'), { recursive: true });
  await cp(FIXTURE, join(root, 'second'), { recursive: true });
  const meta = join(root, 'second', 'scenario.yaml');
  await writeFile(
    meta,
    (await readFile(meta, 'utf8')).replace('culprit: Deployment/shop/checkout', 'culprit: Deployment/shop/missing'),
  );
  const cluster = join(root, 'first', 'cluster.yaml');
  await writeFile(
    cluster,
    `${await readFile(cluster, 'utf8')}---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: orphan\n  namespace: shop\n  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: gone}]\nspec: {containers: [{name: c, image: i}]}\n`,
  );
  const result = await kubewhy(['validate-scenarios', root]);
  assert.equal(result.code, 1);
  assert.match(result.stdout, /^FAIL {2}first .*Pod\/shop\/orphan: owner ReplicaSet\/gone is not in cluster\.yaml/m);
  assert.match(
    result.stdout,
    /^FAIL {2}second .*name "mock-conformance" is also used by first.*expect\.culprit Deployment\/shop\/missing is not in cluster\.yaml/m,
  );
});

test('kubewhy mock-cluster serves a scenario, writes its kubeconfig and stops on SIGTERM', async () => {
  const kubeconfig = join(workspace, 'cli', 'kubeconfig');
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'bin', 'kubewhy.js'),
      'mock-cluster',
      '--scenario',
      FIXTURE,
      '--kubeconfig',
      kubeconfig,
      '--generate-pods',
      'load=120',
      '--fault',
      '429:path=^/api/v1/nodes$',
    ],
    { cwd: ROOT },
  );
  let stdout = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /at (http:\/\/\S+)/.exec(stdout);
      if (match?.[1] && stdout.includes('kubeconfig:')) resolve(match[1]);
    });
    child.on('close', () => reject(new Error(`exited early: ${stdout}`)));
  });
  assert.match(stdout, new RegExp(`kubeconfig: ${kubeconfig}`));
  assert.match(await readFile(kubeconfig, 'utf8'), new RegExp(`server: ${url}[\\s\\S]*current-context: kubewhy-mock`));
  const pods = (await (await fetch(`${url}/api/v1/namespaces/load/pods`)).json()) as { items: unknown[] };
  assert.equal(pods.items.length, 120);
  assert.equal((await fetch(`${url}/api/v1/nodes`)).status, 429);
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  child.kill('SIGTERM');
  assert.equal(await exited, 0);
});

test('kubewhy mock-cluster refuses a malformed scenario with the file and field', async () => {
  const dir = join(workspace, 'malformed');
  await cp(FIXTURE, dir, { recursive: true });
  await writeFile(join(dir, 'cluster.yaml'), 'apiVersion: v1\nmetadata: {name: x}\n');
  const result = await kubewhy(['mock-cluster', '--scenario', dir]);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /cluster\.yaml, document 1, field kind: is required/);
});
