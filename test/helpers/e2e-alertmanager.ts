/**
 * A real Alertmanager (Debian's `prometheus-alertmanager`) that routes each alert to one
 * of several kubewhy webhooks by its `cluster` label: lane N's receiver gets the alerts
 * whose cluster matches lane N's pattern. Alerts are grouped as kube-prometheus-stack
 * groups them, by namespace (and cluster), with a short group wait, so the alerts one
 * incident fires at once arrive in one notification. Otherwise configured as the service
 * tests' Alertmanager (test/helpers/service-alertmanager.ts): a bearer token read from a
 * file, no clustering, loopback only.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { runAlertmanager, type Alertmanager } from './service-alertmanager.ts';

export interface AlertRoute {
  /** A regular expression the alert's `cluster` label must match in full. */
  clusterPattern: string;
  webhookUrl: string;
}

/** Starts Alertmanager with one receiver per route; an alert that matches no route goes to the first. */
export async function startRoutingAlertmanager(input: {
  directory: string;
  routes: AlertRoute[];
  credentialsFile: string;
}): Promise<Alertmanager> {
  const first = input.routes[0];
  if (!first) throw new Error('an Alertmanager needs at least one route');
  await mkdir(input.directory, { recursive: true });
  const receiver = (route: AlertRoute, index: number): unknown => ({
    name: `kubewhy-${index}`,
    webhook_configs: [
      {
        url: route.webhookUrl,
        send_resolved: true,
        http_config: { authorization: { type: 'Bearer', credentials_file: input.credentialsFile } },
      },
    ],
  });
  const configPath = join(input.directory, 'alertmanager.yml');
  await writeFile(
    configPath,
    stringify({
      route: {
        receiver: 'kubewhy-0',
        group_by: ['cluster', 'namespace'],
        group_wait: '1s',
        group_interval: '1s',
        repeat_interval: '2s',
        routes: input.routes.map((route, index) => ({
          receiver: `kubewhy-${index}`,
          matchers: [`cluster=~"${route.clusterPattern}"`],
        })),
      },
      receivers: input.routes.map(receiver),
    }),
  );
  return runAlertmanager({ directory: input.directory, configPath });
}
