/**
 * `helm test`: the chart's test pod checks, through the Service, that kubewhy is ready and
 * serves its metrics. It is hardened like the service, selected by nothing, and its script
 * (run here with this Node against a local stand-in) passes or fails as it should.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { before, test } from 'node:test';
import { renderChart, runCommand } from './fixtures/helm-support/helm.ts';
import {
  filterByKind,
  findDeployment,
  findKubewhyContainer,
  isHelmHook,
  type Container,
  type KubernetesObject,
} from './fixtures/helm-support/objects.ts';

let objects: KubernetesObject[] = [];
let pod: KubernetesObject & {
  spec: { automountServiceAccountToken: boolean; securityContext: Record<string, unknown>; containers: Container[] };
};
let container: Container;

before(async () => {
  objects = await renderChart();
  const hook = filterByKind(objects, 'Pod').find(isHelmHook);
  assert.ok(hook, 'no helm test pod');
  pod = hook as typeof pod;
  const [first] = pod.spec.containers;
  assert.ok(first);
  container = first;
});

/** A stand-in for kubewhy answering /readyz and /metrics as told; closed by the caller. */
async function startStandIn(answers: {
  readyStatus: number;
  metrics: string;
}): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    if (request.url === '/readyz') response.writeHead(answers.readyStatus).end('{}');
    else if (request.url === '/metrics') response.writeHead(200, { 'Content-Type': 'text/plain' }).end(answers.metrics);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** Runs the pod's arguments with this Node (the image's entry point) against a stand-in. */
async function runCheck(answers: { readyStatus: number; metrics: string }): Promise<number> {
  const { url, server } = await startStandIn(answers);
  try {
    const result = await runCommand(process.execPath, container.args ?? [], {
      env: { ...process.env, KUBEWHY_URL: url },
    });
    return result.code;
  } finally {
    server.close();
  }
}

test('is a test hook, hardened like the service, without a service account token', () => {
  assert.equal(pod.metadata.annotations?.['helm.sh/hook'], 'test');
  assert.equal(pod.spec.automountServiceAccountToken, false);
  assert.equal(pod.spec.securityContext['runAsNonRoot'], true);
  assert.deepEqual(container.securityContext, findKubewhyContainer(findDeployment(objects)).securityContext);
  assert.equal(container.image, findKubewhyContainer(findDeployment(objects)).image);
});

test('is selected by nothing: the Service must never send it traffic', () => {
  const selector = findDeployment(objects).spec.selector.matchLabels;
  const selected = Object.entries(selector).every(([key, value]) => pod.metadata.labels?.[key] === value);
  assert.ok(!selected);
});

test('goes through the Service', () => {
  assert.deepEqual(container.env, [{ name: 'KUBEWHY_URL', value: 'http://kubewhy.kubewhy.svc:8080' }]);
});

test('passes when kubewhy is ready and serves its metrics', async () => {
  assert.equal(await runCheck({ readyStatus: 200, metrics: 'kubewhy_build_info{version="0.1.0"} 1\n' }), 0);
});

test('fails when kubewhy is not ready', async () => {
  assert.notEqual(await runCheck({ readyStatus: 503, metrics: 'kubewhy_build_info{version="0.1.0"} 1\n' }), 0);
});

test("fails when the metrics are not kubewhy's", async () => {
  assert.notEqual(await runCheck({ readyStatus: 200, metrics: 'up 1\n' }), 0);
});
