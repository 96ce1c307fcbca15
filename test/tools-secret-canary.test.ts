/**
 * Secrets never leave: a fixture cluster hides a unique canary string in every place a
 * credential lives (Secret data, env values, connection strings, args, probe commands,
 * annotations, ConfigMap values, pod and termination messages, event messages, log lines).
 * No tool's content or data may contain any of them.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startMockCluster, type MockCluster } from '../mock-cluster/index.ts';
import { createKubeCluster } from '../src/cluster/kube-adapter.ts';
import type { RolloutHistoryData } from '../src/tools/rollout-history.ts';
import { createToolRegistry, defaultTools } from '../src/tools/registry.ts';
import { callThroughGate, dryRunThroughGate } from './helpers/gated-calls.ts';
import type { ToolContext, ToolResult } from '../src/tools/tool.ts';

const FIXTURE = join(import.meta.dirname, 'fixtures', 'secret-canary');
const registry = createToolRegistry();

/** Every canary in the fixture, read from its files, plus the encoded forms a leak could take. */
async function readCanaries(): Promise<string[]> {
  const files = [
    'cluster.yaml',
    'logs/vault/billing-7f8d9c6b5-abcde/app.previous.log',
    'logs/vault/billing-7f8d9c6b5-abcde/app.log',
    'logs/vault/sync-job-x7k2p/sync.log',
  ];
  const text = (await Promise.all(files.map((file) => readFile(join(FIXTURE, file), 'utf8')))).join('\n');
  const canaries = new Set(text.match(/Canary[A-Za-z0-9]*/g) ?? []);
  // Base64 forms: Secret data, a basic-auth header, a JWT payload.
  for (const encoded of [
    'Q2FuYXJ5U2VjcmV0RGF0YTEtaHVudGVyMg==',
    'Q2FuYXJ5U2VjcmV0RGF0YTItazN5',
    'Q2FuYXJ5QmFzaWMzNA==',
    'eyJzdWIiOiJDYW5hcnlKd3QyNiJ9',
  ])
    canaries.add(encoded);
  return [...canaries];
}

/** Calls that reach every tool, and most of their options, on the fixture. */
const CALLS: Array<[string, Record<string, unknown>]> = [
  ['list_pods', { namespace: 'vault' }],
  ['list_pods', {}],
  ['describe_pod', { namespace: 'vault', name: 'billing-7f8d9c6b5-abcde' }],
  ['describe_pod', { namespace: 'vault', name: 'sync-job-x7k2p' }],
  ['get_pod_logs', { namespace: 'vault', name: 'billing-7f8d9c6b5-abcde' }],
  ['get_pod_logs', { namespace: 'vault', name: 'billing-7f8d9c6b5-abcde', previous: true }],
  ['get_pod_logs', { namespace: 'vault', name: 'billing-7f8d9c6b5-abcde', previous: true, tailLines: 2 }],
  [
    'get_pod_logs',
    { namespace: 'vault', name: 'billing-7f8d9c6b5-abcde', previous: true, grep: 'password|token|key|Bearer|jwt|aws' },
  ],
  ['get_pod_logs', { namespace: 'vault', name: 'sync-job-x7k2p' }],
  ['list_events', { namespace: 'vault' }],
  ['list_events', { namespace: 'vault', name: 'billing' }],
  ['list_deployments', { namespace: 'vault' }],
  ['describe_deployment', { namespace: 'vault', name: 'billing' }],
  ['rollout_history', { namespace: 'vault', name: 'billing' }],
  ['rollout_history', { namespace: 'vault', name: 'billing', revision: 1 }],
  ['rollout_history', { namespace: 'vault', name: 'billing', revision: 2 }],
  ['list_replica_sets', { namespace: 'vault' }],
  ['list_stateful_sets', { namespace: 'vault' }],
  ['list_daemon_sets', { namespace: 'vault' }],
  ['list_jobs', { namespace: 'vault' }],
  ['list_jobs', { namespace: 'vault', name: 'sync-job' }],
  ['list_cron_jobs', { namespace: 'vault' }],
  ['list_nodes', {}],
  ['list_services', { namespace: 'vault' }],
  ['describe_service', { namespace: 'vault', name: 'billing' }],
  ['list_config_maps', { namespace: 'vault' }],
  ['list_config_maps', { namespace: 'vault', name: 'billing-config' }],
  ['list_config_maps', { namespace: 'vault', name: 'billing-config', key: 'application.properties' }],
  ['list_secrets', { namespace: 'vault' }],
  ['list_secrets', { namespace: 'vault', name: 'billing-db' }],
  ['list_persistent_volume_claims', { namespace: 'vault' }],
  ['list_storage_classes', {}],
  ['list_resource_quotas', { namespace: 'vault' }],
  ['list_network_policies', { namespace: 'vault' }],
  ['list_ingresses', { namespace: 'vault' }],
  ['list_horizontal_pod_autoscalers', { namespace: 'vault' }],
  ['list_role_bindings', { namespace: 'vault' }],
  ['resolve_host', { namespace: 'vault', host: 'billing:80' }],
  ['resolve_host', { namespace: 'vault', host: 'postgres://billing:CanaryConfigUrl6@db.vault:5432/billing' }],
  ['resolve_host', { namespace: 'vault', host: 'postgres://billing:CanaryConfigUrl6@db.vault:99999/billing' }],
  ['rollout_restart', { namespace: 'vault', name: 'billing' }],
  ['scale', { namespace: 'vault', name: 'billing', replicas: 2 }],
  ['rollout_undo', { namespace: 'vault', name: 'billing' }],
  ['delete_pod', { namespace: 'vault', name: 'sync-job-x7k2p' }],
];

let mock: MockCluster;
let context: ToolContext;
let canaries: string[];

before(async () => {
  canaries = await readCanaries();
  mock = await startMockCluster({ scenario: FIXTURE });
  context = {
    cluster: createKubeCluster({ kubeconfigPath: mock.kubeconfigPath }),
    signal: AbortSignal.timeout(30_000),
    outputBudgetBytes: 16_384,
  };
});
after(() => mock.close());

function leaks(result: ToolResult): string[] {
  const text = `${result.content}\n${result.ok ? JSON.stringify(result.data ?? null) : ''}`;
  return canaries.filter((canary) => text.includes(canary));
}

describe('no canary reaches any tool output', () => {
  it('the fixture hides more than thirty canaries', () => {
    assert.ok(canaries.length > 30, `${canaries.length} canaries`);
  });

  it('every tool is called', () => {
    assert.deepEqual(
      [...new Set(CALLS.map(([name]) => name))].sort(),
      defaultTools()
        .map((tool) => tool.name)
        .sort(),
    );
  });

  for (const [name, input] of CALLS) {
    it(`${name} ${JSON.stringify(input)}`, async () => {
      const rehearsal =
        registry.get(name)?.risk === 'read' ? undefined : await dryRunThroughGate({ registry, name, input, context });
      const result = await callThroughGate({ registry, name, input, context });
      for (const output of [rehearsal, result]) {
        if (!output) continue;
        assert.deepEqual(leaks(output), [], output.content);
      }
    });
  }
});

describe('redaction keeps what a diagnosis needs', () => {
  it('the previous log still says why the app failed, with the credentials masked', async () => {
    const result = await callThroughGate({
      registry,
      name: 'get_pod_logs',
      input: { namespace: 'vault', name: 'billing-7f8d9c6b5-abcde', previous: true },
      context,
    });
    assert.match(result.content, /password authentication failed for user "billing"/);
    assert.match(result.content, /postgres:\/\/billing:\[REDACTED\]@db\.vault:5432/);
  });

  it('a changed password value shows as a change between revisions, by fingerprint only', async () => {
    const result = await callThroughGate({
      registry,
      name: 'rollout_history',
      input: { namespace: 'vault', name: 'billing' },
      context,
    });
    assert.ok(result.ok);
    const entry = (result.data as RolloutHistoryData).changes
      .flatMap((change) => change.changes)
      .find((change) => change.field === 'env DB_PASSWORD');
    assert.match(entry?.from ?? '', /^value "\[REDACTED\] #[0-9a-f]{6}"$/);
    assert.match(entry?.to ?? '', /^value "\[REDACTED\] #[0-9a-f]{6}"$/);
    assert.notEqual(entry?.from, entry?.to);
  });

  it('a Secret is listed with its keys, never its values', async () => {
    const result = await callThroughGate({
      registry,
      name: 'list_secrets',
      input: { namespace: 'vault', name: 'billing-db' },
      context,
    });
    assert.match(result.content, /billing-db: type Opaque, age \S+, keys api-key, password, token/);
  });
});
