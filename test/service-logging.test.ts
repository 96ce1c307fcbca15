import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test, type TestContext } from 'node:test';
import { buildServiceApp } from '../src/app/service.ts';
import type { AuthSettings } from '../src/server/auth.ts';
import { createLogger } from '../src/logger.ts';
import { openDatabase } from '../src/store/database.ts';
import { createToolRegistry } from '../src/tools/registry.ts';
import { createRecordingTools, unusedCluster } from './helpers/fake-tools.ts';
import { createInvestigatingModel, TEST_LIMITS, TOKENS } from './helpers/service-app.ts';

function captureLogs(): { lines: () => Record<string, unknown>[]; text: () => string; stream: Writable } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  return {
    stream,
    text: () => text,
    lines: () =>
      text
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

/** The app with test doubles behind it, logging into `logs`; closed when the test ends. */
async function buildLoggingApp(
  t: TestContext,
  options: { logs: ReturnType<typeof captureLogs>; level: 'info' | 'trace'; auth: AuthSettings },
) {
  const database = openDatabase(':memory:');
  const app = await buildServiceApp({
    database,
    agent: {
      model: createInvestigatingModel(),
      registry: createToolRegistry(createRecordingTools().tools),
      cluster: unusedCluster,
      policy: { actNamespaces: [] },
      limits: TEST_LIMITS,
    },
    runs: { concurrency: 1, queueSize: 10, dedupWindowMs: 60_000, maxAttempts: 3, shutdownGraceMs: 1000 },
    auth: options.auth,
    bodyLimitBytes: 65_536,
    logger: createLogger({ level: options.level, destination: options.logs.stream }),
    checkCluster: async () => ({ ok: true }),
  });
  t.after(async () => {
    await app.close();
    database.close();
  });
  return app;
}

test('secrets in logged objects are redacted', () => {
  const logs = captureLogs();
  const logger = createLogger({ level: 'info', destination: logs.stream });
  logger.info(
    {
      req: { headers: { authorization: `Bearer ${TOKENS.read}` } },
      config: { auth: { tokens: { read: TOKENS.read } } },
      model: { apiKey: 'sk-ant-secret' },
      token: TOKENS.ingest,
    },
    'settings',
  );
  assert.doesNotMatch(logs.text(), new RegExp(`${TOKENS.read}|${TOKENS.ingest}|sk-ant-secret`));
  assert.match(logs.text(), /\[redacted\]/);
});

test('request logs carry the request id and never a token, even a wrong one', async (t) => {
  const logs = captureLogs();
  const app = await buildLoggingApp(t, {
    logs,
    level: 'trace',
    auth: { mode: 'tokens', tokens: { ingest: [TOKENS.ingest], read: [TOKENS.read], approve: [] } },
  });
  const wrongToken = 'a-wrong-token-that-must-not-be-logged';
  await app.inject({
    method: 'POST',
    url: '/v1/incidents',
    headers: { authorization: `Bearer ${TOKENS.ingest}`, 'x-request-id': 'trace-incident-1' },
    payload: { text: 'checkout is down' },
  });
  await app.inject({ method: 'GET', url: '/v1/runs', headers: { authorization: `Bearer ${wrongToken}` } });
  const lines = logs.lines();
  const incident = lines.filter((line) => line.reqId === 'trace-incident-1');
  assert.ok(incident.some((line) => line.msg === 'incident accepted'));
  assert.ok(incident.some((line) => line.msg === 'request completed'));
  assert.doesNotMatch(logs.text(), new RegExp(`${TOKENS.ingest}|${wrongToken}`));
});

test('a finished run logs its audit head, which anchors the hash chain outside the database', async (t) => {
  const logs = captureLogs();
  const app = await buildLoggingApp(t, { logs, level: 'info', auth: { mode: 'off' } });
  const answer = await app.inject({
    method: 'POST',
    url: '/v1/incidents?wait=30',
    payload: { text: 'checkout is down' },
  });
  const run = answer.json() as { id: string; status: string };
  assert.equal(run.status, 'completed');
  const finished = logs.lines().find((line) => line.msg === 'run finished' && line.runId === run.id);
  const events = (await app.inject({ method: 'GET', url: `/v1/runs/${run.id}/audit` })).json() as {
    seq: number;
    hash: string;
  }[];
  const last = events.at(-1)!;
  assert.equal(finished?.auditHead, `${last.seq}:${last.hash}`);
});
