/**
 * deploy/ is the chart's default install without Helm: `kubectl kustomize deploy/`
 * renders, its objects are valid Kubernetes objects, and they equal what the chart
 * renders with default values for release "kubewhy" in namespace "kubewhy".
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { ensureKubectl } from '../scripts/binaries.ts';
import { renderChart, repositoryRoot, runCommand } from './fixtures/helm-support/helm.ts';
import { findAllSchemaProblems } from './fixtures/helm-support/kubernetes-schema.ts';
import {
  describeObject,
  findDeployment,
  isHelmHook,
  parseManifests,
  type KubernetesObject,
} from './fixtures/helm-support/objects.ts';

let manifests: KubernetesObject[] = [];

before(async () => {
  const result = await runCommand(await ensureKubectl(), ['kustomize', join(repositoryRoot, 'deploy')]);
  assert.equal(result.code, 0, `kubectl kustomize deploy/ failed:\n${result.stderr}`);
  manifests = parseManifests(result.stdout);
});

/** The object without what legitimately differs between Helm and kustomize: labels and annotations. */
function stripLabelsAndAnnotations(object: KubernetesObject): KubernetesObject {
  const copy = structuredClone(object);
  delete copy.metadata.labels;
  delete copy.metadata.annotations;
  const template = (
    copy['spec'] as { template?: { metadata?: { labels?: unknown; annotations?: unknown } } } | undefined
  )?.template;
  if (template?.metadata) {
    delete template.metadata.labels;
    delete template.metadata.annotations;
  }
  return copy;
}

test('kubectl kustomize deploy/ renders the namespace, RBAC, service, claim and deployment', () => {
  assert.deepEqual(manifests.map(describeObject).sort(), [
    'ClusterRole/kubewhy-read',
    'ClusterRole/kubewhy-read-cluster',
    'ClusterRoleBinding/kubewhy-read',
    'ClusterRoleBinding/kubewhy-read-cluster',
    'Deployment/kubewhy/kubewhy',
    'Namespace/kubewhy',
    'PersistentVolumeClaim/kubewhy/kubewhy-data',
    'Service/kubewhy/kubewhy',
    'ServiceAccount/kubewhy/kubewhy',
  ]);
});

test('every object is valid against the Kubernetes schemas', async () => {
  assert.deepEqual(await findAllSchemaProblems(manifests), []);
});

test('the objects equal the chart defaults, but for labels, annotations and the tokens Secret the user creates (and the helm test pod)', async () => {
  const chart = await renderChart({ releaseName: 'kubewhy', namespace: 'kubewhy' });
  const chartObjects = chart.filter((object) => object.kind !== 'Secret' && !isHelmHook(object));
  const plainObjects = manifests.filter((object) => object.kind !== 'Namespace');
  assert.deepEqual(plainObjects.map(describeObject).sort(), chartObjects.map(describeObject).sort());
  for (const plain of plainObjects) {
    const fromChart = chartObjects.find((object) => describeObject(object) === describeObject(plain));
    assert.ok(fromChart);
    assert.deepEqual(
      stripLabelsAndAnnotations(plain),
      stripLabelsAndAnnotations(fromChart),
      `${describeObject(plain)} differs from the chart`,
    );
  }
  const tokens = findDeployment(chart).spec.template.spec.volumes?.find((volume) => volume.name === 'tokens');
  assert.equal(tokens?.secret?.secretName, 'kubewhy-tokens', 'deploy/README.md tells users to create this Secret');
});

test('the pod template carries the labels the Service and Deployment select', () => {
  const deployment = findDeployment(manifests);
  const selector = deployment.spec.selector.matchLabels;
  for (const [key, value] of Object.entries(selector))
    assert.equal(deployment.spec.template.metadata.labels[key], value);
});

test('the namespace enforces the restricted Pod Security Standard', () => {
  const namespace = manifests.find((object) => object.kind === 'Namespace');
  assert.equal(namespace?.metadata.labels?.['pod-security.kubernetes.io/enforce'], 'restricted');
});
