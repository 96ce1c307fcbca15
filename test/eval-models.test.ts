/**
 * `kubewhy eval --model … --prices …`: several models scored on the same scenarios, each
 * with its tokens and dollars per diagnosis, and a comparison, so a team can pick a model
 * on its own captured incidents.
 */
import assert from 'node:assert/strict';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { modelOverrides } from '../src/cli/eval.ts';
import { PRICE_TABLE, priceOf } from '../src/eval/prices.ts';
import { startFakeMessagesApi } from './helpers/fake-messages-api.ts';
import { runKubewhy } from './helpers/run-kubewhy.ts';

const diagnosis = {
  category: 'bad-credentials',
  culprit: { kind: 'Deployment', namespace: 'staging', name: 'checkout-api' },
  summary: 'checkout-api reads a rotated-out password',
  evidence: ['password authentication failed for user "checkout"'],
  confidence: 'high',
};

test('two models on the same scenarios: tokens and dollars per diagnosis, and a comparison', async (t) => {
  const api = await startFakeMessagesApi((_request, index) => ({
    content: [{ type: 'tool_use', id: `call-${index}`, name: 'submit_diagnosis', input: diagnosis }],
    usage: { input_tokens: 1000, output_tokens: 200, cache_read_input_tokens: 500, cache_creation_input_tokens: 100 },
  }));
  const directory = await mkdtemp(join(tmpdir(), 'kubewhy-eval-models-'));
  t.after(() => Promise.all([api.close(), rm(directory, { recursive: true, force: true })]));
  const prices = join(directory, 'prices.yaml');
  await writeFile(prices, 'gateway-*: { input: 1, output: 2 }\n');
  // One scenario in a folder of its own: eval reads every scenario of the folder it is given.
  const scenarios = join(directory, 'scenarios');
  await cp(
    new URL('../mock-cluster/scenarios/checkout-secret-rotation', import.meta.url),
    join(scenarios, 'checkout-secret-rotation'),
    { recursive: true },
  );
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: directory,
    ANTHROPIC_API_KEY: 'sk-ant-test-not-real',
    ANTHROPIC_BASE_URL: api.url,
    KUBEWHY_MODEL_MAX_RETRIES: '0',
  };
  const args = [
    'eval',
    '--scenarios',
    scenarios,
    '--model',
    'offline',
    '--model',
    'anthropic:claude-sonnet-5-5',
    '--model',
    'anthropic:gateway-sonnet',
    '--prices',
    prices,
    '--json',
  ];
  const result = await runKubewhy(args, { env });
  assert.equal(result.stderr, '');
  const report = JSON.parse(result.stdout) as {
    models: {
      model: string;
      totals: { runs: number };
      cost: { tokensPerRun: Record<string, number>; dollarsPerRun?: number; price: Record<string, string> };
    }[];
    comparison: { model: string; dollarsPerRun?: number }[];
  };
  assert.deepEqual(
    report.models.map((model) => model.model),
    ['offline', 'claude-sonnet-5-5', 'gateway-sonnet'],
  );
  const [offline, listed, gateway] = report.models;
  assert.deepEqual(offline!.cost.tokensPerRun, { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });
  assert.equal(offline!.cost.dollarsPerRun, 0);
  assert.deepEqual(listed!.cost.tokensPerRun, { input: 1000, output: 200, cacheRead: 500, cacheWrite: 100 });
  // Sonnet's list price: $3 in, $15 out, $0.30 cache read, $3.75 cache write per million tokens.
  assert.ok(Math.abs(listed!.cost.dollarsPerRun! - (1000 * 3 + 200 * 15 + 500 * 0.3 + 100 * 3.75) / 1e6) < 1e-12);
  assert.equal(listed!.cost.price.id, 'claude-sonnet');
  // The prices file wins over the table for the gateway's name.
  assert.equal(gateway!.cost.price.id, 'gateway-*');
  assert.ok(Math.abs(gateway!.cost.dollarsPerRun! - (1000 * 1 + 200 * 2) / 1e6) < 1e-12);
  assert.equal(report.comparison.length, 3);

  const table = await runKubewhy(
    args.filter((arg) => arg !== '--json'),
    { env },
  );
  assert.match(table.stdout, /^comparison:$/m);
  assert.match(table.stdout, /^claude-sonnet-5-5\s+0\/2\s+1800\s+\$0\.00653\s+-/m);
});

test('a model without a price says so, and a bad spec or prices file stops with a message', async (t) => {
  const directory = await mkdtemp(join(tmpdir(), 'kubewhy-eval-models-'));
  t.after(() => rm(directory, { recursive: true, force: true }));
  assert.equal(priceOf('llama3.1:8b'), undefined);
  const env = { PATH: process.env.PATH ?? '', HOME: directory };
  const spec = await runKubewhy(['eval', '--scenarios', directory, '--model', 'gemini:pro'], { env });
  assert.equal(spec.code, 2);
  assert.match(
    spec.stderr,
    /--model gemini:pro: expected offline, anthropic\[:NAME\], bedrock:NAME, vertex:NAME or openai:NAME/,
  );
  const bad = join(directory, 'prices.yaml');
  await writeFile(bad, 'gpt-x: { input: cheap }\n');
  const prices = await runKubewhy(['eval', '--scenarios', directory, '--prices', bad], { env });
  assert.equal(prices.code, 2);
  assert.match(prices.stderr, /prices\.yaml: gpt-x\.input: .*dollars per million tokens/);
  const missing = await runKubewhy(['eval', '--scenarios', directory, '--model', 'openai:llama3.1:8b'], { env });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /openai needs OPENAI_API_KEY .* or OPENAI_BASE_URL/);
});

test('a model name keeps its own colons', () => {
  assert.deepEqual(modelOverrides('openai:llama3.1:8b'), {
    KUBEWHY_MODEL: 'openai',
    KUBEWHY_MODEL_NAME: 'llama3.1:8b',
  });
  assert.deepEqual(modelOverrides('bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0'), {
    KUBEWHY_MODEL: 'bedrock',
    KUBEWHY_MODEL_NAME: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
  });
  assert.deepEqual(modelOverrides('offline'), { KUBEWHY_MODEL: 'offline' });
});

test('every row of the price table matches its examples and none of its counter-examples, and the first match is the row itself', () => {
  for (const row of PRICE_TABLE) {
    for (const name of row.examples.match) assert.equal(priceOf(name)?.id, row.id, `${name} → ${row.id}`);
    for (const name of row.examples.noMatch) assert.ok(!row.pattern.test(name), `${row.id} must not match ${name}`);
  }
});
