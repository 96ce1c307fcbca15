/**
 * deploy/alertmanager.yml is a configuration Alertmanager accepts (amtool check-config)
 * and that reaches kubewhy's webhook as the service expects: the ingest route, a bearer
 * token read from a file, resolved notices, and the other receivers kept.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { repositoryRoot, runCommand } from './fixtures/helm-support/helm.ts';
import { findSystemTool } from './fixtures/helm-support/system-tools.ts';

const configPath = join(repositoryRoot, 'deploy', 'alertmanager.yml');

interface Route {
  receiver?: string;
  continue?: boolean;
  routes?: Route[];
}

interface AlertmanagerConfig {
  route: Route;
  receivers: { name: string; webhook_configs?: Record<string, unknown>[] }[];
}

async function readConfig(): Promise<AlertmanagerConfig> {
  return parse(await readFile(configPath, 'utf8')) as AlertmanagerConfig;
}

test('amtool check-config accepts it', async () => {
  const result = await runCommand(findSystemTool('amtool'), ['check-config', configPath]);
  assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
  assert.match(result.stdout, /SUCCESS/);
});

test('the kubewhy receiver posts to the Alertmanager webhook route with send_resolved', async () => {
  const config = await readConfig();
  const receiver = config.receivers.find((candidate) => candidate.name === 'kubewhy');
  const webhooks = receiver?.webhook_configs ?? [];
  assert.equal(webhooks.length, 1);
  const [webhook] = webhooks;
  assert.match(String(webhook?.['url']), /^http:\/\/kubewhy\.kubewhy\.svc:8080\/v1\/alerts\/alertmanager$/);
  assert.equal(webhook?.['send_resolved'], true);
});

test('the bearer token comes from credentials_file, never inline', async () => {
  const text = await readFile(configPath, 'utf8');
  const [webhook] =
    (await readConfig()).receivers.find((candidate) => candidate.name === 'kubewhy')?.webhook_configs ?? [];
  const httpConfig = webhook?.['http_config'] as { authorization?: Record<string, string> } | undefined;
  assert.deepEqual(httpConfig?.authorization, {
    type: 'Bearer',
    credentials_file: '/etc/alertmanager/secrets/kubewhy-ingest/token',
  });
  assert.doesNotMatch(text, /^\s*(credentials|bearer_token|password):/m);
});

test('alerts go on to the other receivers after kubewhy (continue: true)', async () => {
  const { route } = await readConfig();
  assert.notEqual(route.receiver, 'kubewhy', 'kubewhy is not the only receiver');
  const kubewhyRoute = route.routes?.find((candidate) => candidate.receiver === 'kubewhy');
  assert.equal(kubewhyRoute?.continue, true);
  assert.equal(
    route.routes?.[0],
    kubewhyRoute,
    'the kubewhy route comes first, so that later routes cannot stop alerts before it',
  );
});
