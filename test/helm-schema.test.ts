/**
 * Everything the chart renders, in the configurations SREs install, is valid against the
 * Kubernetes API schemas of a current release (kubernetes-models, offline) and has no
 * field the API would drop as unknown.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { renderChart, type ChartValues } from './fixtures/helm-support/helm.ts';
import { findAllSchemaProblems, findSchemaProblems } from './fixtures/helm-support/kubernetes-schema.ts';
import { describeObject, findDeployment, type DeploymentObject } from './fixtures/helm-support/objects.ts';

const configurations: Record<string, ChartValues> = {
  'default values': {},
  'ACT enabled for two namespaces': { act: { enabled: true, namespaces: ['staging', 'shop'] } },
  'narrowed namespaces with Secret keys': {
    config: { allowedNamespaces: ['staging', 'shop'] },
    act: { enabled: true, namespaces: ['staging'] },
    rbac: { secretKeys: true },
  },
  'every optional object turned on': {
    anthropic: {
      apiKey: 'sk-ant-test-key-0123456789',
      model: 'claude-sonnet-4-5',
      baseUrl: 'https://gateway.example.com',
    },
    auth: {
      tokens: {
        ingest: ['ingest-token-0123456789', 'ingest-token-9876543210'],
        read: ['read-token-0123456789'],
        approve: ['approve-token-0123456789'],
      },
    },
    serviceMonitor: { enabled: true },
    prometheusRule: { enabled: true },
    networkPolicy: {
      enabled: true,
      ingressFrom: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }],
      egress: { restrict: true },
    },
    podDisruptionBudget: { enabled: true },
    persistence: { storageClassName: 'fast', annotations: { 'helm.sh/resource-policy': 'keep' } },
    extraEnv: [{ name: 'HTTPS_PROXY', value: 'http://proxy.internal:3128' }],
    imagePullSecrets: [{ name: 'registry' }],
    tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'tools', effect: 'NoSchedule' }],
  },
  'emptyDir, existing Secrets and platform-assigned ids': {
    persistence: { type: 'emptyDir' },
    anthropic: { existingSecret: 'anthropic', existingSecretKey: 'api-key' },
    auth: { existingSecret: 'kubewhy-tokens-from-vault' },
    securityContext: { runAsUser: null, runAsGroup: null, fsGroup: null },
    preStopSleepSeconds: 0,
  },
};

describe('rendered objects are valid Kubernetes objects', () => {
  for (const [name, values] of Object.entries(configurations)) {
    test(`with ${name}`, async () => {
      const objects = await renderChart({ values });
      assert.ok(
        objects.some((object) => object.kind === 'Deployment'),
        'no Deployment rendered',
      );
      assert.deepEqual(await findAllSchemaProblems(objects), []);
    });
  }

  test('every optional kind is rendered when turned on, and validated with its own schema', async () => {
    const objects = await renderChart({ values: configurations['every optional object turned on'] ?? {} });
    const kinds = new Set(objects.map((object) => object.kind));
    for (const kind of [
      'ServiceMonitor',
      'PrometheusRule',
      'NetworkPolicy',
      'PodDisruptionBudget',
      'Secret',
      'PersistentVolumeClaim',
    ]) {
      assert.ok(kinds.has(kind), `no ${kind} among ${[...kinds].join(', ')}`);
    }
  });
});

describe('the validator has teeth', () => {
  const renderDeploymentCopy = async (): Promise<DeploymentObject> =>
    structuredClone(findDeployment(await renderChart()));

  test('rejects a field of the wrong type', async () => {
    const deployment = await renderDeploymentCopy();
    const port = deployment.spec.template.spec.containers[0]?.ports?.[0];
    assert.ok(port);
    (port as { containerPort: unknown }).containerPort = 'eight thousand';
    const problems = await findSchemaProblems(deployment);
    assert.match(problems.join('\n'), /containerPort must be integer/);
  });

  test('rejects a misspelt field that the API would drop silently', async () => {
    const deployment = await renderDeploymentCopy();
    const container = deployment.spec.template.spec.containers[0];
    assert.ok(container?.securityContext);
    container.securityContext['readOnlyRootFileSystem'] = true;
    const problems = await findSchemaProblems(deployment);
    assert.match(problems.join('\n'), /securityContext\.readOnlyRootFileSystem: unknown field/);
  });

  test('rejects a kind the API does not serve', async () => {
    const problems = await findSchemaProblems({ apiVersion: 'apps/v1', kind: 'Deploymnt', metadata: { name: 'x' } });
    assert.deepEqual(problems, ['Deploymnt/x: no schema for apps/v1 Deploymnt']);
  });

  test('names the object in each problem', async () => {
    const deployment = await renderDeploymentCopy();
    delete (deployment.spec as { selector?: unknown }).selector;
    const [problem] = await findSchemaProblems(deployment);
    assert.ok(problem?.startsWith(`${describeObject(deployment)}: `), problem);
    assert.match(problem ?? '', /must have required property selector/);
  });
});
