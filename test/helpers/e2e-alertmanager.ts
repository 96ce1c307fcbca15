/**
 * A real Alertmanager (Debian's `prometheus-alertmanager`) that routes each alert to one
 * of several kubewhy webhooks by its `cluster` label: lane N's receiver gets the alerts
 * whose cluster matches lane N's pattern. Otherwise configured as the service tests'
 * Alertmanager (test/helpers/service-alertmanager.ts): a bearer token read from a file, no
 * clustering, loopback only, one notification per alert (`group_by: ['...']`) sent without
 * a group wait.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { findFreePort } from './ports.ts';
import { pollUntil } from './service-process.ts';
import { ALERTMANAGER_BINARY, type Alertmanager } from './service-alertmanager.ts';

export interface AlertRoute {
  /** A regular expression the alert's `cluster` label must match in full. */
  clusterPattern: string;
  webhookUrl: string;
}

/** Starts Alertmanager with one receiver per route; an alert that matches no route goes to the first. */
export async function startRoutingAlertmanager(input: { directory: string; routes: AlertRoute[]; credentialsFile: string }): Promise<Alertmanager> {
  const first = input.routes[0];
  if (!first) throw new Error('an Alertmanager needs at least one route');
  await mkdir(input.directory, { recursive: true });
  const receiver = (route: AlertRoute, index: number): unknown => ({
    name: `kubewhy-${index}`,
    webhook_configs: [{ url: route.webhookUrl, send_resolved: true, http_config: { authorization: { type: 'Bearer', credentials_file: input.credentialsFile } } }],
  });
  const configPath = join(input.directory, 'alertmanager.yml');
  await writeFile(
    configPath,
    stringify({
      route: {
        receiver: 'kubewhy-0',
        group_by: ['...'],
        group_wait: '0s',
        group_interval: '1s',
        repeat_interval: '2s',
        routes: input.routes.map((route, index) => ({ receiver: `kubewhy-${index}`, matchers: [`cluster=~"${route.clusterPattern}"`] })),
      },
      receivers: input.routes.map(receiver),
    }),
  );
  const port = await findFreePort();
  const child: ChildProcess = spawn(
    ALERTMANAGER_BINARY,
    [`--config.file=${configPath}`, `--storage.path=${join(input.directory, 'alertmanager-data')}`, `--web.listen-address=127.0.0.1:${port}`, '--cluster.listen-address=', '--log.level=warn'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = once(child, 'exit');
  // Should the test process end without stop(), Alertmanager ends with it.
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const url = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    process.off('exit', killOnExit);
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await exited;
  };
  try {
    await pollUntil(
      async () => {
        if (child.exitCode !== null) throw new Error(`alertmanager exited with ${child.exitCode}:\n${output}`);
        const response = await fetch(`${url}/-/ready`).catch(() => undefined);
        return response?.ok ? true : undefined;
      },
      { timeoutMs: 20_000, what: 'alertmanager to be ready', intervalMs: 50 },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url,
    async postAlerts(alerts) {
      const response = await fetch(`${url}/api/v2/alerts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(alerts) });
      if (!response.ok) throw new Error(`alertmanager refused the alerts: ${response.status} ${await response.text()}`);
    },
    output: () => output,
    stop,
  };
}
