/**
 * `--background`: the evaluation, the mock cluster and a single diagnosis place a scenario
 * inside a healthy background cluster; an unknown background is a one-line mistake.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
const env = { ...process.env, ANTHROPIC_API_KEY: '' };

interface Finished {
  code: number;
  stdout: string;
  stderr: string;
}

async function kubewhy(args: string[]): Promise<Finished> {
  return run(process.execPath, ['bin/kubewhy.js', ...args], {
    env,
    maxBuffer: 16 * 1024 * 1024,
    timeout: 180_000,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: error.code ?? -1,
      stdout: error.stdout ?? '',
      stderr: error.stderr ?? '',
    }),
  );
}

test('kubewhy eval --background eks runs the chosen scenarios inside the background and names it in every row', async () => {
  const result = await kubewhy([
    'eval',
    '--background',
    'eks',
    '--only',
    'worker-bad-flag',
    '--only',
    'checkout-secret-rotation',
  ]);
  assert.ok(
    result.code === 0 || result.code === 1,
    `exits with a score, not a crash (code ${result.code}): ${result.stderr}`,
  );
  const lines = result.stdout.split('\n');
  assert.match(lines[0] ?? '', /^scenario\s+background\s+trigger\s+ok/);
  const rows = lines.filter((line) => /^(worker-bad-flag|checkout-secret-rotation)\s/.test(line));
  assert.equal(rows.length, 4, 'two scenarios, each from its alert and its incident text');
  assert.ok(
    rows.every((row) => /^\S+\s+eks\s+(alert|incident)\s/.test(row)),
    rows.join('\n'),
  );
  assert.match(result.stdout, /in background eks: \d+\/4 correct/);
  assert.doesNotMatch(result.stdout, /BROKEN/);
});

test('kubewhy eval --background all runs a scenario alone and inside every background', async () => {
  const result = await kubewhy(['eval', '--background', 'all', '--only', 'worker-bad-flag', '--json']);
  const report = JSON.parse(result.stdout) as {
    rows: { background?: string; trigger: string }[];
    byBackground: Record<string, { runs: number }>;
  };
  assert.deepEqual(Object.keys(report.byBackground), ['alone', 'aks', 'eks', 'kubeadm']);
  assert.deepEqual(
    report.rows.map((row) => `${row.background ?? '-'} ${row.trigger}`),
    [
      '- alert',
      '- incident',
      'aks alert',
      'aks incident',
      'eks alert',
      'eks incident',
      'kubeadm alert',
      'kubeadm incident',
    ],
  );
});

test('an unknown background answers one line and exit code 2, in eval, diagnose and mock-cluster', async () => {
  for (const args of [
    ['eval', '--background', 'gke', '--only', 'worker-bad-flag'],
    ['diagnose', '--scenario', 'mock-cluster/scenarios/worker-bad-flag', '--background', 'gke'],
    ['mock-cluster', '--scenario', 'mock-cluster/scenarios/worker-bad-flag', '--background', 'gke'],
  ]) {
    const result = await kubewhy(args);
    assert.equal(result.code, 2, args.join(' '));
    assert.equal(result.stdout, '');
    assert.match(
      result.stderr,
      /^(kubewhy \w+|mock-cluster): unknown background "gke" \(known: aks, eks, kubeadm\)\n$/,
    );
  }
});
