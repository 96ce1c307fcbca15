/**
 * The pod the chart runs: hardened security contexts, health probes, graceful
 * termination, a writable volume for SQLite, credentials only through Secrets, and
 * settings the service itself accepts.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { loadConfig } from '../src/config.ts';
import { renderChart } from './fixtures/helm-support/helm.ts';
import {
  describeObject,
  filterByKind,
  findDeployment,
  findKubewhyContainer,
  type KubernetesObject,
} from './fixtures/helm-support/objects.ts';

const API_KEY = 'sk-ant-api03-test-key-0123456789abcdef';
const TOKENS = {
  ingest: ['ingest-token-aaaaaaaaaaaaaaaa'],
  read: ['read-token-bbbbbbbbbbbbbbbbbb'],
  approve: ['approve-token-cccccccccccccccc'],
};
const withCredentials = { anthropic: { apiKey: API_KEY }, auth: { tokens: TOKENS } };

function decodeSecret(object: KubernetesObject): Record<string, string> {
  const data = (object['data'] ?? {}) as Record<string, string>;
  return Object.fromEntries(
    Object.entries(data).map(([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')]),
  );
}

function findSecret(objects: KubernetesObject[], name: string): KubernetesObject {
  const secret = filterByKind(objects, 'Secret').find((candidate) => candidate.metadata.name === name);
  assert.ok(secret, `no Secret ${name}`);
  return secret;
}

describe('security contexts', () => {
  test('the pod runs as a non-root user with the RuntimeDefault seccomp profile', async () => {
    const pod = findDeployment(await renderChart()).spec.template.spec;
    assert.deepEqual(pod.securityContext, {
      runAsNonRoot: true,
      runAsUser: 65532,
      runAsGroup: 65532,
      fsGroup: 65532,
      fsGroupChangePolicy: 'OnRootMismatch',
      seccompProfile: { type: 'RuntimeDefault' },
    });
  });

  test('the container has a read-only root filesystem, no privilege escalation and every capability dropped', async () => {
    const container = findKubewhyContainer(findDeployment(await renderChart()));
    assert.deepEqual(container.securityContext, {
      runAsNonRoot: true,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      privileged: false,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
  });

  test('platform-assigned ids drop runAsUser, runAsGroup and fsGroup but keep the hardening', async () => {
    const objects = await renderChart({
      values: { securityContext: { runAsUser: null, runAsGroup: null, fsGroup: null } },
    });
    const pod = findDeployment(objects).spec.template.spec;
    assert.deepEqual(pod.securityContext, { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    assert.equal(findKubewhyContainer(findDeployment(objects)).securityContext?.['readOnlyRootFilesystem'], true);
    const tokens = pod.volumes?.find((volume) => volume.name === 'tokens');
    assert.equal(
      tokens?.secret?.defaultMode,
      0o444,
      'without fsGroup the token files must stay readable by the assigned user',
    );
  });
});

describe('health and lifecycle', () => {
  test('liveness and startup probe /healthz, readiness probes /readyz, on the http port', async () => {
    const container = findKubewhyContainer(findDeployment(await renderChart()));
    assert.deepEqual(container.livenessProbe?.httpGet, { path: '/healthz', port: 'http' });
    assert.deepEqual(container.startupProbe?.httpGet, { path: '/healthz', port: 'http' });
    assert.deepEqual(container.readinessProbe?.httpGet, { path: '/readyz', port: 'http' });
    assert.deepEqual(container.ports, [{ name: 'http', containerPort: 8080, protocol: 'TCP' }]);
  });

  test('terminates gracefully: a drain pause before SIGTERM, inside the grace period', async () => {
    const deployment = findDeployment(await renderChart());
    const container = findKubewhyContainer(deployment);
    assert.deepEqual(container.lifecycle, { preStop: { sleep: { seconds: 5 } } });
    // The grace period counts from the start of preStop: the service keeps 55 s to drain.
    assert.equal(deployment.spec.template.spec.terminationGracePeriodSeconds, 60);
  });

  test('sets requests and a memory limit', async () => {
    const container = findKubewhyContainer(findDeployment(await renderChart()));
    assert.deepEqual(container.resources, { requests: { cpu: '100m', memory: '256Mi' }, limits: { memory: '512Mi' } });
  });

  test('runs the serve command of the image, whose entrypoint is kubewhy itself', async () => {
    assert.deepEqual(findKubewhyContainer(findDeployment(await renderChart())).args, ['serve']);
    // The args are a kubewhy command only while the images' entrypoint runs bin/kubewhy.js.
    for (const file of ['../deploy/image/Containerfile', '../deploy/Dockerfile']) {
      const entrypoint = /^ENTRYPOINT (\[.*\])$/m.exec(readFileSync(new URL(file, import.meta.url), 'utf8'))?.[1];
      assert.ok(entrypoint, `${file} has an ENTRYPOINT`);
      assert.match((JSON.parse(entrypoint) as string[]).at(-1) ?? '', /\/app\/bin\/kubewhy\.js$/, file);
    }
  });
});

describe('the SQLite volume', () => {
  test('by default a PersistentVolumeClaim is mounted at the data dir, and upgrades recreate the pod', async () => {
    const objects = await renderChart();
    const deployment = findDeployment(objects);
    const data = deployment.spec.template.spec.volumes?.find((volume) => volume.name === 'data');
    assert.deepEqual(data?.persistentVolumeClaim, { claimName: 'kubewhy-data' });
    assert.ok(filterByKind(objects, 'PersistentVolumeClaim').some((claim) => claim.metadata.name === 'kubewhy-data'));
    const container = findKubewhyContainer(deployment);
    assert.ok(
      container.volumeMounts?.some(
        (mount) => mount.name === 'data' && mount.mountPath === '/var/lib/kubewhy' && !mount.readOnly,
      ),
    );
    assert.equal(container.env?.find((variable) => variable.name === 'KUBEWHY_DATA_DIR')?.value, '/var/lib/kubewhy');
    assert.equal(deployment.spec.strategy?.type, 'Recreate');
    assert.equal(deployment.spec.replicas, 1);
  });

  test('persistence.type=emptyDir uses a bounded emptyDir and creates no claim', async () => {
    const objects = await renderChart({ values: { persistence: { type: 'emptyDir' } } });
    const data = findDeployment(objects).spec.template.spec.volumes?.find((volume) => volume.name === 'data');
    assert.deepEqual(data?.emptyDir, { sizeLimit: '1Gi' });
    assert.deepEqual(filterByKind(objects, 'PersistentVolumeClaim'), []);
  });

  test('an existing claim is used as is', async () => {
    const objects = await renderChart({ values: { persistence: { existingClaim: 'kubewhy-audit' } } });
    const data = findDeployment(objects).spec.template.spec.volumes?.find((volume) => volume.name === 'data');
    assert.deepEqual(data?.persistentVolumeClaim, { claimName: 'kubewhy-audit' });
    assert.deepEqual(filterByKind(objects, 'PersistentVolumeClaim'), []);
  });

  test('/tmp is the only other writable path', async () => {
    const container = findKubewhyContainer(findDeployment(await renderChart()));
    const writable = (container.volumeMounts ?? []).filter((mount) => !mount.readOnly).map((mount) => mount.mountPath);
    assert.deepEqual(writable.sort(), ['/tmp', '/var/lib/kubewhy']);
  });
});

describe('credentials reach the pod only through Secrets', () => {
  test('the API key comes from a secretKeyRef and the tokens from a mounted Secret', async () => {
    const objects = await renderChart({ values: withCredentials });
    const deployment = findDeployment(objects);
    const container = findKubewhyContainer(deployment);
    const apiKey = container.env?.find((variable) => variable.name === 'ANTHROPIC_API_KEY');
    assert.deepEqual(apiKey, {
      name: 'ANTHROPIC_API_KEY',
      valueFrom: { secretKeyRef: { name: 'kubewhy-anthropic', key: 'anthropic-api-key' } },
    });
    assert.deepEqual(decodeSecret(findSecret(objects, 'kubewhy-anthropic')), { 'anthropic-api-key': API_KEY });

    const tokensDirectory = container.env?.find((variable) => variable.name === 'KUBEWHY_TOKENS_DIR')?.value;
    const mount = container.volumeMounts?.find((candidate) => candidate.mountPath === tokensDirectory);
    assert.ok(mount?.readOnly, 'the tokens directory is mounted read-only');
    const volume = deployment.spec.template.spec.volumes?.find((candidate) => candidate.name === mount.name);
    assert.equal(volume?.secret?.secretName, 'kubewhy-tokens');
    assert.deepEqual(decodeSecret(findSecret(objects, 'kubewhy-tokens')), {
      ingest: TOKENS.ingest[0],
      read: TOKENS.read[0],
      approve: TOKENS.approve[0],
    });
  });

  test('no object but a Secret holds the key or a token, in clear or base64', async () => {
    const objects = await renderChart({ values: withCredentials });
    const needles = [API_KEY, ...Object.values(TOKENS).flat()].flatMap((value) => [
      value,
      Buffer.from(value).toString('base64'),
    ]);
    for (const object of objects.filter((candidate) => candidate.kind !== 'Secret')) {
      const text = JSON.stringify(object);
      for (const needle of needles)
        assert.ok(!text.includes(needle), `${describeObject(object)} contains a credential`);
    }
    const container = findKubewhyContainer(findDeployment(objects));
    assert.equal(container.envFrom, undefined);
    assert.ok(
      !container.env?.some((variable) => /^KUBEWHY_TOKEN_/.test(variable.name)),
      'tokens are files, not variables',
    );
  });

  test('several tokens per scope are written one per line', async () => {
    const objects = await renderChart({
      values: { auth: { tokens: { ingest: ['first-ingest-token-000', 'second-ingest-token-00'] } } },
    });
    assert.equal(
      decodeSecret(findSecret(objects, 'kubewhy-tokens'))['ingest'],
      'first-ingest-token-000\nsecond-ingest-token-00',
    );
  });

  test('tokens not given are generated: long, random and different per scope', async () => {
    const secret = decodeSecret(findSecret(await renderChart(), 'kubewhy-tokens'));
    assert.deepEqual(Object.keys(secret).sort(), ['approve', 'ingest', 'read']);
    for (const token of Object.values(secret)) assert.match(token, /^[A-Za-z0-9]{48}$/);
    assert.equal(new Set(Object.values(secret)).size, 3);
  });

  test('existing Secrets are referenced and the chart creates none', async () => {
    const objects = await renderChart({
      values: {
        anthropic: { existingSecret: 'vault-anthropic', existingSecretKey: 'key' },
        auth: { existingSecret: 'vault-tokens' },
      },
    });
    assert.deepEqual(filterByKind(objects, 'Secret'), []);
    const deployment = findDeployment(objects);
    const container = findKubewhyContainer(deployment);
    assert.deepEqual(container.env?.find((variable) => variable.name === 'ANTHROPIC_API_KEY')?.valueFrom, {
      secretKeyRef: { name: 'vault-anthropic', key: 'key' },
    });
    assert.ok(deployment.spec.template.spec.volumes?.some((volume) => volume.secret?.secretName === 'vault-tokens'));
  });

  test('without a key there is no API key variable at all', async () => {
    const container = findKubewhyContainer(findDeployment(await renderChart()));
    assert.ok(!container.env?.some((variable) => variable.name === 'ANTHROPIC_API_KEY'));
  });
});

describe('settings', () => {
  test('the rendered environment is a configuration the service accepts, in cluster, with tokens', async () => {
    const objects = await renderChart({
      values: {
        ...withCredentials,
        act: { enabled: true, namespaces: ['staging', 'shop'] },
        config: { allowedNamespaces: ['staging', 'shop', 'payments'] },
      },
    });
    const anthropicSecret = decodeSecret(findSecret(objects, 'kubewhy-anthropic'));
    const environment: Record<string, string> = {};
    for (const variable of findKubewhyContainer(findDeployment(objects)).env ?? []) {
      const reference = variable.valueFrom?.secretKeyRef;
      environment[variable.name] = reference ? (anthropicSecret[reference.key] ?? '') : (variable.value ?? '');
    }
    const config = loadConfig(environment);
    assert.deepEqual(config.server, {
      host: '0.0.0.0',
      port: 8080,
      bodyLimitBytes: config.server.bodyLimitBytes,
      webhookBodyLimitBytes: 32 * 1024 * 1024,
    });
    assert.equal(config.cluster.mode, 'in-cluster');
    assert.equal(config.dataDir, '/var/lib/kubewhy');
    assert.equal(config.model.provider, 'anthropic');
    assert.deepEqual(config.auth, { mode: 'tokens', tokensDir: '/etc/kubewhy/tokens', tokens: {} });
    assert.deepEqual(config.policy, {
      actNamespaces: ['staging', 'shop'],
      allowedNamespaces: ['staging', 'shop', 'payments'],
      secretKeys: false,
    });
    assert.equal(config.runs.queueSize, 1000);
  });

  test('no service link variables reach the environment, where KUBEWHY_PORT=tcp://… would clash with the port setting', async () => {
    assert.equal(findDeployment(await renderChart()).spec.template.spec.enableServiceLinks, false);
  });

  test('the Service exposes the http port to the pod selected by stable labels', async () => {
    const objects = await renderChart();
    const [service] = filterByKind(objects, 'Service');
    assert.ok(service);
    const spec = service['spec'] as { selector: Record<string, string>; ports: unknown[] };
    assert.deepEqual(spec.ports, [{ name: 'http', port: 8080, targetPort: 'http', protocol: 'TCP' }]);
    assert.deepEqual(spec.selector, findDeployment(objects).spec.selector.matchLabels);
    assert.deepEqual(spec.selector, { 'app.kubernetes.io/name': 'kubewhy', 'app.kubernetes.io/instance': 'kubewhy' });
  });
});
