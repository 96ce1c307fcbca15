/**
 * RBAC in the mock, against the RBAC the Helm chart renders: with the chart's Roles,
 * ClusterRoles and bindings loaded and kubewhy authenticated by its service account's token,
 * every tool the deployment offers reads what it needs, while what the chart does not grant
 * (a write without ACT, Secrets without rbac.secretKeys) is a 403 that reaches the model as a
 * readable tool error. The administrator's kubeconfig keeps full access.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startMockCluster, type MockCluster } from '../mock-cluster/index.ts';
import { writeKubeconfig } from '../mock-cluster/kubeconfig.ts';
import { createKubeCluster } from '../src/cluster/kube-adapter.ts';
import { configuredTools, createToolRegistry, defaultTools } from '../src/tools/registry.ts';
import type { ToolResult } from '../src/tools/tool.ts';
import { renderChart } from './fixtures/helm-support/helm.ts';
import { callThroughGate } from './helpers/gated-calls.ts';

const FIXTURE = new URL('../mock-cluster/testdata/real-api', import.meta.url).pathname;
const RBAC_KINDS = new Set(['ServiceAccount', 'Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);
const PLURALS: Record<string, string> = {
  ServiceAccount: 'serviceaccounts',
  Role: 'roles',
  ClusterRole: 'clusterroles',
  RoleBinding: 'rolebindings',
  ClusterRoleBinding: 'clusterrolebindings',
};

/** Arguments each read tool is called with against the fixture. */
const READ_CALLS: Record<string, Record<string, unknown>> = {
  list_pods: { namespace: 'shop' },
  describe_pod: { namespace: 'shop', name: 'checkout-7c6b5d4f8-ccccc' },
  get_pod_logs: { namespace: 'shop', name: 'web-5d8f7c9b6-aaaaa' },
  list_events: { namespace: 'shop' },
  list_deployments: { namespace: 'shop' },
  describe_deployment: { namespace: 'shop', name: 'web' },
  list_replica_sets: { namespace: 'shop' },
  rollout_history: { namespace: 'shop', name: 'web' },
  list_stateful_sets: { namespace: 'shop' },
  list_daemon_sets: { namespace: 'shop' },
  list_jobs: { namespace: 'shop' },
  list_cron_jobs: { namespace: 'shop' },
  list_services: { namespace: 'shop' },
  describe_service: { namespace: 'shop', name: 'web' },
  list_config_maps: { namespace: 'shop' },
  list_persistent_volume_claims: { namespace: 'shop' },
  list_storage_classes: {},
  list_resource_quotas: { namespace: 'shop' },
  list_network_policies: { namespace: 'shop' },
  list_ingresses: { namespace: 'shop' },
  list_horizontal_pod_autoscalers: { namespace: 'shop' },
  list_role_bindings: { namespace: 'shop' },
  list_nodes: {},
  resolve_host: { host: 'web:8080', namespace: 'shop' },
};

let cluster: MockCluster;
let directory: string;
let asKubewhy: ReturnType<typeof createKubeCluster>;
let asAdmin: ReturnType<typeof createKubeCluster>;

async function send(method: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${cluster.url}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as Record<string, unknown>;
  assert.ok(response.ok, `${method} ${path}: ${JSON.stringify(answer)}`);
  return answer;
}

before(async () => {
  [cluster, directory] = await Promise.all([
    startMockCluster({ scenario: FIXTURE }),
    mkdtemp(join(tmpdir(), 'kubewhy-rbac-')),
  ]);
  const rendered = await renderChart({ namespace: 'kubewhy' });
  await send('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kubewhy' } });
  for (const object of rendered.filter((candidate) => RBAC_KINDS.has(candidate.kind))) {
    const group = object.apiVersion === 'v1' ? '/api/v1' : `/apis/${object.apiVersion}`;
    await send(
      'POST',
      `${group}${object.metadata.namespace ? `/namespaces/${object.metadata.namespace}` : ''}/${PLURALS[object.kind] ?? ''}`,
      object,
    );
  }
  const serviceAccount = rendered.find((object) => object.kind === 'ServiceAccount');
  assert.ok(serviceAccount, 'the chart renders a ServiceAccount');
  const tokenRequest = await send(
    'POST',
    `/api/v1/namespaces/kubewhy/serviceaccounts/${serviceAccount.metadata.name}/token`,
    { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} },
  );
  const token = String((tokenRequest['status'] as { token?: string }).token);
  const kubeconfigPath = join(directory, 'kubeconfig');
  await writeKubeconfig(kubeconfigPath, cluster.url, token);
  asKubewhy = createKubeCluster({ kubeconfigPath, retries: 0, retryBaseDelayMs: 5 });
  asAdmin = createKubeCluster({ kubeconfigPath: cluster.kubeconfigPath, retries: 0, retryBaseDelayMs: 5 });
});
after(async () => {
  await cluster.close();
  await rm(directory, { recursive: true, force: true });
});

function call(
  as: ReturnType<typeof createKubeCluster>,
  name: string,
  input: Record<string, unknown>,
): Promise<ToolResult> {
  return callThroughGate({
    registry: createToolRegistry(defaultTools()),
    name,
    input,
    context: { cluster: as, signal: AbortSignal.timeout(20_000), outputBudgetBytes: 16_384 },
  });
}

describe('RBAC from the Helm chart, enforced by the mock', () => {
  test('every read tool the deployment offers works with exactly what the chart grants', async () => {
    const offered = configuredTools({ secretKeys: false })
      .filter((tool) => tool.risk === 'read')
      .map((tool) => tool.name);
    assert.deepEqual([...offered].sort(), Object.keys(READ_CALLS).sort(), 'READ_CALLS covers every offered read tool');
    for (const name of offered) {
      const result = await call(asKubewhy, name, READ_CALLS[name] ?? {});
      assert.ok(result.ok || result.error !== 'forbidden', `${name}: ${result.content}`);
      assert.doesNotMatch(result.content, /forbidden/i, name);
    }
  });

  test('what the chart does not grant is a 403 the tools report readably: Secrets, and writes without ACT', async () => {
    const secrets = await call(asKubewhy, 'list_secrets', { namespace: 'shop' });
    assert.ok(!secrets.ok);
    assert.equal(secrets.error, 'forbidden');
    assert.match(
      secrets.content,
      /secrets is forbidden: User "system:serviceaccount:kubewhy:kubewhy" cannot list resource "secrets" in API group "" in the namespace "shop"/,
    );
    const deleted = await call(asKubewhy, 'delete_pod', { namespace: 'shop', name: 'web-5d8f7c9b6-aaaaa' });
    assert.ok(!deleted.ok);
    assert.equal(deleted.error, 'forbidden');
    assert.match(
      deleted.content,
      /pods "web-5d8f7c9b6-aaaaa" is forbidden: User "system:serviceaccount:kubewhy:kubewhy" cannot delete resource "pods" in API group "" in the namespace "shop"\..*RBAC/,
    );
    assert.ok(cluster.get('Pod', 'shop', 'web-5d8f7c9b6-aaaaa'), 'the pod is still there');
  });

  test('the administrator kubeconfig the mock writes keeps full access', async () => {
    assert.ok((await call(asAdmin, 'list_secrets', { namespace: 'shop' })).ok);
  });

  test('a token the mock never issued is 401 Unauthorized', async () => {
    const response = await fetch(`${cluster.url}/api/v1/pods`, { headers: { Authorization: 'Bearer not-a-token' } });
    assert.equal(response.status, 401);
    assert.deepEqual(await response.json(), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Unauthorized',
      reason: 'Unauthorized',
      code: 401,
    });
  });
});
