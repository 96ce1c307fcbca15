/**
 * list_role_bindings through the real client against the mock cluster's RBAC objects: what
 * binds a service account the API refuses, whether a request is allowed and by which
 * binding, and errors the model can read.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMockCluster, type MockCluster } from '../mock-cluster/index.ts';
import { createKubeCluster } from '../src/cluster/kube-adapter.ts';
import type { RoleBindingsData } from '../src/tools/list-role-bindings.ts';
import { createToolRegistry } from '../src/tools/registry.ts';
import type { ToolResult } from '../src/tools/tool.ts';
import { callThroughGate } from './helpers/gated-calls.ts';

const SCENARIO = join(import.meta.dirname, '..', 'mock-cluster', 'scenarios', 'canary-analyzer-rolebinding-wrong-ns');
const registry = createToolRegistry();

describe('list_role_bindings', () => {
  let mock: MockCluster;
  let call: (input: Record<string, unknown>) => Promise<ToolResult>;
  before(async () => {
    mock = await startMockCluster({ scenario: SCENARIO });
    const cluster = createKubeCluster({ kubeconfigPath: mock.kubeconfigPath, retries: 1, retryBaseDelayMs: 5 });
    call = (input) =>
      callThroughGate({
        registry,
        name: 'list_role_bindings',
        input,
        context: { cluster, signal: AbortSignal.timeout(20_000), outputBudgetBytes: 16_384 },
      });
  });
  after(() => mock.close());

  it("lists the bindings that name a service account, with their roles' rules", async () => {
    const result = await call({ serviceAccount: { namespace: 'delivery', name: 'canary-analyzer' } });
    assert.ok(result.ok, result.content);
    const data = result.data as RoleBindingsData;
    assert.ok(
      data.bindings.some(
        (binding) =>
          binding.kind === 'RoleBinding' &&
          binding.namespace === 'delivery' &&
          binding.name === 'canary-analyzer-leader-election' &&
          (binding.rules ?? []).length > 0,
      ),
    );
    // The storefront binding names the account in namespace default: it does not name this one.
    assert.ok(!data.bindings.some((binding) => binding.name === 'canary-analyzer-target'));
    assert.match(
      result.content,
      /RoleBinding delivery\/canary-analyzer-leader-election -> Role canary-analyzer-leader-election/,
    );
  });

  it('says a refused request is granted by no binding, and shows the binding that names another account', async () => {
    const refused = await call({
      serviceAccount: { namespace: 'delivery', name: 'canary-analyzer' },
      check: { verb: 'list', resource: 'pods', namespace: 'storefront' },
    });
    assert.ok(refused.ok, refused.content);
    assert.equal((refused.data as RoleBindingsData).access?.allowed, false);
    assert.match(refused.content, /can-i list pods in namespace storefront: no/);
    // The near miss: the binding in storefront names an account of the same name in namespace default.
    assert.deepEqual(
      (refused.data as RoleBindingsData).sameNameElsewhere?.map((binding) => `${binding.namespace}/${binding.name}`),
      ['storefront/canary-analyzer-target'],
    );
    assert.match(
      refused.content,
      /near miss: RoleBinding storefront\/canary-analyzer-target -> Role canary-analyzer-target; subjects ServiceAccount default\/canary-analyzer/,
    );
    const namespace = await call({ namespace: 'storefront' });
    assert.ok(namespace.ok, namespace.content);
    assert.match(
      namespace.content,
      /RoleBinding storefront\/canary-analyzer-target -> Role canary-analyzer-target; subjects ServiceAccount default\/canary-analyzer/,
    );
  });

  it('answers a service account that does not exist with the ones that do', async () => {
    const result = await call({ serviceAccount: { namespace: 'delivery', name: 'canary-analyser' } });
    assert.equal(result.ok, false);
    assert.match(
      result.content,
      /not-found: service account "canary-analyser" does not exist in namespace "delivery"; it has: .*canary-analyzer/,
    );
  });

  it('asks for a namespace or an account rather than reading every binding of the cluster', async () => {
    const result = await call({});
    assert.equal(result.ok, false);
    assert.match(result.content, /give namespace .* or serviceAccount/);
  });
});

describe('list_role_bindings: a subject whose name is misspelt', () => {
  let mock: MockCluster;
  let call: (input: Record<string, unknown>) => Promise<ToolResult>;
  before(async () => {
    mock = await startMockCluster({
      scenario: join(import.meta.dirname, '..', 'mock-cluster', 'scenarios', 'dataops-pipelines-stalled'),
    });
    const cluster = createKubeCluster({ kubeconfigPath: mock.kubeconfigPath, retries: 1, retryBaseDelayMs: 5 });
    call = (input) =>
      callThroughGate({
        registry,
        name: 'list_role_bindings',
        input,
        context: { cluster, signal: AbortSignal.timeout(20_000), outputBudgetBytes: 16_384 },
      });
  });
  after(() => mock.close());

  it('names the binding whose subject is the account a letter off, an account that does not exist', async () => {
    const result = await call({
      serviceAccount: { namespace: 'dataops', name: 'pipeline-runner' },
      check: { verb: 'list', resource: 'jobs', apiGroup: 'batch', namespace: 'dataops' },
    });
    assert.ok(result.ok, result.content);
    const data = result.data as RoleBindingsData;
    assert.equal(data.access?.allowed, false);
    assert.deepEqual(
      data.similarName?.map((binding) => `${binding.namespace}/${binding.name} ${binding.subject}`),
      ['dataops/pipeline-runner-jobs ServiceAccount dataops/pipline-runner'],
    );
    assert.match(
      result.content,
      /near miss: RoleBinding dataops\/pipeline-runner-jobs -> Role \S+ binds ServiceAccount dataops\/pipline-runner, a name 1 letter\(s\) off "pipeline-runner"/,
    );
  });

  it('counter-example: a near name that is another existing account is no typo', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'kubewhy-rbac-'));
    writeFileSync(
      join(directory, 'scenario.yaml'),
      'name: rbac-near-names\nnow: "2026-11-01T10:00:00Z"\ntrigger:\n  incident: "billing-v2 is refused"\n',
    );
    writeFileSync(
      join(directory, 'cluster.yaml'),
      [
        'apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: billing-v1, namespace: billing}',
        'apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: billing-v2, namespace: billing}',
        'apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: reader, namespace: billing}\nrules: [{apiGroups: [""], resources: [pods], verbs: [list]}]',
        'apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {name: billing-v1-reader, namespace: billing}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader}\nsubjects: [{kind: ServiceAccount, name: billing-v1, namespace: billing}]',
      ].join('\n---\n'),
    );
    const near = await startMockCluster({ scenario: directory });
    try {
      const cluster = createKubeCluster({ kubeconfigPath: near.kubeconfigPath, retries: 1, retryBaseDelayMs: 5 });
      const result = await callThroughGate({
        registry,
        name: 'list_role_bindings',
        input: { serviceAccount: { namespace: 'billing', name: 'billing-v2' } },
        context: { cluster, signal: AbortSignal.timeout(20_000), outputBudgetBytes: 16_384 },
      });
      assert.ok(result.ok, result.content);
      assert.equal((result.data as RoleBindingsData).similarName, undefined);
      assert.doesNotMatch(result.content, /near miss/);
    } finally {
      await near.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
