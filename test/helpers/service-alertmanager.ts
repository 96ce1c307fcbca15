/**
 * A real Alertmanager (Debian's `prometheus-alertmanager`) for end-to-end tests: a temp
 * configuration whose only receiver is kubewhy's webhook with a bearer token read from a
 * file, no clustering, loopback only, and short intervals so repeats and resolved
 * notifications arrive within a test.
 */
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pollUntil, spawnDaemon } from './service-process.ts';
import { findFreePort } from './ports.ts';

export const ALERTMANAGER_BINARY = '/usr/bin/prometheus-alertmanager';

export function hasAlertmanager(): boolean {
  return spawnSync(ALERTMANAGER_BINARY, ['--version']).status === 0;
}

export interface Alertmanager {
  url: string;
  /** POST /api/v2/alerts. */
  postAlerts(alerts: unknown[]): Promise<void>;
  /** GET /api/v2/alerts: the alerts it holds, with the fingerprints it gave them. */
  listAlerts(): Promise<{ labels: Record<string, string>; fingerprint: string }[]>;
  /** A sample of its own /metrics (the sum over label sets of `name` matching `labelFilter`). */
  metric(name: string, labelFilter?: RegExp): Promise<number>;
  output(): string;
  stop(): Promise<void>;
}

/** How Alertmanager groups alerts into notifications; the default sends each alert alone, at once, repeated every 2s. */
export interface GroupingOptions {
  /** Label names; `['...']` groups by every label (one alert a group), `[]` puts every alert in one group. */
  groupBy: string[];
  groupWait: string;
  groupInterval: string;
  repeatInterval: string;
}

const ONE_ALERT_A_GROUP: GroupingOptions = {
  groupBy: ['...'],
  groupWait: '0s',
  groupInterval: '1s',
  repeatInterval: '2s',
};

export async function startAlertmanager(input: {
  directory: string;
  webhookUrl: string;
  credentialsFile: string;
  grouping?: GroupingOptions;
}): Promise<Alertmanager> {
  const configPath = join(input.directory, 'alertmanager.yml');
  const grouping = input.grouping ?? ONE_ALERT_A_GROUP;
  await writeFile(
    configPath,
    [
      'route:',
      '  receiver: kubewhy',
      `  group_by: ${JSON.stringify(grouping.groupBy)}`,
      `  group_wait: ${grouping.groupWait}`,
      `  group_interval: ${grouping.groupInterval}`,
      `  repeat_interval: ${grouping.repeatInterval}`,
      'receivers:',
      '  - name: kubewhy',
      '    webhook_configs:',
      `      - url: ${input.webhookUrl}`,
      '        send_resolved: true',
      '        http_config:',
      '          authorization:',
      '            type: Bearer',
      `            credentials_file: ${input.credentialsFile}`,
      '',
    ].join('\n'),
  );
  return runAlertmanager({ directory: input.directory, configPath });
}

/**
 * Runs Alertmanager on a configuration file, on a free loopback port with no clustering, and
 * answers once it is ready; should the test process end without stop(), Alertmanager ends with it.
 */
export async function runAlertmanager(input: { directory: string; configPath: string }): Promise<Alertmanager> {
  const port = await findFreePort();
  const daemon = spawnDaemon(ALERTMANAGER_BINARY, [
    `--config.file=${input.configPath}`,
    `--storage.path=${join(input.directory, 'alertmanager-data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--cluster.listen-address=',
    '--log.level=warn',
  ]);
  const { child, output, stop } = daemon;
  const url = `http://127.0.0.1:${port}`;
  try {
    await pollUntil(
      async () => {
        if (child.exitCode !== null) throw new Error(`alertmanager exited with ${child.exitCode}:\n${output()}`);
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
      const response = await fetch(`${url}/api/v2/alerts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(alerts),
      });
      if (!response.ok) throw new Error(`alertmanager refused the alerts: ${response.status} ${await response.text()}`);
    },
    async listAlerts() {
      const response = await fetch(`${url}/api/v2/alerts`);
      if (!response.ok) throw new Error(`alertmanager GET /api/v2/alerts: ${response.status} ${await response.text()}`);
      return (await response.json()) as { labels: Record<string, string>; fingerprint: string }[];
    },
    async metric(name, labelFilter) {
      const text = await (await fetch(`${url}/metrics`)).text();
      let sum = 0;
      for (const match of text.matchAll(new RegExp(`^${name}(\\{[^}]*\\})? (\\S+)$`, 'gm'))) {
        if (!labelFilter || labelFilter.test(match[1] ?? '')) sum += Number(match[2]);
      }
      return sum;
    },
    output,
    stop,
  };
}
