/**
 * The `monitoring` namespace every background carries: a kube-prometheus-stack release
 * (operator, Prometheus and Alertmanager StatefulSets, Grafana, kube-state-metrics,
 * node-exporter on every node), healthy, with the logs of a Prometheus that keeps working.
 */
import type { ClusterBuilder } from './cluster.ts';
import { daemonSet, deployment, statefulSet } from './workloads.ts';
import { boundClaim, service } from './services.ts';

export interface StorageSetup {
  storageClassName: string;
  provisioner: string;
  volumeHandle: (seed: string) => string;
  /** Set for a local-path provisioner: volumes are directories under it on the node. */
  hostPathRoot?: string;
}

const RELEASE = 'kube-prometheus-stack';
const CHART = 'kube-prometheus-stack-66.3.1';

function stackLabels(component: string): Record<string, string> {
  return { 'app.kubernetes.io/instance': RELEASE, 'app.kubernetes.io/managed-by': 'Helm', 'app.kubernetes.io/part-of': RELEASE, chart: CHART, release: RELEASE, app: `${RELEASE}-${component}` };
}

export function monitoring(cluster: ClusterBuilder, input: { storage: StorageSetup; serviceIps: string[]; ages: { namespace: string; pods: string } }): void {
  const namespace = 'monitoring';
  const { pods } = input.ages;
  const created = input.ages.namespace;
  const ip = (index: number): string => input.serviceIps[index] ?? `10.100.${index}.10`;
  cluster.namespace(namespace, created, { name: namespace });

  deployment(cluster, {
    namespace, name: `${RELEASE}-operator`, createdAgo: created, podAgo: pods, replicas: 1, revision: 3, labels: stackLabels('operator'),
    template: { labels: { app: `${RELEASE}-operator`, release: RELEASE, 'app.kubernetes.io/name': `${RELEASE}-prometheus-operator` }, serviceAccountName: `${RELEASE}-operator`, containers: [{ name: RELEASE, image: 'quay.io/prometheus-operator/prometheus-operator:v0.78.2', args: ['--kubelet-service=kube-system/kube-prometheus-stack-kubelet', '--localhost=127.0.0.1', '--prometheus-config-reloader=quay.io/prometheus-operator/prometheus-config-reloader:v0.78.2'], ports: [{ name: 'https', containerPort: 10250 }], requests: { cpu: '50m', memory: '128Mi' }, limits: { memory: '256Mi' } }] },
  });
  const grafana = deployment(cluster, {
    namespace, name: `${RELEASE}-grafana`, createdAgo: created, podAgo: '4d2h', replicas: 1, revision: 5, previous: { image: 'docker.io/grafana/grafana:11.3.0', createdAgo: '19d' },
    labels: { 'app.kubernetes.io/instance': RELEASE, 'app.kubernetes.io/name': 'grafana', 'app.kubernetes.io/version': '11.3.1', 'helm.sh/chart': 'grafana-8.6.3' },
    selector: { 'app.kubernetes.io/instance': RELEASE, 'app.kubernetes.io/name': 'grafana' },
    template: {
      labels: { 'app.kubernetes.io/instance': RELEASE, 'app.kubernetes.io/name': 'grafana', 'app.kubernetes.io/version': '11.3.1' },
      serviceAccountName: `${RELEASE}-grafana`,
      containers: [
        { name: 'grafana-sc-dashboard', image: 'quay.io/kiwigrid/k8s-sidecar:1.28.0', requests: { cpu: '10m', memory: '64Mi' } },
        { name: 'grafana', image: 'docker.io/grafana/grafana:11.3.1', ports: [{ name: 'grafana', containerPort: 3000 }], requests: { cpu: '100m', memory: '256Mi' }, limits: { memory: '512Mi' }, readinessProbe: { httpGet: { path: '/api/health', port: 3000, scheme: 'HTTP' }, periodSeconds: 10, timeoutSeconds: 1, failureThreshold: 3, successThreshold: 1 }, livenessProbe: { httpGet: { path: '/api/health', port: 3000, scheme: 'HTTP' }, initialDelaySeconds: 60, periodSeconds: 10, timeoutSeconds: 30, failureThreshold: 10, successThreshold: 1 } },
      ],
    },
  });
  deployment(cluster, {
    namespace, name: `${RELEASE}-kube-state-metrics`, createdAgo: created, podAgo: pods, replicas: 1, revision: 2,
    labels: { 'app.kubernetes.io/instance': RELEASE, 'app.kubernetes.io/name': 'kube-state-metrics', 'app.kubernetes.io/version': '2.14.0' },
    selector: { 'app.kubernetes.io/instance': RELEASE, 'app.kubernetes.io/name': 'kube-state-metrics' },
    template: { labels: { 'app.kubernetes.io/instance': RELEASE, 'app.kubernetes.io/name': 'kube-state-metrics', 'app.kubernetes.io/component': 'metrics' }, serviceAccountName: `${RELEASE}-kube-state-metrics`, containers: [{ name: 'kube-state-metrics', image: 'registry.k8s.io/kube-state-metrics/kube-state-metrics:v2.14.0', args: ['--port=8080', '--resources=certificatesigningrequests,configmaps,cronjobs,daemonsets,deployments,endpoints,horizontalpodautoscalers,jobs,namespaces,nodes,persistentvolumeclaims,persistentvolumes,pods,replicasets,resourcequotas,services,statefulsets'], ports: [{ name: 'http', containerPort: 8080 }], requests: { cpu: '10m', memory: '64Mi' }, limits: { memory: '256Mi' }, readinessProbe: { httpGet: { path: '/readyz', port: 8081 }, periodSeconds: 10 } }] },
  });
  daemonSet(cluster, {
    namespace, name: `${RELEASE}-prometheus-node-exporter`, createdAgo: created, podAgo: pods,
    labels: { 'app.kubernetes.io/instance': RELEASE, 'app.kubernetes.io/name': 'prometheus-node-exporter' },
    template: { labels: { 'app.kubernetes.io/instance': RELEASE, 'app.kubernetes.io/name': 'prometheus-node-exporter', 'app.kubernetes.io/component': 'metrics' }, hostNetwork: true, serviceAccountName: `${RELEASE}-prometheus-node-exporter`, tolerations: [{ effect: 'NoSchedule', operator: 'Exists' }], containers: [{ name: 'node-exporter', image: 'quay.io/prometheus/node-exporter:v1.8.2', args: ['--path.procfs=/host/proc', '--path.sysfs=/host/sys', '--path.rootfs=/host/root', '--web.listen-address=[$(HOST_IP)]:9100'], ports: [{ name: 'http-metrics', containerPort: 9100 }], requests: { cpu: '10m', memory: '32Mi' }, limits: { memory: '64Mi' } }] },
    selector: { 'app.kubernetes.io/instance': RELEASE, 'app.kubernetes.io/name': 'prometheus-node-exporter' },
  });
  const prometheusName = `prometheus-${RELEASE}-prometheus`;
  const prometheus = statefulSet(cluster, {
    namespace, name: prometheusName, createdAgo: created, podAgo: pods, replicas: 1, serviceName: 'prometheus-operated',
    labels: { app: `${RELEASE}-prometheus`, 'operator.prometheus.io/name': `${RELEASE}-prometheus`, 'operator.prometheus.io/mode': 'server' },
    selector: { 'app.kubernetes.io/instance': `${RELEASE}-prometheus`, 'app.kubernetes.io/managed-by': 'prometheus-operator', 'app.kubernetes.io/name': 'prometheus', 'operator.prometheus.io/name': `${RELEASE}-prometheus`, 'operator.prometheus.io/shard': '0', prometheus: `${RELEASE}-prometheus` },
    claim: { name: prometheusName + '-db', size: '50Gi', storageClassName: input.storage.storageClassName },
    restarts: { 0: { container: 'prometheus', count: 1, reason: 'Error', exitCode: 1, finishedAgo: '3d7h' } },
    template: {
      labels: { 'app.kubernetes.io/instance': `${RELEASE}-prometheus`, 'app.kubernetes.io/managed-by': 'prometheus-operator', 'app.kubernetes.io/name': 'prometheus', 'app.kubernetes.io/version': '2.55.1', 'operator.prometheus.io/name': `${RELEASE}-prometheus`, 'operator.prometheus.io/shard': '0', prometheus: `${RELEASE}-prometheus` },
      annotations: { 'kubectl.kubernetes.io/default-container': 'prometheus' },
      serviceAccountName: `${RELEASE}-prometheus`,
      containers: [
        { name: 'prometheus', image: 'quay.io/prometheus/prometheus:v2.55.1', args: ['--web.console.templates=/etc/prometheus/consoles', '--storage.tsdb.retention.time=10d', '--config.file=/etc/prometheus/config_out/prometheus.env.yaml', '--storage.tsdb.path=/prometheus', '--web.enable-lifecycle'], ports: [{ name: 'http-web', containerPort: 9090 }], requests: { cpu: '200m', memory: '1536Mi' }, limits: { memory: '3Gi' }, readinessProbe: { httpGet: { path: '/-/ready', port: 'http-web', scheme: 'HTTP' }, periodSeconds: 5, timeoutSeconds: 3, failureThreshold: 3 }, volumeMounts: [{ name: `${prometheusName}-db`, mountPath: '/prometheus' }] },
        { name: 'config-reloader', image: 'quay.io/prometheus-operator/prometheus-config-reloader:v0.78.2', ports: [{ name: 'reloader-web', containerPort: 8080 }], requests: { cpu: '10m', memory: '50Mi' }, limits: { cpu: '10m', memory: '50Mi' } },
      ],
    },
  });
  const alertmanagerName = `alertmanager-${RELEASE}-alertmanager`;
  statefulSet(cluster, {
    namespace, name: alertmanagerName, createdAgo: created, podAgo: pods, replicas: 1, serviceName: 'alertmanager-operated',
    labels: { app: `${RELEASE}-alertmanager`, 'operator.prometheus.io/name': `${RELEASE}-alertmanager` },
    selector: { 'app.kubernetes.io/instance': `${RELEASE}-alertmanager`, 'app.kubernetes.io/managed-by': 'prometheus-operator', 'app.kubernetes.io/name': 'alertmanager', alertmanager: `${RELEASE}-alertmanager` },
    template: {
      labels: { 'app.kubernetes.io/instance': `${RELEASE}-alertmanager`, 'app.kubernetes.io/managed-by': 'prometheus-operator', 'app.kubernetes.io/name': 'alertmanager', 'app.kubernetes.io/version': '0.27.0', alertmanager: `${RELEASE}-alertmanager` },
      annotations: { 'kubectl.kubernetes.io/default-container': 'alertmanager' },
      containers: [
        { name: 'alertmanager', image: 'quay.io/prometheus/alertmanager:v0.27.0', args: ['--config.file=/etc/alertmanager/config_out/alertmanager.env.yaml', '--storage.path=/alertmanager', '--data.retention=120h', '--cluster.listen-address=', '--web.listen-address=:9093'], ports: [{ name: 'http-web', containerPort: 9093 }], requests: { cpu: '10m', memory: '200Mi' }, readinessProbe: { httpGet: { path: '/-/ready', port: 'http-web' }, initialDelaySeconds: 3, periodSeconds: 5, timeoutSeconds: 3, failureThreshold: 10 } },
        { name: 'config-reloader', image: 'quay.io/prometheus-operator/prometheus-config-reloader:v0.78.2', ports: [{ name: 'reloader-web', containerPort: 8080 }], requests: { cpu: '10m', memory: '50Mi' }, limits: { cpu: '10m', memory: '50Mi' } },
      ],
    },
  });
  const prometheusPod = prometheus.find((object) => object.kind === 'Pod');
  boundClaim(cluster, { namespace, name: `${prometheusName}-db-${prometheusName}-0`, size: '50Gi', ...input.storage, node: String((prometheusPod?.['spec'] as { nodeName?: string } | undefined)?.nodeName), createdAgo: created, labels: { 'app.kubernetes.io/name': 'prometheus', prometheus: `${RELEASE}-prometheus` } });

  const web = { name: 'http-web', port: 9090, targetPort: 9090 };
  service(cluster, { namespace, name: `${RELEASE}-prometheus`, createdAgo: created, clusterIP: ip(0), selector: { 'app.kubernetes.io/name': 'prometheus', 'operator.prometheus.io/name': `${RELEASE}-prometheus` }, ports: [web, { name: 'reloader-web', port: 8080, targetPort: 'reloader-web' }], labels: stackLabels('prometheus') });
  service(cluster, { namespace, name: 'prometheus-operated', createdAgo: created, clusterIP: 'None', selector: { 'app.kubernetes.io/name': 'prometheus' }, ports: [{ name: 'http-web', port: 9090, targetPort: 'http-web' }], labels: { 'operated-prometheus': 'true' } });
  service(cluster, { namespace, name: `${RELEASE}-alertmanager`, createdAgo: created, clusterIP: ip(1), selector: { 'app.kubernetes.io/name': 'alertmanager', alertmanager: `${RELEASE}-alertmanager` }, ports: [{ name: 'http-web', port: 9093, targetPort: 9093 }], labels: stackLabels('alertmanager') });
  service(cluster, { namespace, name: `${RELEASE}-grafana`, createdAgo: created, clusterIP: ip(2), selector: { 'app.kubernetes.io/instance': RELEASE, 'app.kubernetes.io/name': 'grafana' }, ports: [{ name: 'http-web', port: 80, targetPort: 3000 }], labels: { 'app.kubernetes.io/instance': RELEASE, 'app.kubernetes.io/name': 'grafana' } });
  service(cluster, { namespace, name: `${RELEASE}-kube-state-metrics`, createdAgo: created, clusterIP: ip(3), selector: { 'app.kubernetes.io/instance': RELEASE, 'app.kubernetes.io/name': 'kube-state-metrics' }, ports: [{ name: 'http', port: 8080, targetPort: 8080 }], labels: { 'app.kubernetes.io/instance': RELEASE, 'app.kubernetes.io/name': 'kube-state-metrics' } });
  service(cluster, { namespace, name: `${RELEASE}-prometheus-node-exporter`, createdAgo: created, clusterIP: ip(4), selector: { 'app.kubernetes.io/instance': RELEASE, 'app.kubernetes.io/name': 'prometheus-node-exporter' }, ports: [{ name: 'http-metrics', port: 9100, targetPort: 9100 }], labels: { 'app.kubernetes.io/instance': RELEASE, 'app.kubernetes.io/name': 'prometheus-node-exporter' } });
  service(cluster, { namespace, name: `${RELEASE}-operator`, createdAgo: created, clusterIP: ip(5), selector: { app: `${RELEASE}-operator`, release: RELEASE }, ports: [{ name: 'https', port: 443, targetPort: 'https' }], labels: stackLabels('operator') });
  cluster.configMap(namespace, `${RELEASE}-grafana`, { 'grafana.ini': '[analytics]\ncheck_for_updates = true\n[log]\nmode = console\n[paths]\ndata = /var/lib/grafana/\n' }, { createdAgo: created, labels: { 'app.kubernetes.io/name': 'grafana' } });
  cluster.secret(namespace, `${RELEASE}-grafana`, ['admin-password', 'admin-user', 'ldap-toml'], { createdAgo: created, labels: { 'app.kubernetes.io/name': 'grafana' } });

  const grafanaPod = grafana.find((object) => object.kind === 'Pod');
  const promPod = prometheusPod;
  if (grafanaPod) {
    cluster.event({ involved: grafanaPod, type: 'Warning', reason: 'Unhealthy', message: 'Readiness probe failed: Get "http://' + String((grafanaPod['status'] as { podIP: string }).podIP) + ':3000/api/health": context deadline exceeded (Client.Timeout exceeded while awaiting headers)', firstAgo: '4h12m', lastAgo: '4h11m', count: 3, component: 'kubelet', host: String((grafanaPod['spec'] as { nodeName: string }).nodeName), fieldPath: 'spec.containers{grafana}' });
    cluster.log(grafanaPod, 'grafana', [
      `logger=settings t=${cluster.clock.logAgo('4d2h')} level=info msg="Starting Grafana" version=11.3.1 commit=9e9a8ad4 branch=HEAD compiled=${cluster.clock.logAgo('4d2h')}`,
      `logger=sqlstore t=${cluster.clock.logAgo('4d2h', 412)} level=info msg="Connecting to DB" dbtype=sqlite3`,
      `logger=migrator t=${cluster.clock.logAgo('4d2h', 980)} level=info msg="migrations completed" performed=0 skipped=612 duration=1.204ms`,
      `logger=grafana-apiserver t=${cluster.clock.logAgo('4d2h', 2100)} level=info msg="Adding GroupVersion playlist.grafana.app v0alpha1 to ResourceManager"`,
      `logger=http.server t=${cluster.clock.logAgo('4d2h', 2400)} level=info msg="HTTP Server Listen" address=[::]:3000 protocol=http subUrl= socket=`,
      `logger=cleanup t=${cluster.clock.logAgo('4h12m')} level=info msg="Completed cleanup jobs" duration=41.3ms`,
      `logger=context userId=0 orgId=0 uname= t=${cluster.clock.logAgo('4h11m')} level=warn msg="Request Completed" method=GET path=/api/health status=503 remote_addr=127.0.0.1 time_ms=1002 duration=1.002s size=0 referer= handler=/api/health status_source=server errorReason=Timeout`,
      `logger=sqlstore.transactions t=${cluster.clock.logAgo('4h11m', 3000)} level=info msg="Database locked, sleeping then retrying" error="database is locked" retry=0 code="database is locked"`,
      `logger=infra.usagestats t=${cluster.clock.logAgo('2h40m')} level=info msg="Usage stats are ready to report"`,
      `logger=cleanup t=${cluster.clock.logAgo('12m')} level=info msg="Completed cleanup jobs" duration=38.9ms`,
      `logger=plugins.update.checker t=${cluster.clock.logAgo('6m')} level=info msg="Update check succeeded" duration=88.1ms`,
    ]);
  }
  if (promPod) {
    cluster.log(promPod, 'prometheus', [
      `ts=${cluster.clock.logAgo('3d7h', 2000)} caller=main.go:627 level=info msg="Starting Prometheus Server" mode=server version="(version=2.55.1, branch=HEAD, revision=6d7569113f1ca814f1e149f74176656540043b8d)"`,
      `ts=${cluster.clock.logAgo('3d7h', 5100)} caller=head.go:721 level=info component=tsdb msg="Replaying WAL, this may take a while"`,
      `ts=${cluster.clock.logAgo('3d7h', 41_000)} caller=head.go:829 level=info component=tsdb msg="WAL replay completed" checkpoint_replay_duration=1.2s wal_replay_duration=34.7s total_replay_duration=36.1s`,
      `ts=${cluster.clock.logAgo('3d7h', 41_200)} caller=main.go:1186 level=info msg="Server is ready to receive web requests."`,
      `ts=${cluster.clock.logAgo('5h')} caller=compact.go:576 level=info component=tsdb msg="write block" mint=1764568800000 maxt=1764576000000 ulid=01JE2Q7K8Y4ZV6D3N5RW9XTB2M duration=1.81s ooo=false`,
      `ts=${cluster.clock.logAgo('5h', 2000)} caller=head.go:1355 level=info component=tsdb msg="Head GC completed" caller=truncateMemory duration=96.2ms`,
      `ts=${cluster.clock.logAgo('3h2m')} caller=scrape.go:1793 level=warn component="scrape manager" scrape_pool=serviceMonitor/monitoring/kube-prometheus-stack-kubelet/1 target=https://10.0.0.1:10250/metrics/cadvisor msg="Error on ingesting samples with different value but same timestamp" num_dropped=2`,
      `ts=${cluster.clock.logAgo('3h')} caller=compact.go:576 level=info component=tsdb msg="write block" mint=1764576000000 maxt=1764583200000 ulid=01JE2Y2NQ0E0T9AQH3P1Y0F8GJ duration=1.64s ooo=false`,
      `ts=${cluster.clock.logAgo('1h')} caller=checkpoint.go:101 level=info component=tsdb msg="Creating checkpoint" from_segment=712 to_segment=713 mint=1764590400000`,
      `ts=${cluster.clock.logAgo('58m')} caller=db.go:1711 level=info component=tsdb msg="Deleting obsolete block" block=01JDZK8R1F6J5YB9M0Q3G2X4CN errors=0`,
    ]);
    cluster.log(promPod, 'prometheus', [
      `ts=${cluster.clock.logAgo('9d')} caller=main.go:1186 level=info msg="Server is ready to receive web requests."`,
      `ts=${cluster.clock.logAgo('3d7h', -6000)} caller=main.go:1009 level=warn msg="Received SIGTERM, exiting gracefully..."`,
      `ts=${cluster.clock.logAgo('3d7h', -4000)} caller=main.go:1034 level=info msg="Stopping scrape manager..."`,
      `ts=${cluster.clock.logAgo('3d7h', -1000)} caller=main.go:1160 level=warn msg="Closing storage took longer than expected, WAL segments flushed" duration=2.1s`,
    ], true);
  }
}
