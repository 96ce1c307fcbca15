/**
 * The chart's notification settings and the console's Ingress: the notifications file it
 * renders is one the service loads, credentials reach the pod only as files of an existing
 * Secret, and the Ingress publishes the console's paths, never the API or the webhook.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { loadNotifications } from '../src/notify/notify-config.ts';
import { renderChart, templateChart, type ChartValues } from './fixtures/helm-support/helm.ts';
import { findAllSchemaProblems } from './fixtures/helm-support/kubernetes-schema.ts';
import {
  filterByKind,
  findDeployment,
  findKubewhyContainer,
  type KubernetesObject,
} from './fixtures/helm-support/objects.ts';

const notifications: ChartValues = {
  notifications: {
    enabled: true,
    existingSecret: 'kubewhy-notify',
    destinations: [
      { name: 'oncall', type: 'slack-bot', channel: '#oncall', token: { file: '/etc/kubewhy/notify/slack-bot-token' } },
      { name: 'team', type: 'slack-webhook', url: { file: '/etc/kubewhy/notify/slack-webhook-url' } },
      { name: 'platform', type: 'teams', url: { file: '/etc/kubewhy/notify/teams-url' } },
      {
        name: 'tickets',
        type: 'webhook',
        url: 'https://tickets.example.com/hook',
        secret: { file: '/etc/kubewhy/notify/hook-secret' },
      },
    ],
    routes: [
      { match: { namespaces: ['prod', 'payments-*'], severities: ['critical'] }, to: ['oncall', 'platform'] },
      { match: { events: ['approval'] }, to: ['oncall'] },
      { to: ['team', 'tickets'] },
    ],
    delivery: { backoffSeconds: 10, maxAgeHours: 48 },
  },
  console: {
    ingress: { enabled: true, className: 'nginx', host: 'kubewhy.example.com', tlsSecretName: 'kubewhy-tls' },
  },
};

function configMap(objects: KubernetesObject[]): string {
  const found = filterByKind(objects, 'ConfigMap').find((object) => object.metadata.name.endsWith('-notifications'));
  assert.ok(found, 'no notifications ConfigMap');
  return (found as KubernetesObject & { data: Record<string, string> }).data['notifications.yaml']!;
}

function environmentOf(objects: KubernetesObject[]): Record<string, string | undefined> {
  return Object.fromEntries(
    (findKubewhyContainer(findDeployment(objects)).env ?? []).map((variable) => [variable.name, variable.value]),
  );
}

describe('notifications', () => {
  test('off by default: no ConfigMap, no setting, no Ingress', async () => {
    const objects = await renderChart();
    assert.deepEqual(filterByKind(objects, 'ConfigMap'), []);
    assert.deepEqual(filterByKind(objects, 'Ingress'), []);
    const environment = environmentOf(objects);
    assert.equal(environment['KUBEWHY_NOTIFICATIONS_FILE'], undefined);
    assert.equal(environment['KUBEWHY_CONSOLE_URL'], undefined);
  });

  test('the rendered notifications file is one the service loads, once the Secret’s files are there', async () => {
    const text = configMap(await renderChart({ values: notifications }));
    const directory = mkdtempSync(join(tmpdir(), 'kubewhy-helm-notify-'));
    try {
      for (const [key, value] of Object.entries({
        'slack-bot-token': 'xoxb-1-2-abc',
        'slack-webhook-url': 'https://hooks.slack.com/services/T1/B1/abc',
        'teams-url': 'https://example.webhook.office.com/w',
        'hook-secret': 'a-long-signing-secret',
      })) {
        writeFileSync(join(directory, key), value);
      }
      const path = join(directory, 'notifications.yaml');
      // The same file, with the Secret's mount point where this test keeps the files.
      writeFileSync(path, text.replaceAll('/etc/kubewhy/notify/', `${directory}/`));
      const settings = loadNotifications(path, { environment: {} });
      assert.deepEqual(
        settings.channels.map((channel) => `${channel.name}:${channel.kind}`),
        ['oncall:slack-bot', 'team:slack-webhook', 'platform:teams', 'tickets:webhook'],
      );
      assert.equal(settings.routes.length, 3);
      assert.deepEqual(settings.delivery, { backoffMs: 10_000, backoffMaxMs: 300_000, maxAgeMs: 48 * 3_600_000 });
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  test('the pod reads the file and the Secret as files, rolls when the file changes, and links to the console', async () => {
    const objects = await renderChart({ values: notifications });
    const deployment = findDeployment(objects);
    const environment = environmentOf(objects);
    assert.equal(environment['KUBEWHY_NOTIFICATIONS_FILE'], '/etc/kubewhy/notifications/notifications.yaml');
    assert.equal(environment['KUBEWHY_CONSOLE_URL'], 'https://kubewhy.example.com');
    const mounts = findKubewhyContainer(deployment).volumeMounts ?? [];
    assert.deepEqual(
      mounts
        .filter((mount) => mount.mountPath.startsWith('/etc/kubewhy/notif'))
        .map((mount) => [mount.name, mount.mountPath, mount.readOnly]),
      [
        ['notifications', '/etc/kubewhy/notifications', true],
        ['notify-credentials', '/etc/kubewhy/notify', true],
      ],
    );
    const volumes = (deployment.spec.template.spec as { volumes: { name: string; secret?: { secretName: string } }[] })
      .volumes;
    assert.equal(volumes.find((volume) => volume.name === 'notify-credentials')?.secret?.secretName, 'kubewhy-notify');
    const annotations =
      (deployment.spec.template.metadata as { annotations?: Record<string, string> }).annotations ?? {};
    assert.match(annotations['checksum/notifications'] ?? '', /^[0-9a-f]{64}$/);
    const changed = findDeployment(
      await renderChart({
        values: {
          ...notifications,
          notifications: { ...(notifications.notifications as object), routes: [{ to: ['tickets'] }] },
        },
      }),
    );
    assert.notEqual(
      (changed.spec.template.metadata as { annotations: Record<string, string> }).annotations['checksum/notifications'],
      annotations['checksum/notifications'],
    );
  });

  test('no credential value is ever in a rendered object', async () => {
    const result = await templateChart({ values: notifications });
    assert.equal(result.code, 0, result.stderr);
    assert.doesNotMatch(result.stdout, /xoxb-|hooks\.slack\.com|webhook\.office\.com/);
  });

  test('every object is valid against the Kubernetes API schemas', async () => {
    assert.deepEqual(await findAllSchemaProblems(await renderChart({ values: notifications })), []);
  });

  const refusals: { name: string; values: ChartValues; message: RegExp }[] = [
    {
      name: 'turned on with nowhere to send',
      values: { notifications: { enabled: true } },
      message: /notifications\/destinations': minItems/,
    },
    {
      name: 'a credential given as its value',
      values: {
        notifications: {
          enabled: true,
          destinations: [{ name: 'a', type: 'slack-bot', channel: '#x', token: 'xoxb-1-2-abc' }],
          routes: [{ to: ['a'] }],
        },
      },
      message: /notifications\/destinations\/0/,
    },
    {
      name: 'a route to a destination that does not exist',
      values: {
        notifications: {
          enabled: true,
          existingSecret: 's',
          destinations: [{ name: 'a', type: 'teams', url: { file: '/etc/kubewhy/notify/a' } }],
          routes: [{ to: ['b'] }],
        },
      },
      message: /notifications\.routes\[0\]\.to names "b", which is not among notifications\.destinations \(a\)/,
    },
    {
      name: 'credential files without the Secret that holds them',
      values: {
        notifications: {
          enabled: true,
          destinations: [{ name: 'a', type: 'teams', url: { file: '/etc/kubewhy/notify/a' } }],
          routes: [{ to: ['a'] }],
        },
      },
      message: /set notifications\.existingSecret/,
    },
    {
      name: 'the managed setting through extraEnv',
      values: { extraEnv: [{ name: 'KUBEWHY_NOTIFICATIONS_FILE', value: '/x' }] },
      message: /extraEnv sets KUBEWHY_NOTIFICATIONS_FILE/,
    },
  ];
  for (const refusal of refusals) {
    test(`helm refuses ${refusal.name}`, async () => {
      const result = await templateChart({ values: refusal.values });
      assert.notEqual(result.code, 0);
      assert.match(result.stderr, refusal.message);
    });
  }
});

describe('the console Ingress', () => {
  test('publishes the console’s paths only, with TLS', async () => {
    const [ingress] = filterByKind(await renderChart({ values: notifications }), 'Ingress') as (KubernetesObject & {
      spec: {
        ingressClassName: string;
        tls: unknown[];
        rules: { host: string; http: { paths: { path: string; pathType: string }[] } }[];
      };
    })[];
    assert.ok(ingress);
    assert.equal(ingress.spec.ingressClassName, 'nginx');
    assert.deepEqual(ingress.spec.tls, [{ hosts: ['kubewhy.example.com'], secretName: 'kubewhy-tls' }]);
    const paths = ingress.spec.rules[0]!.http.paths.map((path) => `${path.pathType} ${path.path}`);
    assert.deepEqual(paths, ['Exact /', 'Exact /login', 'Exact /logout', 'Prefix /runs', 'Prefix /console']);
    assert.ok(!paths.some((path) => /\/v1|\/metrics|alertmanager/.test(path)));
  });

  test('without TLS the console URL the messages link to is http, and an explicit one wins', async () => {
    const plain = environmentOf(
      await renderChart({ values: { console: { ingress: { enabled: true, host: 'kubewhy.lab' } } } }),
    );
    assert.equal(plain['KUBEWHY_CONSOLE_URL'], 'http://kubewhy.lab');
    const explicit = environmentOf(
      await renderChart({
        values: {
          ...notifications,
          notifications: { ...(notifications.notifications as object), consoleUrl: 'https://sre.example.com/kubewhy' },
        },
      }),
    );
    assert.equal(explicit['KUBEWHY_CONSOLE_URL'], 'https://sre.example.com/kubewhy');
  });
});
