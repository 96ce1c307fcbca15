import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { Writable } from 'node:stream';
import { createAnthropicModel } from '../src/agent/models/anthropic-model.ts';
import { DEFAULT_ANTHROPIC_MODEL } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { startFakeMessagesApi } from './helpers/fake-messages-api.ts';

const run = promisify(execFile);
const source = (path: string): string => fileURLToPath(new URL(`../src/${path}`, import.meta.url));

/** One turn with `model` in a process of its own, logging as the service does: JSON lines on stdout. */
const CHILD = `
const { createLogger } = await import(process.env.LOGGER_MODULE);
const { createAnthropicModel } = await import(process.env.MODEL_MODULE);
const logger = createLogger({ level: 'info' });
const model = createAnthropicModel({ apiKey: 'sk-ant-test-key-not-real', model: process.env.MODEL_NAME, baseUrl: process.env.API_URL, maxRetries: 0, timeoutMs: 5000, logger });
const request = { system: 'You diagnose.', trigger: { kind: 'incident', text: 'x' }, transcript: [{ role: 'user', text: 'why?' }], tools: [], toolChoice: { type: 'auto' }, signal: new AbortController().signal };
await model.createTurn(request);
await model.createTurn(request);
logger.info('done');
`;

test('the SDK warning about a deprecated model goes to the JSON log, once, and nothing else reaches stdout or stderr', async (t) => {
  const api = await startFakeMessagesApi(() => ({ content: [{ type: 'text', text: 'ok' }] }));
  t.after(() => api.close());
  const { stdout, stderr } = await run(process.execPath, ['--input-type=module', '-e', CHILD], {
    env: {
      ...process.env,
      LOGGER_MODULE: source('logger.ts'),
      MODEL_MODULE: source('agent/models/anthropic-model.ts'),
      MODEL_NAME: 'claude-sonnet-4-5',
      API_URL: api.url,
    },
  });
  assert.equal(stderr, '');
  const lines = stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { level: number; msg: string; component?: string; model?: string });
  const warnings = lines.filter((line) => /claude-sonnet-4-5' is deprecated/.test(line.msg));
  assert.equal(warnings.length, 1, 'logged once, not on every turn');
  assert.equal(warnings[0]!.level, 40, 'at warn level');
  assert.equal(warnings[0]!.component, 'anthropic-sdk');
  assert.deepEqual(lines.map((line) => line.msg).at(-1), 'done');
  assert.equal(api.requests.length, 2);
});

test('the default model draws no deprecation warning from the SDK', async (t) => {
  const api = await startFakeMessagesApi(() => ({ content: [{ type: 'text', text: 'ok' }] }));
  t.after(() => api.close());
  const { stdout, stderr } = await run(process.execPath, ['--input-type=module', '-e', CHILD], {
    env: {
      ...process.env,
      LOGGER_MODULE: source('logger.ts'),
      MODEL_MODULE: source('agent/models/anthropic-model.ts'),
      MODEL_NAME: DEFAULT_ANTHROPIC_MODEL,
      API_URL: api.url,
    },
  });
  assert.equal(stderr, '');
  assert.doesNotMatch(stdout, /deprecated/);
  assert.equal(api.requests[0]!.body.model, DEFAULT_ANTHROPIC_MODEL);
});

test('the SDK logs through the given logger, and console.warn is untouched outside a request', async (t) => {
  const api = await startFakeMessagesApi([
    { status: 529, errorType: 'overloaded_error', message: 'Overloaded' },
    { content: [{ type: 'text', text: 'ok' }] },
  ]);
  t.after(() => api.close());
  const lines: { level: number; msg: string; component?: string }[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').trim().split('\n'))
        lines.push(JSON.parse(line) as (typeof lines)[number]);
      done();
    },
  });
  const logger = createLogger({ level: 'debug', destination });
  const warn = console.warn;
  const model = createAnthropicModel({
    apiKey: 'sk-ant-test-key-not-real',
    model: 'claude-test',
    baseUrl: api.url,
    maxRetries: 1,
    timeoutMs: 5000,
    logger,
  });
  await model.createTurn({
    system: 's',
    trigger: { kind: 'incident', text: 'x' },
    transcript: [{ role: 'user', text: 'why?' }],
    tools: [],
    toolChoice: { type: 'auto' },
    signal: new AbortController().signal,
  });
  assert.equal(console.warn, warn);
  const sdk = lines.filter((line) => line.component === 'anthropic-sdk');
  assert.ok(
    sdk.some((line) => /retrying/i.test(line.msg) && /529/.test(line.msg)),
    `the SDK's retry line is in the log: ${JSON.stringify(sdk)}`,
  );
  assert.ok(!JSON.stringify(lines).includes('sk-ant-test-key-not-real'), 'the API key is never logged');
});
