import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runKubewhy, type CliResult } from './helpers/run-kubewhy.ts';

async function kubewhy(args: string[], environment: Record<string, string> = {}): Promise<CliResult> {
  const home = mkdtempSync(join(tmpdir(), 'kubewhy-errors-'));
  return runKubewhy(args, {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: home,
      KUBEWHY_DATA_DIR: join(home, 'data'),
      KUBEWHY_MODEL: 'offline',
      ...environment,
    },
    timeoutMs: 60_000,
  });
}

const noStackTrace = (text: string): void => assert.doesNotMatch(text, /\n\s+at /, text);

test('a mistyped command gets "did you mean" and exit 2', async () => {
  const result = await kubewhy(['diagnoze']);
  assert.equal(result.code, 2);
  assert.match(result.stderr, /unknown command 'diagnoze'\. Did you mean 'diagnose'\?/);
});

test('audit --help prints its usage and exits 0; an unknown subcommand exits 2 and says so', async () => {
  const help = await kubewhy(['audit', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /usage: kubewhy audit verify/);
  const unknown = await kubewhy(['audit', 'check']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown subcommand 'check'/);
});

test('audit show or verify of a run that is not there says so and exits 1', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kubewhy-audit-'));
  const made = await kubewhy(['diagnose', '--quiet', '--scenario', 'mock-cluster/scenarios/checkout-secret-rotation'], {
    KUBEWHY_DATA_DIR: dataDir,
  });
  assert.equal(made.code, 0, made.stderr);
  for (const subcommand of ['show', 'verify']) {
    const result = await kubewhy(['audit', subcommand, '--run', 'nope'], { KUBEWHY_DATA_DIR: dataDir });
    assert.equal(result.code, 1, subcommand);
    assert.equal(result.stdout, '');
    assert.match(
      result.stderr,
      new RegExp(`kubewhy audit ${subcommand}: no run nope in ${join(dataDir, 'kubewhy.db')}`),
    );
  }
});

test('a missing or unreadable --alert file is one line naming it', async () => {
  const missing = await kubewhy([
    'diagnose',
    '--scenario',
    'mock-cluster/scenarios/checkout-secret-rotation',
    '--alert',
    '/nonexistent/alert.json',
  ]);
  assert.equal(missing.code, 2);
  assert.equal(missing.stderr.trim(), 'kubewhy diagnose: --alert /nonexistent/alert.json: no such file');
  const folder = await kubewhy([
    'diagnose',
    '--scenario',
    'mock-cluster/scenarios/checkout-secret-rotation',
    '--alert',
    'mock-cluster',
  ]);
  assert.equal(folder.code, 2);
  assert.match(folder.stderr, /--alert mock-cluster: is a folder, not a file/);
  noStackTrace(folder.stderr);
});

test('a bad setting names the variable, the value and what it must be', async () => {
  const result = await kubewhy(['serve'], { KUBEWHY_PORT: 'abc', KUBEWHY_CLUSTER: 'mock' });
  assert.equal(result.code, 2);
  assert.match(result.stderr, /KUBEWHY_PORT="abc": must be a whole number from 0 to 65535/);
  noStackTrace(result.stderr);
});

test('serve with no cluster anywhere says where it looked and how to run the demo', async () => {
  const result = await kubewhy(['serve'], { KUBEWHY_PORT: '0' });
  assert.equal(result.code, 2);
  assert.match(result.stderr, /no cluster to read/);
  assert.match(result.stderr, /kubewhy serve --demo/);
});

test('a scenario folder that is not there is named with where it came from', async () => {
  const flag = await kubewhy(['diagnose', '--scenario', '/nonexistent/scenario', 'x']);
  assert.equal(flag.code, 2);
  assert.equal(flag.stderr.trim(), 'kubewhy diagnose: --scenario: /nonexistent/scenario: no such folder');
  const setting = await kubewhy(['serve'], {
    KUBEWHY_CLUSTER: 'mock',
    KUBEWHY_MOCK_SCENARIO: '/nonexistent/scenario',
    KUBEWHY_PORT: '0',
    KUBEWHY_LOG_LEVEL: 'error',
  });
  assert.equal(setting.code, 2);
  assert.match(setting.stderr, /kubewhy serve: KUBEWHY_MOCK_SCENARIO: \/nonexistent\/scenario: no such folder/);
});

test('a model endpoint that cannot be reached is said at once, with the way to diagnose offline', async () => {
  const result = await kubewhy(
    ['diagnose', '--scenario', 'mock-cluster/scenarios/checkout-secret-rotation', 'checkout-api keeps restarting'],
    {
      KUBEWHY_MODEL: 'anthropic',
      ANTHROPIC_API_KEY: 'sk-ant-test-not-a-real-key-000000',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:1',
    },
  );
  assert.equal(result.code, 1);
  assert.match(result.stderr, /asking claude-\S+ \(call 1\)…/);
  assert.match(result.stderr, /the model at http:\/\/127\.0\.0\.1:1 did not answer\. .*KUBEWHY_MODEL=offline/);
  assert.doesNotMatch(result.stderr + result.stdout, /sk-ant-test/);
});
