/**
 * The MCP endpoint of a real `kubewhy serve` child process (ACT allowed in staging), driven
 * by the MCP SDK's own client over Streamable HTTP with bearer tokens, against a mock
 * cluster the test owns: 401 without a token, each call's scope enforced and named, a
 * diagnose that is a real run of the API, and a write that is held for a person (nothing
 * changes in the cluster until it is approved through the API, and then it does).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { MockCluster } from '../mock-cluster/index.ts';
import { CANARY, CANARY_BASE64, deploymentState, startCanaryCluster, textOf } from './helpers/mcp-cluster.ts';
import { pollUntil, startServiceProcess, writeTokensDir, type ServiceProcess } from './helpers/service-process.ts';

const TOKENS = {
  read: 'mcp-read-token-0001',
  ingest: 'mcp-ingest-token-0002',
  act: 'mcp-act-token-00003',
  approve: 'mcp-approve-token-0004',
} as const;

/** The identity the service gives a token: `<scope>#<first 8 hex of its sha256>`. */
function identityOf(scope: keyof typeof TOKENS): string {
  return `${scope}#${createHash('sha256').update(TOKENS[scope]).digest('hex').slice(0, 8)}`;
}

interface RunView {
  id: string;
  status: string;
  actions: { id: string; tool: string; status: string; diff?: string[] }[];
  diagnosis?: { category: string; summary: string };
}

interface AuditEventView {
  type: string;
  payload: Record<string, unknown>;
}

describe('MCP over Streamable HTTP on kubewhy serve', () => {
  let mock: MockCluster;
  let service: ServiceProcess;
  let dataDir: string;
  const clients: Client[] = [];

  const connect = async (scope: keyof typeof TOKENS): Promise<Client> => {
    const client = new Client({ name: `mcp-http-test-${scope}`, version: '0.0.1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${TOKENS[scope]}` } },
      }),
    );
    clients.push(client);
    return client;
  };

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'kubewhy-mcp-http-'));
    mock = await startCanaryCluster();
    service = await startServiceProcess({
      KUBEWHY_CLUSTER: 'kubeconfig',
      KUBECONFIG: mock.kubeconfigPath,
      KUBEWHY_DATA_DIR: dataDir,
      KUBEWHY_TOKENS_DIR: await writeTokensDir(dataDir, TOKENS),
      KUBEWHY_ACT_NAMESPACES: 'staging',
      KUBEWHY_SECRET_KEYS: 'true',
      KUBEWHY_MODEL: 'offline',
    });
  });
  after(async () => {
    for (const client of clients) await client.close();
    await service?.stop();
    await mock?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers 401 with www-authenticate without a token, and hides /mcp from the OpenAPI document', async () => {
    const response = await fetch(`${service.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    assert.equal(response.status, 401);
    assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer realm="kubewhy"/);
    const client = new Client({ name: 'no-token', version: '0' });
    await assert.rejects(client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`))));
    const stream = await fetch(`${service.url}/mcp`, {
      headers: { authorization: `Bearer ${TOKENS.read}`, accept: 'text/event-stream' },
    });
    assert.equal(stream.status, 405, 'stateless: no server-sent stream to open');
    const openapi = await service.request({ path: '/openapi.json' });
    assert.equal(openapi.status, 200);
    assert.ok(!openapi.text.includes('"/mcp"'), '/mcp is not in the OpenAPI document');
  });

  it('lets a read token list the tools and call a read tool, redacted', async () => {
    const client = await connect('read');
    const { tools } = await client.listTools();
    assert.ok(tools.some((tool) => tool.name === 'list_pods'));
    assert.ok(tools.some((tool) => tool.name === 'diagnose'));
    const pods = await client.callTool({ name: 'list_pods', arguments: { namespace: 'staging' } });
    assert.notEqual(pods.isError, true);
    assert.match(textOf(pods), /checkout-api-7d9f8c6b5-x2k4q/);
    const secrets = await client.callTool({ name: 'list_secrets', arguments: { namespace: 'staging' } });
    assert.match(textOf(secrets), /db-password/);
    assert.ok(!textOf(secrets).includes(CANARY) && !textOf(secrets).includes(CANARY_BASE64));
  });

  it('names the scope a call needs when the token lacks it', async () => {
    const ingest = await connect('ingest');
    const read = await ingest.callTool({ name: 'list_pods', arguments: { namespace: 'staging' } });
    assert.equal(read.isError, true);
    assert.match(textOf(read), /needs a token with the "read" scope/);
    const reader = await connect('read');
    const diagnose = await reader.callTool({ name: 'diagnose', arguments: { text: 'checkout-api keeps restarting' } });
    assert.equal(diagnose.isError, true);
    assert.match(textOf(diagnose), /"ingest" scope/);
  });

  it('refuses a write from a read-only token, naming the act scope; nothing changes', async () => {
    const before = deploymentState(mock, 'staging', 'checkout-api');
    const client = await connect('read');
    const result = await client.callTool({
      name: 'rollout_undo',
      arguments: { namespace: 'staging', name: 'checkout-api' },
    });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /needs a token with the "act" scope.*Nothing was run/);
    assert.equal(deploymentState(mock, 'staging', 'checkout-api'), before);
  });

  it('diagnoses with an ingest token: a real run, listed by GET /v1/runs', async () => {
    const client = await connect('ingest');
    const result = await client.callTool({
      name: 'diagnose',
      arguments: { text: 'checkout-api in staging keeps restarting', namespace: 'staging' },
    });
    assert.notEqual(result.isError, true, textOf(result));
    const answer = JSON.parse(textOf(result)) as { runId: string; status: string; category: string; culprit: string };
    assert.equal(answer.status, 'completed');
    assert.equal(answer.category, 'bad-credentials');
    assert.equal(answer.culprit, 'Deployment/staging/checkout-api');
    const runs = await service.request({ path: '/v1/runs', token: TOKENS.read });
    const listed = (runs.body as { runs: RunView[] }).runs.find((run) => run.id === answer.runId);
    assert.equal(listed?.status, 'completed');
    assert.equal(listed?.diagnosis?.category, 'bad-credentials');
  });

  it("holds a write from an act token for a person's approval; the cluster changes only once it is approved", async () => {
    const before = deploymentState(mock, 'staging', 'checkout-api');
    const client = await connect('act');
    const result = await client.callTool({
      name: 'rollout_undo',
      arguments: { namespace: 'staging', name: 'checkout-api' },
    });
    assert.notEqual(result.isError, true, textOf(result));
    const text = textOf(result);
    assert.match(text, /^Nothing was executed\. rollout_undo is held for a person's approval/);
    const [, actionId, runId] = /as action (act-[0-9a-f]{8}) of run (\S+),/.exec(text) ?? [];
    assert.ok(actionId && runId, text);

    const held = (await service.request({ path: `/v1/runs/${runId}`, token: TOKENS.read })).body as RunView;
    assert.equal(held.status, 'awaiting_approval');
    assert.deepEqual(
      held.actions.map((action) => [action.id, action.tool, action.status]),
      [[actionId, 'rollout_undo', 'awaiting_approval']],
    );
    assert.ok((held.actions[0]?.diff ?? []).length > 0, 'the dry run says what it would change');
    assert.equal(deploymentState(mock, 'staging', 'checkout-api'), before, 'nothing changed while it is held');

    const approved = await service.request({
      method: 'POST',
      path: `/v1/runs/${runId}/actions/${actionId}/approve`,
      token: TOKENS.approve,
      body: { by: 'alice' },
    });
    assert.equal(approved.status, 200, approved.text);
    const finished = await pollUntil(
      async () => {
        const run = (await service.request({ path: `/v1/runs/${runId}`, token: TOKENS.read })).body as RunView;
        return run.status === 'completed' || run.status === 'failed' ? run : undefined;
      },
      { timeoutMs: 30_000, what: 'the approved run to finish' },
    );
    assert.equal(finished.status, 'completed');
    assert.equal(finished.actions[0]?.status, 'executed');
    assert.notEqual(
      deploymentState(mock, 'staging', 'checkout-api'),
      before,
      'the approved rollback changed the Deployment',
    );
    assert.ok(
      mock.requestLog.some(
        (request) => request.method === 'PATCH' && request.path.includes('/deployments/checkout-api'),
      ),
    );

    const audit = (await service.request({ path: `/v1/runs/${runId}/audit`, token: TOKENS.read }))
      .body as AuditEventView[];
    const call = audit.find((event) => event.type === 'tool-call');
    assert.equal((call?.payload.client as { identity?: string } | undefined)?.identity, identityOf('act'));
    assert.ok(audit.some((event) => event.type === 'approval' && event.payload.decision === 'approved'));
  });

  it('only proposes a write from an act token where policy keeps OBSERVE', async () => {
    const client = await connect('act');
    const result = await client.callTool({
      name: 'scale',
      arguments: { namespace: 'production', name: 'checkout-api', replicas: 0 },
    });
    assert.notEqual(result.isError, true, textOf(result));
    assert.match(textOf(result), /^Nothing was executed\. write call not executed: .*recorded as a proposed action/);
    assert.match(
      textOf(result),
      new RegExp(
        `audit log of MCP session mcp-act-[0-9a-f]{8}: GET /v1/runs/mcp-${identityOf('act').replace('#', '-')}/audit\\.$`,
      ),
    );
  });

  it('audits every call under the token identity', async () => {
    const reads = (
      await service.request({ path: `/v1/runs/mcp-${identityOf('read').replace('#', '-')}/audit`, token: TOKENS.read })
    ).body as AuditEventView[];
    const calls = reads.filter((event) => event.type === 'tool-call');
    assert.deepEqual(
      calls.map((event) => event.payload.tool),
      ['list_pods', 'list_secrets', 'diagnose', 'rollout_undo'],
    );
    for (const event of calls)
      assert.equal((event.payload.client as { identity: string }).identity, identityOf('read'));
    assert.match(String(calls[2]?.payload.refused), /ingest/);
    const ingests = (
      await service.request({
        path: `/v1/runs/mcp-${identityOf('ingest').replace('#', '-')}/audit`,
        token: TOKENS.read,
      })
    ).body as AuditEventView[];
    assert.deepEqual(
      ingests.filter((event) => event.type === 'tool-call').map((event) => event.payload.tool),
      ['list_pods', 'diagnose'],
    );
    assert.ok(!JSON.stringify([reads, ingests]).includes(CANARY));
  });
});
