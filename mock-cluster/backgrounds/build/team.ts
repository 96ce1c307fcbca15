/**
 * Another team's namespace, healthy: an HTTP API (autoscaled), a queue worker, a database
 * StatefulSet on a Bound claim, a nightly CronJob whose last Job completed, Services with
 * ready endpoints, ConfigMaps, a Secret and a ResourceQuota well under its limits. Its logs
 * say "error" in ways that are not failures.
 */
import type { ClusterBuilder } from './cluster.ts';
import type { Clock } from './kit.ts';
import type { LogNames } from './noise.ts';
import type { StorageSetup } from './monitoring.ts';
import type { OldRestart } from './pods.ts';
import { autoscaler, boundClaim, resourceQuota, service } from './services.ts';
import { cronJob, deployment, statefulSet } from './workloads.ts';

export interface TeamSpec {
  namespace: string;
  team: string;
  createdAgo: string;
  api: { name: string; image: string; previousImage: string; port: number; replicas: number; restart?: OldRestart; logs: (clock: Clock, names: LogNames) => string[] };
  worker: { name: string; image: string; logs: (clock: Clock, names: LogNames) => string[] };
  database: { name: string; image: string; port: number; portName: string; size: string; env: Record<string, unknown>[] };
  cron: { name: string; image: string; schedule: string; lastRunAgo: string; args: string[] };
  serviceIps: [string, string];
}

export function teamNamespace(cluster: ClusterBuilder, spec: TeamSpec, storage: StorageSetup): void {
  const { namespace, createdAgo } = spec;
  const common = { 'app.kubernetes.io/part-of': spec.team, team: spec.team };
  cluster.namespace(namespace, createdAgo, { team: spec.team });
  const configName = `${spec.api.name}-config`;
  cluster.configMap(namespace, configName, { LOG_LEVEL: 'info', HTTP_PORT: String(spec.api.port), DB_HOST: `${spec.database.name}.${namespace}.svc.cluster.local`, RETRY_BACKOFF: '5s' }, { createdAgo, labels: { app: spec.api.name } });
  cluster.secret(namespace, `${spec.database.name}-credentials`, ['password', 'username'], { createdAgo, labels: { app: spec.database.name } });
  const envFrom = [{ name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: `${spec.database.name}-credentials`, key: 'password' } } }];
  const probe = (path: string): Record<string, unknown> => ({ httpGet: { path, port: 'http', scheme: 'HTTP' }, periodSeconds: 10, timeoutSeconds: 2, failureThreshold: 3, successThreshold: 1 });

  const api = deployment(cluster, {
    namespace, name: spec.api.name, createdAgo, podAgo: '2d5h', replicas: spec.api.replicas, revision: 14, previous: { image: spec.api.previousImage, createdAgo: '9d' },
    labels: { app: spec.api.name, ...common },
    selector: { app: spec.api.name },
    ...(spec.api.restart ? { restarts: { 1: spec.api.restart } } : {}),
    template: {
      labels: { app: spec.api.name, ...common, version: spec.api.image.split(':').pop() ?? 'latest' },
      containers: [{ name: 'api', image: spec.api.image, ports: [{ name: 'http', containerPort: spec.api.port }], requests: { cpu: '200m', memory: '256Mi' }, limits: { cpu: '1', memory: '512Mi' }, env: envFrom, readinessProbe: probe('/readyz'), livenessProbe: probe('/healthz'), volumeMounts: [{ name: 'config', mountPath: '/etc/app', readOnly: true }] }],
      volumes: [{ name: 'config', configMap: { name: configName, defaultMode: 420 } }],
    },
  });
  const worker = deployment(cluster, {
    namespace, name: spec.worker.name, createdAgo, podAgo: '6d1h', replicas: 1, revision: 7,
    labels: { app: spec.worker.name, ...common },
    selector: { app: spec.worker.name },
    template: { labels: { app: spec.worker.name, ...common }, containers: [{ name: 'worker', image: spec.worker.image, requests: { cpu: '100m', memory: '192Mi' }, limits: { memory: '384Mi' }, env: envFrom }] },
  });
  const database = statefulSet(cluster, {
    namespace, name: spec.database.name, createdAgo, podAgo: '12d', replicas: 1, serviceName: spec.database.name,
    labels: { app: spec.database.name, ...common },
    selector: { app: spec.database.name },
    claim: { name: 'data', size: spec.database.size, storageClassName: storage.storageClassName },
    template: { labels: { app: spec.database.name, ...common }, containers: [{ name: spec.database.portName, image: spec.database.image, ports: [{ name: spec.database.portName, containerPort: spec.database.port }], requests: { cpu: '250m', memory: '512Mi' }, limits: { memory: '1Gi' }, env: spec.database.env, volumeMounts: [{ name: 'data', mountPath: '/var/lib/data' }] }] },
  });
  cronJob(cluster, {
    namespace, name: spec.cron.name, createdAgo, schedule: spec.cron.schedule, lastRunAgo: spec.cron.lastRunAgo, runSeconds: 74,
    labels: { app: spec.cron.name, ...common },
    template: { labels: { app: spec.cron.name, ...common }, containers: [{ name: spec.cron.name, image: spec.cron.image, args: spec.cron.args, requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' }, env: envFrom }] },
  });
  const databasePod = database.find((object) => object.kind === 'Pod');
  boundClaim(cluster, { namespace, name: `data-${spec.database.name}-0`, size: spec.database.size, ...storage, node: String((databasePod?.['spec'] as { nodeName?: string } | undefined)?.nodeName), createdAgo, labels: { app: spec.database.name } });
  service(cluster, { namespace, name: spec.api.name, createdAgo, clusterIP: spec.serviceIps[0], selector: { app: spec.api.name }, ports: [{ name: 'http', port: 80, targetPort: 'http' }], labels: { app: spec.api.name } });
  service(cluster, { namespace, name: spec.database.name, createdAgo, clusterIP: spec.serviceIps[1], selector: { app: spec.database.name }, ports: [{ name: spec.database.portName, port: spec.database.port, targetPort: spec.database.port }], labels: { app: spec.database.name } });
  autoscaler(cluster, { namespace, deployment: spec.api.name, min: 2, max: 8, replicas: spec.api.replicas, targetCpu: 70, currentCpu: 61, createdAgo, lastScaleAgo: '2d5h' });
  resourceQuota(cluster, { namespace, name: `${namespace}-quota`, createdAgo, hard: { 'requests.cpu': '8', 'requests.memory': '16Gi', 'limits.cpu': '16', 'limits.memory': '32Gi', pods: '40', persistentvolumeclaims: '10' } });

  const apiPods = api.filter((object) => object.kind === 'Pod');
  const workerPod = worker.find((object) => object.kind === 'Pod');
  const names = { app: spec.api.name, database: `${spec.database.name}.${namespace}.svc.cluster.local` };
  // The first pod never carries the old restart, so its log runs from its start.
  const apiPod = apiPods[0];
  if (apiPod) cluster.log(apiPod, 'api', spec.api.logs(cluster.clock, names));
  if (workerPod) cluster.log(workerPod, 'worker', spec.worker.logs(cluster.clock, { ...names, app: spec.worker.name }));
}
