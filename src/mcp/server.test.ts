import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { AuditStore } from '../audit/audit-store.ts';
import { openDatabase } from '../store/database.ts';
import { createSqliteStores } from '../store/sqlite-stores.ts';
import { createToolRegistry } from '../tools/registry.ts';
import type { ReadTool, Tool } from '../tools/tool.ts';
import { createRecordingTools, unusedCluster } from '../../test/helpers/fake-tools.ts';
import { createMcpServer, type McpServerDependencies } from './server.ts';
import { createMcpSession } from './session.ts';

const SECRET = 'hunter2-Zq8vLm3pX';

/** A read tool whose output quotes a credential and runs long: what the model would read is redacted and bounded. */
const leakyLogs: ReadTool = {
  name: 'leaky_logs',
  description: 'logs that quote a password (test double)',
  input: z.object({ namespace: z.string().describe('The namespace') }),
  risk: 'read',
  run: async () => ({
    ok: true,
    truncated: false,
    content: `DB_PASSWORD=${SECRET}\n${'connection refused\n'.repeat(400)}`,
  }),
};

async function connect(
  t: { after(fn: () => unknown): void },
  overrides: Partial<McpServerDependencies> = {},
): Promise<{ client: Client; audit: AuditStore; executed: string[]; runId: string; flush(): Promise<void> }> {
  const database = openDatabase(':memory:');
  const { audit } = createSqliteStores(database);
  const recording = createRecordingTools();
  const registry = createToolRegistry([...recording.tools, leakyLogs as Tool]);
  const session = createMcpSession({
    runId: 'mcp-unit',
    audit,
    registry,
    cluster: unusedCluster,
    policy: { actNamespaces: ['staging'] },
    toolOutputBytes: 1024,
    transport: 'stdio',
  });
  const server = createMcpServer({
    registry,
    session,
    version: 'test',
    identity: 'stdio',
    diagnose: async () => ({ runId: 'run-1', status: 'completed' }),
    whereIsRun: (runId) => `kubewhy audit show --run ${runId}`,
    ...overrides,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'unit-client', version: '9.9.9' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  t.after(async () => {
    await client.close();
    database.close();
  });
  return { client, audit, executed: recording.executed, runId: session.runId, flush: () => session.flush() };
}

function textOf(result: unknown): string {
  return ((result as CallToolResult).content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

test('a write tool called over MCP is only proposed: nothing runs, and the result says where the proposal is', async (t) => {
  const { client, audit, executed, runId } = await connect(t);
  const result = await client.callTool({
    name: 'rollout_undo',
    arguments: { namespace: 'staging', name: 'checkout-api' },
  });
  assert.notEqual(result.isError, true);
  assert.match(
    textOf(result),
    /^Nothing was executed\. write call not executed: this run is at OBSERVE\. It is recorded as a proposed action/,
  );
  assert.match(textOf(result), /kubewhy audit show --run mcp-unit/);
  assert.deepEqual(executed, []);
  const decision = (await audit.list(runId)).find((event) => event.type === 'gate-decision');
  assert.equal(decision?.payload.decision, 'propose');
  assert.deepEqual(decision?.payload.client, { identity: 'stdio', name: 'unit-client', version: '9.9.9' });
});

test('a read result is redacted and bounded exactly as the model reads it', async (t) => {
  const { client, audit, runId } = await connect(t);
  const result = await client.callTool({ name: 'leaky_logs', arguments: { namespace: 'staging' } });
  const text = textOf(result);
  assert.ok(!text.includes(SECRET), 'the password is masked');
  assert.ok(Buffer.byteLength(text) <= 1024, `bounded to 1024 bytes, got ${Buffer.byteLength(text)}`);
  assert.ok(!JSON.stringify(await audit.list(runId)).includes(SECRET), 'the audit log never holds it');
});

test('an invalid call reaches the gate: a readable isError result, audited', async (t) => {
  const { client, audit, runId, executed } = await connect(t);
  const result = await client.callTool({ name: 'describe_pod', arguments: { namespace: 7 } });
  assert.equal(result.isError, true);
  assert.match(
    textOf(result),
    /^Invalid arguments for describe_pod: namespace: .*; name: .*\. It takes: namespace, name\.$/,
  );
  assert.deepEqual(executed, []);
  assert.equal((await audit.list(runId)).find((event) => event.type === 'gate-decision')?.payload.decision, 'refuse');
});

test('a call the caller has no scope for is refused naming the scope, and nothing runs', async (t) => {
  const { client, executed, audit, runId, flush } = await connect(t, {
    authorize: (scope) => (scope === 'read' ? undefined : `this call needs a token with the "${scope}" scope`),
  });
  const write = await client.callTool({ name: 'delete_pod', arguments: { namespace: 'staging', name: 'pod-1' } });
  assert.equal(write.isError, true);
  assert.match(textOf(write), /"act" scope/);
  const diagnose = await client.callTool({ name: 'diagnose', arguments: { text: 'checkout is down' } });
  assert.match(textOf(diagnose), /"ingest" scope/);
  assert.deepEqual(executed, []);
  // A refused call is recorded without waiting for the store: wait for what was recorded.
  await flush();
  assert.deepEqual(
    (await audit.list(runId))
      .filter((event) => event.type === 'tool-call')
      .map((event) => [event.payload.tool, typeof event.payload.refused]),
    [
      ['delete_pod', 'string'],
      ['diagnose', 'string'],
    ],
  );
});

test('a write the caller may hold is held in its own run, and the result names the run and the action', async (t) => {
  const asked: string[] = [];
  const { client, executed } = await connect(t, {
    hold: async (request) => {
      asked.push(`${request.name} ${request.client.identity}`);
      return {
        held: true,
        runId: 'run-held',
        actionId: 'act-12345678',
        result: { ok: true, truncated: false, content: 'held' },
      };
    },
    whereIsRun: (runId) => `GET /v1/runs/${runId}`,
  });
  const result = await client.callTool({
    name: 'rollout_undo',
    arguments: { namespace: 'staging', name: 'checkout-api' },
  });
  assert.match(
    textOf(result),
    /^Nothing was executed\. rollout_undo is held for a person's approval as action act-12345678 of run run-held/,
  );
  assert.match(textOf(result), /POST \/v1\/runs\/run-held\/actions\/act-12345678\/approve/);
  assert.deepEqual(asked, ['rollout_undo stdio']);
  assert.deepEqual(executed, []);
});
