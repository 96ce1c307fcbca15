/**
 * What `kubewhy eval` cannot score it says, and a name it cannot find is an error:
 * - a folder without scenario.yaml, and a scenario without `expect` (a fresh capture), are
 *   skipped and listed with the reason, in the table and in `--json`;
 * - a scenario without `expect` still loads, validates and replays (diagnose, mock-cluster);
 * - `--only NAME` that matches nothing is exit code 2 and names the closest scenarios.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadScenario, validateScenarios } from '../mock-cluster/index.ts';
import { closestNames, editDistance } from '../src/eval/closest-names.ts';
import { NO_EXPECT, NO_SCENARIO_YAML, selectScenarios } from '../src/eval/select-scenarios.ts';
import { runKubewhy, type CliResult } from './helpers/run-kubewhy.ts';

const root = mkdtempSync(join(tmpdir(), 'kubewhy-eval-skipped-'));
const env = { ...process.env, ANTHROPIC_API_KEY: '', KUBEWHY_MODEL: 'offline', KUBEWHY_DATA_DIR: join(root, '.data') };

// scored: a public scenario as it is; captured: the same without expect; notes: no scenario.yaml.
cpSync('mock-cluster/scenarios/worker-bad-flag', join(root, 'scored'), { recursive: true });
cpSync('mock-cluster/scenarios/worker-bad-flag', join(root, 'captured'), { recursive: true });
const meta = readFileSync(join(root, 'captured', 'scenario.yaml'), 'utf8');
writeFileSync(
  join(root, 'captured', 'scenario.yaml'),
  meta.replace('name: worker-bad-flag', 'name: queue-capture').replace(/^expect:[\s\S]*$/m, ''),
);
mkdirSync(join(root, 'notes'));
writeFileSync(join(root, 'notes', 'README.md'), 'not a scenario\n');

const kubewhy = (args: string[]): Promise<CliResult> => runKubewhy(args, { env });

describe('a scenario without expect', () => {
  it('loads, and validate-scenarios accepts it, saying eval skips it', async () => {
    const scenario = await loadScenario(join(root, 'captured'));
    assert.equal(scenario.meta.expect, undefined);
    const reports = await validateScenarios(root);
    assert.deepEqual(
      reports.map((report) => [report.name, report.scored, report.problems]),
      [
        ['queue-capture', false, []],
        ['worker-bad-flag', true, []],
      ],
    );
    const cli = await kubewhy(['validate-scenarios', root]);
    assert.equal(cli.code, 0, cli.stdout);
    assert.match(cli.stdout, /ok {4}captured .*\(no expect: it replays, eval skips it\)/);
  });

  it('replays: kubewhy diagnose --scenario DIR', async () => {
    const result = await kubewhy(['diagnose', '--scenario', join(root, 'captured'), '--json']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal((JSON.parse(result.stdout) as { diagnosis: { category: string } }).diagnosis.category, 'app-crash');
  });

  it('replays: kubewhy mock-cluster --scenario DIR serves it', async () => {
    const child = spawn(process.execPath, ['bin/kubewhy.js', 'mock-cluster', '--scenario', join(root, 'captured')], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const firstLine = await new Promise<string>((resolve, reject) => {
        let text = '';
        child.stdout.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          if (text.includes('\n')) resolve(text);
        });
        child.once('exit', (code) => reject(new Error(`mock-cluster exited with ${code}`)));
      });
      assert.match(firstLine, /mock cluster serving scenario "queue-capture" at http/);
    } finally {
      child.kill('SIGTERM');
    }
  });
});

describe('kubewhy eval', () => {
  it('skips the folders it cannot score and says which and why, in the table and in --json', async () => {
    const table = await kubewhy(['eval', '--scenarios', root]);
    assert.equal(table.code, 0, table.stdout + table.stderr);
    assert.match(table.stdout, /1\/1 correct|2\/2 correct/);
    assert.match(table.stdout, new RegExp(`^SKIPPED captured: ${NO_EXPECT.replace(/[()]/g, '\\$&')}$`, 'm'));
    assert.match(table.stdout, new RegExp(`^SKIPPED notes: ${NO_SCENARIO_YAML}$`, 'm'));
    const json = await kubewhy(['eval', '--scenarios', root, '--json']);
    const report = JSON.parse(json.stdout) as {
      totals: { runs: number; skipped: number };
      rows: { scenario: string }[];
      skipped: { folder: string; reason: string }[];
    };
    assert.deepEqual(report.skipped, [
      { folder: 'captured', reason: NO_EXPECT },
      { folder: 'notes', reason: NO_SCENARIO_YAML },
    ]);
    assert.equal(report.totals.skipped, 2);
    assert.deepEqual([...new Set(report.rows.map((row) => row.scenario))], ['worker-bad-flag']);
  });

  it('--only NAME that matches nothing: exit code 2, naming what was asked and the closest names', async () => {
    const result = await kubewhy(['eval', '--only', 'worker-bad-flg', '--only', 'nightly-report-cronjob']);
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '');
    assert.equal(
      result.stderr,
      'kubewhy eval: --only worker-bad-flg: no scenario of that name in mock-cluster/scenarios; did you mean worker-bad-flag?\n',
    );
  });

  it('--only matches a folder or a scenario name; a skipped one is said, not an error', async () => {
    const byFolder = await selectScenarios(root, ['scored', 'captured']);
    assert.deepEqual(
      byFolder.scenarios.map((scenario) => scenario.name),
      ['worker-bad-flag'],
    );
    assert.deepEqual(
      byFolder.skipped.map((entry) => entry.folder),
      ['captured'],
    );
    assert.deepEqual(byFolder.unmatched, []);
    const byName = await selectScenarios(root, ['worker-bad-flag', 'queue-capture']);
    assert.deepEqual([byName.scenarios.length, byName.skipped.length, byName.unmatched.length], [1, 1, 0]);
    const missing = await selectScenarios(root, ['queue-captur']);
    assert.deepEqual(missing.unmatched, [{ name: 'queue-captur', closest: ['queue-capture'] }]);
  });

  it('a --scenarios folder that does not exist is an error, not 0/0', async () => {
    const result = await kubewhy(['eval', '--scenarios', join(root, 'nowhere')]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /nowhere: no such folder of scenarios/);
  });
});

describe('closestNames', () => {
  it('ranks by edit distance; a name holding the asked text is close; far ones are left out', () => {
    assert.equal(editDistance('kitten', 'sitting'), 3);
    assert.deepEqual(closestNames('worker-bad-flg', ['cart-redis-dns', 'worker-bad-flag', 'worker-node-notready']), [
      'worker-bad-flag',
    ]);
    assert.deepEqual(closestNames('redis', ['cart-redis-dns', 'worker-bad-flag', 'redis-pvc-lost']), [
      'cart-redis-dns',
      'redis-pvc-lost',
    ]);
    assert.deepEqual(closestNames('zzz', ['abc', 'abd']), ['abc'], 'the closest one always');
    assert.deepEqual(closestNames('x', []), []);
  });
});
