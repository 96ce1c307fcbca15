/**
 * `kubewhy mcp` over stdio, driven by the MCP SDK's own client, against a mock cluster the
 * test owns (the demo scenario with a canary credential in a Secret): the tools an MCP
 * client sees, reads redacted and bounded, writes only proposed (the cluster unchanged),
 * diagnose answering with the scenario's diagnosis, and every call in the audit log with
 * the client's identity.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { MockCluster } from '../mock-cluster/index.ts';
import { createAuditStore } from '../src/audit/audit-store.ts';
import { openDatabaseReadOnly } from '../src/store/database.ts';
import { runKubewhy } from './helpers/run-kubewhy.ts';
import {
  BIN,
  CANARY,
  CANARY_BASE64,
  deploymentState,
  ROOT,
  SCENARIO_DIR,
  startCanaryCluster,
  textOf,
} from './helpers/mcp-cluster.ts';

const OUTPUT_BYTES = 2048;

function environment(dataDir: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    KUBEWHY_DATA_DIR: dataDir,
    KUBEWHY_MODEL: 'offline',
    KUBEWHY_SECRET_KEYS: 'true',
    KUBEWHY_TOOL_OUTPUT_BYTES: String(OUTPUT_BYTES),
    KUBEWHY_LOG_LEVEL: 'warn',
  };
}

async function connect(args: string[], dataDir: string): Promise<Client> {
  const client = new Client({ name: 'mcp-stdio-test', version: '1.2.3' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', ...args],
      cwd: ROOT,
      env: environment(dataDir),
      stderr: 'pipe',
    }),
  );
  return client;
}

describe('kubewhy mcp (stdio)', () => {
  let mock: MockCluster;
  let client: Client;
  let dataDir: string;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'kubewhy-mcp-stdio-'));
    mock = await startCanaryCluster();
    client = await connect(['--kubeconfig', mock.kubeconfigPath], dataDir);
  });
  after(async () => {
    await client?.close();
    await mock?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('lists the read tools with their schemas, the write tools as proposals, and diagnose', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const pods = byName.get('list_pods');
    assert.ok(pods, 'list_pods is listed');
    assert.equal(pods.inputSchema.type, 'object');
    assert.equal(pods.annotations?.readOnlyHint, true);
    assert.ok(byName.get('get_pod_logs')?.inputSchema.properties?.tailLines, 'get_pod_logs describes tailLines');
    for (const write of ['rollout_undo', 'rollout_restart', 'scale', 'delete_pod']) {
      assert.match(byName.get(write)?.description ?? '', /^PROPOSAL ONLY/, `${write} is described as a proposal`);
    }
    assert.equal(byName.get('delete_pod')?.annotations?.destructiveHint, true);
    assert.deepEqual(byName.get('diagnose')?.inputSchema.required, ['text']);
  });

  it('reads pods and logs through the gate, bounded to the output budget', async () => {
    const pods = await client.callTool({ name: 'list_pods', arguments: { namespace: 'staging' } });
    assert.notEqual(pods.isError, true);
    assert.match(textOf(pods), /checkout-api-7d9f8c6b5-x2k4q/);
    const logs = await client.callTool({
      name: 'get_pod_logs',
      arguments: { namespace: 'staging', name: 'checkout-api-7d9f8c6b5-x2k4q', tailLines: 2000 },
    });
    assert.notEqual(logs.isError, true);
    assert.ok(Buffer.byteLength(textOf(logs)) <= OUTPUT_BYTES, `the logs fit ${OUTPUT_BYTES} bytes`);
  });

  it("shows a Secret's keys, never its value", async () => {
    const secrets = await client.callTool({ name: 'list_secrets', arguments: { namespace: 'staging' } });
    assert.notEqual(secrets.isError, true);
    const text = textOf(secrets);
    assert.match(text, /checkout-db/);
    assert.match(text, /db-password/);
    assert.ok(!text.includes(CANARY) && !text.includes(CANARY_BASE64), 'the canary never appears');
  });

  it('proposes a write and executes nothing: the Deployment is unchanged', async () => {
    const before = deploymentState(mock, 'staging', 'checkout-api');
    const writes = mock.requestLog.length;
    const result = await client.callTool({
      name: 'rollout_undo',
      arguments: { namespace: 'staging', name: 'checkout-api' },
    });
    assert.notEqual(result.isError, true);
    assert.match(textOf(result), /^Nothing was executed\./);
    assert.match(textOf(result), /proposed action/);
    assert.match(textOf(result), /Action id: act-[0-9a-f]{8}/);
    assert.equal(deploymentState(mock, 'staging', 'checkout-api'), before);
    assert.deepEqual(
      mock.requestLog.slice(writes).filter((request) => request.method !== 'GET'),
      [],
      'no write reached the cluster',
    );
  });

  it('answers an invalid call with a readable isError result', async () => {
    const result = await client.callTool({
      name: 'get_pod_logs',
      arguments: { namespace: 'staging', tailLines: 'many' },
    });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /Invalid arguments for get_pod_logs: .*name/);
    const unknown = await client.callTool({ name: 'kubectl_exec', arguments: {} });
    assert.equal(unknown.isError, true);
    assert.match(textOf(unknown), /no tool named "kubectl_exec"/);
  });

  it('diagnoses the scenario: bad credentials in Deployment staging/checkout-api', async () => {
    const result = await client.callTool({
      name: 'diagnose',
      arguments: { text: 'checkout-api in staging keeps restarting', namespace: 'staging' },
    });
    assert.notEqual(result.isError, true);
    const answer = JSON.parse(textOf(result)) as {
      runId: string;
      status: string;
      category: string;
      culprit: string;
      evidence: string[];
    };
    assert.equal(answer.status, 'completed');
    assert.equal(answer.category, 'bad-credentials');
    assert.equal(answer.culprit, 'Deployment/staging/checkout-api');
    assert.ok(answer.evidence.length > 0);
    assert.ok(!textOf(result).includes(CANARY));
  });

  it('audits every call with the client identity, and no Secret value', async () => {
    const database = openDatabaseReadOnly(join(dataDir, 'kubewhy.db'));
    try {
      const audit = createAuditStore(database);
      const session = audit.runIds().find((id) => id.startsWith('mcp-stdio-'));
      assert.ok(session, 'the session has an audit chain');
      const events = audit.list(session);
      const calls = events.filter((event) => event.type === 'tool-call');
      assert.deepEqual(
        calls.map((event) => event.payload.tool),
        ['list_pods', 'get_pod_logs', 'list_secrets', 'rollout_undo', 'get_pod_logs', 'kubectl_exec', 'diagnose'],
      );
      for (const event of events.filter((candidate) => candidate.type !== 'run-created')) {
        assert.deepEqual(event.payload.client, { identity: 'stdio', name: 'mcp-stdio-test', version: '1.2.3' });
      }
      assert.ok(events.some((event) => event.type === 'gate-decision' && event.payload.decision === 'propose'));
      const everything = JSON.stringify(audit.runIds().flatMap((id) => audit.list(id)));
      assert.ok(!everything.includes(CANARY) && !everything.includes(CANARY_BASE64));
      assert.deepEqual(audit.verify(session).problems, []);
    } finally {
      database.close();
    }
    // The session's chain keeps no run row by design; `kubewhy audit verify` knows it and passes.
    const verify = await runKubewhy(['audit', 'verify', '--data-dir', dataDir], { env: environment(dataDir) });
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
  });
});

describe('kubewhy mcp --scenario', () => {
  it('serves the scenario on an embedded mock cluster', async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kubewhy-mcp-scenario-'));
    const client = await connect(['--scenario', SCENARIO_DIR], dataDir);
    t.after(async () => {
      await client.close();
      rmSync(dataDir, { recursive: true, force: true });
    });
    const pods = await client.callTool({ name: 'list_pods', arguments: { namespace: 'staging' } });
    assert.match(textOf(pods), /checkout-api/);
  });
});
