import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);
const DEMO = 'mock-cluster/scenarios/checkout-secret-rotation';

async function kubewhy(args: string[], dataDir: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['bin/kubewhy.js', ...args], {
      env: { ...process.env, KUBEWHY_DATA_DIR: dataDir, ANTHROPIC_API_KEY: '' },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failure.code ?? 1, stdout: failure.stdout ?? '', stderr: failure.stderr ?? '' };
  }
}

test('kubewhy diagnose prints the rung, the demo diagnosis, the proposed rollback and the trail', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kubewhy-cli-'));
  const { code, stdout } = await kubewhy(
    ['diagnose', '--scenario', DEMO, 'checkout-api in staging keeps restarting'],
    dataDir,
  );
  assert.equal(code, 0);
  assert.match(stdout, /^Rung: OBSERVE/m);
  assert.match(stdout, /Diagnosis: bad-credentials — Deployment\/staging\/checkout-api/);
  assert.match(stdout, /password authentication failed/);
  assert.match(stdout, /revision 4/);
  assert.match(stdout, /\[proposed\] rollout_undo \{"namespace":"staging","name":"checkout-api"\} \(write/);
  assert.match(stdout, /describe_pod .*\[read\] ok/);
  assert.match(stdout, /^Audit \(\d+ events, head [0-9a-f]{16}…\): node bin\/kubewhy.js audit verify --run /m);
});

test('kubewhy diagnose --json prints the whole run', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kubewhy-cli-'));
  const { code, stdout } = await kubewhy(['diagnose', '--scenario', DEMO, '--json'], dataDir);
  assert.equal(code, 0);
  const runResult = JSON.parse(stdout) as {
    status: string;
    diagnosis: { category: string; actions: { tool: string }[] };
    toolCalls: unknown[];
  };
  assert.equal(runResult.status, 'completed');
  assert.equal(runResult.diagnosis.category, 'bad-credentials');
  assert.equal(runResult.diagnosis.actions[0]?.tool, 'rollout_undo');
  assert.ok(runResult.toolCalls.length >= 2);
});

test('kubewhy audit verify passes after runs and reports a changed, a deleted and an inserted event', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kubewhy-audit-'));
  await kubewhy(['diagnose', '--scenario', DEMO], dataDir);
  await kubewhy(['diagnose', '--scenario', 'mock-cluster/scenarios/orders-worker-oom'], dataDir);
  const clean = await kubewhy(['audit', 'verify'], dataDir);
  assert.equal(clean.code, 0, clean.stdout + clean.stderr);
  assert.match(clean.stdout, /audit OK: 2 run\(s\)/);

  const database = new DatabaseSync(join(dataDir, 'kubewhy.db'));
  const [first, second] = (
    database.prepare('SELECT DISTINCT run_id FROM audit_events ORDER BY run_id').all() as { run_id: string }[]
  ).map((row) => row.run_id);
  database
    .prepare('UPDATE audit_events SET payload = \'{"status":"completed"}\' WHERE run_id = ? AND seq = 3')
    .run(first!);
  database.prepare('DELETE FROM audit_events WHERE run_id = ? AND seq = 2').run(second!);
  database.close();
  const tampered = await kubewhy(['audit', 'verify'], dataDir);
  assert.equal(tampered.code, 1);
  assert.match(tampered.stdout, new RegExp(`FAIL run ${first} seq 3: hash does not match`));
  assert.match(tampered.stdout, new RegExp(`FAIL run ${second} seq 3: .*missing`));

  const inserted = mkdtempSync(join(tmpdir(), 'kubewhy-audit-'));
  await kubewhy(['diagnose', '--scenario', DEMO], inserted);
  const again = new DatabaseSync(join(inserted, 'kubewhy.db'));
  const row = again.prepare('SELECT run_id, MAX(seq) AS seq, hash FROM audit_events').get() as {
    run_id: string;
    seq: number;
    hash: string;
  };
  again
    .prepare(
      'INSERT INTO audit_events (run_id, seq, time, type, payload, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)',
    )
    .run(
      row.run_id,
      row.seq + 1,
      new Date().toISOString(),
      'approval',
      '{"decision":"approved"}',
      row.hash,
      'a'.repeat(64),
    );
  again.close();
  const afterInsert = await kubewhy(['audit', 'verify', '--run', row.run_id], inserted);
  assert.equal(afterInsert.code, 1);
  assert.match(afterInsert.stdout, /FAIL/);
});

test('the secret canaries of a scenario never reach the audit store', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kubewhy-canary-'));
  const { code } = await kubewhy(['diagnose', '--scenario', 'test/fixtures/secret-canary'], dataDir);
  assert.ok(code === 0 || code === 1);
  const stored = readdirSync(dataDir)
    .map((file) => readFileSync(join(dataDir, file)).toString('latin1'))
    .join('\n');
  assert.ok(stored.length > 0);
  // Every canary value in the fixture looks like CanaryEnvValue7 or AKIACANARYKEY...; the scenario name itself is not one.
  assert.doesNotMatch(stored, /Canary[A-Za-z]+\d+|AKIACANARY/);
});

test('a bad setting, a missing scenario or an unknown flag gets a one-line message and exit code 2, not a stack trace', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kubewhy-cli-'));
  const unknownFlag = await kubewhy(['diagnose', '--bogus'], dataDir);
  assert.equal(unknownFlag.code, 2);
  assert.match(unknownFlag.stderr, /kubewhy diagnose: .*bogus.*\nRun 'kubewhy diagnose --help'/);
  const missing = await kubewhy(['eval', '--scenarios', join(dataDir, 'nowhere'), '--only', 'x'], dataDir);
  assert.notEqual(missing.code, 0);
  assert.doesNotMatch(missing.stderr, /\n\s+at /);
  const scenario = await kubewhy(['diagnose', '--scenario', join(dataDir, 'nowhere')], dataDir);
  assert.equal(scenario.code, 2);
  assert.match(scenario.stderr, /--scenario: .*nowhere: no such folder/);
  assert.doesNotMatch(scenario.stderr, /\n\s+at /);
});
