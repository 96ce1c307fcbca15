import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);

interface EvalReport {
  totals: { runs: number; correct: number; wrong: number };
  byConfidence: { level: string; correct: number; runs: number }[];
  rows: {
    scenario: string;
    trigger: string;
    score: { correct: boolean; missingMentions: string[] };
    outcome: { diagnosis?: { category: string } };
  }[];
}

test('kubewhy eval: the offline engine diagnoses every public scenario correctly, from its alert and from its incident text, alone and inside every background cluster', async () => {
  const { stdout } = await run(process.execPath, ['bin/kubewhy.js', 'eval', '--background', 'all', '--json'], {
    env: { ...process.env, ANTHROPIC_API_KEY: '' },
    maxBuffer: 64 * 1024 * 1024,
    timeout: 300_000,
  }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  const report = JSON.parse(stdout) as EvalReport;
  const wrong = report.rows
    .filter((row) => !row.score.correct)
    .map(
      (row) =>
        `${row.scenario} (${row.trigger}): ${row.outcome.diagnosis?.category ?? 'no diagnosis'}, missing ${row.score.missingMentions.join(', ') || '-'}`,
    );
  assert.deepEqual(wrong, []);
  assert.ok(
    report.totals.runs >= 36 * 4,
    `every scenario ran from both triggers, alone and in three backgrounds (${report.totals.runs} runs)`,
  );
  // Accuracy per confidence level covers every run.
  assert.equal(
    report.byConfidence.reduce((sum, level) => sum + level.runs, 0),
    report.totals.runs,
  );
});

test('kubewhy eval exits non-zero and names the miss when a scenario is scored wrong', async () => {
  const failure = await run(process.execPath, ['bin/kubewhy.js', 'eval', '--scenarios', 'test/fixtures/eval-wrong'], {
    env: { ...process.env, ANTHROPIC_API_KEY: '' },
    timeout: 120_000,
  }).then(
    () => undefined,
    (error: { code?: number; stdout?: string }) => error,
  );
  assert.ok(failure, 'eval failed');
  assert.equal(failure.code, 1);
  assert.match(failure.stdout ?? '', /NO .*app-crash≠oom-killed/);
  assert.match(failure.stdout ?? '', /0\/2 correct/);
  assert.match(failure.stdout ?? '', /by confidence: high 0\/\d+ correct/);
});

test('kubewhy eval replays a loosely written capture and reports a scenario it cannot load without stopping', async () => {
  const failure = await run(
    process.execPath,
    ['bin/kubewhy.js', 'eval', '--scenarios', 'test/fixtures/eval-lenient', '--json'],
    { env: { ...process.env, ANTHROPIC_API_KEY: '' }, timeout: 120_000 },
  ).then(
    () => undefined,
    (error: { code?: number; stdout?: string }) => error,
  );
  assert.equal(failure?.code, 1, 'an unloadable scenario makes the evaluation fail');
  const report = JSON.parse(failure?.stdout ?? '{}') as EvalReport & { broken: { scenario: string; error: string }[] };
  assert.deepEqual(
    report.rows.map((row) => [row.scenario, row.score.correct]),
    [
      ['Postgres_PVC_captured', true],
      ['Postgres_PVC_captured', true],
    ],
  );
  assert.equal(report.broken.length, 1);
  assert.match(report.broken[0]!.error, /cluster\.yaml/);
});
