/**
 * Every way out of the service passes the redactor: tool results, the model's first
 * message, the audit log, the service log, API answers and error messages. Each test puts
 * the secret shapes in and looks for their canaries on the way out.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { z } from 'zod';
import { describeTrigger } from '../src/agent/trigger.ts';
import { createAuditStore } from '../src/audit/audit-store.ts';
import { createLogger } from '../src/logger.ts';
import { toRunView } from '../src/runs/run-view.ts';
import { openDatabase } from '../src/store/database.ts';
import type { RunRecord } from '../src/store/ports.ts';
import { createToolRegistry, runReadTool } from '../src/tools/registry.ts';
import type { ReadTool } from '../src/tools/tool.ts';
import { SECRET_SHAPES } from './fixtures/secret-canary/shapes.ts';
import { unusedCluster } from './helpers/fake-tools.ts';
import { startTestApp } from './helpers/service-app.ts';

const ALL_TEXT = SECRET_SHAPES.map((shape) => shape.text).join('\n');

function leakedCanaries(output: string): string[] {
  return SECRET_SHAPES.filter((shape) => output.includes(shape.canary)).map((shape) => shape.id);
}

describe('tool results', () => {
  it('content and data of a tool pass the redactor in the registry', async () => {
    const leaky: ReadTool<z.ZodObject<Record<string, never>>> = {
      name: 'leaky_read',
      description: 'returns every secret shape (test double)',
      input: z.object({}),
      risk: 'read',
      run: async () => ({
        ok: true,
        truncated: false,
        content: ALL_TEXT,
        data: {
          lines: SECRET_SHAPES.map((shape) => shape.text),
          env: [{ name: 'DB_PASSWORD', value: 'ShapeCanaryEnv' }],
        },
      }),
    };
    const result = await runReadTool({
      registry: createToolRegistry([leaky]),
      name: 'leaky_read',
      input: {},
      context: { cluster: unusedCluster, signal: new AbortController().signal, outputBudgetBytes: 1 << 20 },
    });
    assert.ok(result.ok, result.content);
    const output = `${result.content}\n${JSON.stringify(result.data)}`;
    assert.deepEqual(leakedCanaries(output), []);
    assert.ok(!output.includes('ShapeCanaryEnv'));
  });
});

describe("the model's first message", () => {
  it('an incident text is redacted', () => {
    const message = describeTrigger({ kind: 'incident', text: `checkout is down\n${ALL_TEXT}`, namespace: 'shop' });
    assert.deepEqual(leakedCanaries(message), []);
    assert.match(message, /checkout is down/);
  });

  it("an alert's labels and annotations are redacted, by name and by shape", () => {
    const annotations = Object.fromEntries(SECRET_SHAPES.map((shape) => [`note_${shape.id}`, shape.text]));
    const message = describeTrigger({
      kind: 'alert',
      alert: {
        labels: { alertname: 'KubePodCrashLooping', namespace: 'shop', db_password: 'ShapeCanaryLabel' },
        annotations,
      },
    });
    assert.deepEqual(leakedCanaries(message), []);
    assert.ok(!message.includes('ShapeCanaryLabel'), message);
    assert.match(message, /alertname=KubePodCrashLooping/);
  });
});

describe('the audit log', () => {
  it('payloads are redacted before they are stored', () => {
    const database = openDatabase(':memory:');
    const audit = createAuditStore(database);
    audit.append({
      runId: 'run-1',
      type: 'tool-result',
      payload: {
        content: ALL_TEXT,
        args: ['mysql', '-pShapeCanaryArgv'],
        env: [{ name: 'API_TOKEN', value: 'ShapeCanaryAuditEnv' }],
      },
    });
    const stored = JSON.stringify(audit.list('run-1'));
    database.close();
    assert.deepEqual(leakedCanaries(stored), []);
    assert.ok(!stored.includes('ShapeCanaryArgv') && !stored.includes('ShapeCanaryAuditEnv'), stored);
  });
});

describe('the service log', () => {
  function capture(): { stream: Writable; text: () => string } {
    let text = '';
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        text += chunk.toString('utf8');
        done();
      },
    });
    return { stream, text: () => text };
  }

  it('messages, interpolated arguments, logged objects and errors are redacted', () => {
    const logs = capture();
    const logger = createLogger({ level: 'info', destination: logs.stream });
    for (const shape of SECRET_SHAPES) {
      logger.info(shape.text);
      logger.info('upstream said %s', shape.text);
      logger.info({ detail: shape.text, nested: { lines: [shape.text] } }, 'detail');
      logger.error(new Error(`failed: ${shape.text}`));
      logger.error({ err: new Error(`failed: ${shape.text}`) }, 'request failed');
      logger.child({ runId: 'r1' }).warn({ error: new Error(shape.text) }, 'child');
      logger.child({ reqId: 'q1' }).info(`child says ${shape.text}`);
    }
    const text = logs.text();
    assert.deepEqual(leakedCanaries(text), []);
    assert.equal(text.trim().split('\n').length, SECRET_SHAPES.length * 7);
    assert.match(text, /"type":"Error"/);
  });

  it('lines with nothing secret pass unchanged', () => {
    const logs = capture();
    createLogger({ level: 'info', destination: logs.stream }).info({ runId: 'run-1', steps: 3 }, 'run finished');
    const line = JSON.parse(logs.text()) as Record<string, unknown>;
    assert.equal(line.msg, 'run finished');
    assert.equal(line.runId, 'run-1');
  });
});

describe('API answers', () => {
  it("a run's trigger, diagnosis, reason and actions are redacted", () => {
    const run = {
      id: 'run-1',
      sequence: 1,
      trigger: { kind: 'incident', text: ALL_TEXT },
      source: 'api',
      status: 'completed',
      rung: 'OBSERVE',
      createdAt: '2026-12-01T00:00:00.000Z',
      attempts: 1,
      reason: ALL_TEXT,
      diagnosis: {
        category: 'other',
        culprit: { kind: 'Deployment', namespace: 'shop', name: 'cart' },
        summary: ALL_TEXT,
        evidence: SECRET_SHAPES.map((shape) => shape.text),
        confidence: 'low',
        actions: [],
      },
      actions: [
        {
          id: 'a1',
          tool: 'scale',
          args: { namespace: 'shop', name: 'cart', note: ALL_TEXT },
          risk: 'write',
          status: 'failed',
          result: ALL_TEXT,
        },
      ],
    } as unknown as RunRecord;
    const view = JSON.stringify(toRunView(run));
    assert.deepEqual(leakedCanaries(view), []);
    assert.match(view, /"name":"cart"/);
  });
});

describe('error messages', () => {
  it('a 404 quoting a path that holds a credential is redacted', async (t) => {
    const { call } = await startTestApp(t);
    const paths = [
      '/v2/password=ShapeCanaryPath1',
      `/v2/keys/sk-ant-api03-ShapeCanaryPath2${'x'.repeat(40)}`,
      '/v2/npm_ShapeCanaryPath3abcdefghijklmnopq',
      '/v2/hooks/123456789:AAShapeCanaryPath4abcdefghijklmnopqr',
    ];
    for (const path of paths) {
      const response = await call({ method: 'GET', url: path });
      assert.equal(response.statusCode, 404, response.body);
      assert.match(response.json().message, /^no route GET \/v2\//);
      assert.ok(!/ShapeCanaryPath/.test(response.body), response.body);
    }
  });

  it('a validation error naming an unknown key that is a token is redacted', async (t) => {
    const { call } = await startTestApp(t);
    const token = `ghp_${'ShapeCanaryKey'.repeat(3)}`;
    const response = await call({
      method: 'POST',
      url: '/v1/incidents',
      scope: 'ingest',
      body: { text: 'x', [token]: 1 },
    });
    assert.equal(response.statusCode, 400, response.body);
    assert.ok(!response.body.includes('ShapeCanaryKey'), response.body);
  });
});
