/**
 * `kubeadm`: a kubeadm 1.31 cluster on premises: one control-plane node (tainted) running
 * etcd, kube-apiserver, kube-controller-manager and kube-scheduler as static pods, three
 * workers, Calico, kube-proxy, CoreDNS, the local-path provisioner, kube-prometheus-stack
 * and two product teams.
 */
import { ClusterBuilder, type NodeSpec } from './cluster.ts';
import { Clock } from './kit.ts';
import { monitoring, type StorageSetup } from './monitoring.ts';
import { findPod, klog, teamLogs } from './noise.ts';
import type { ContainerSpec } from './pods.ts';
import { service, storageClass } from './services.ts';
import { teamNamespace } from './team.ts';
import { daemonSet, deployment, staticPod } from './workloads.ts';

export const KUBEADM_NOW = '2026-12-02T16:05:00Z';

const VERSION = 'v1.31.3';

function kubeadmNode(input: { name: string; ip: string; block: string; createdAgo: string; controlPlane?: boolean }): NodeSpec {
  return {
    name: input.name,
    ip: input.ip,
    podPrefix: `192.168.${input.block}.`,
    podCIDR: `192.168.${input.block}.0/24`,
    createdAgo: input.createdAgo,
    dedicated: input.controlPlane ?? false,
    labels: input.controlPlane ? { 'node-role.kubernetes.io/control-plane': '', 'node.kubernetes.io/exclude-from-external-load-balancers': '' } : { 'node-role.kubernetes.io/worker': '' },
    annotations: { 'kubeadm.alpha.kubernetes.io/cri-socket': 'unix:///var/run/containerd/containerd.sock', 'projectcalico.org/IPv4Address': `${input.ip}/24`, 'projectcalico.org/IPv4IPIPTunnelAddr': `192.168.${input.block}.0` },
    ...(input.controlPlane ? { taints: [{ effect: 'NoSchedule', key: 'node-role.kubernetes.io/control-plane' }] } : {}),
    capacity: input.controlPlane ? { cpu: '4', memory: '8139420Ki', pods: '110', storage: '102626232Ki' } : { cpu: '8', memory: '32858140Ki', pods: '110', storage: '205314024Ki' },
    allocatable: input.controlPlane ? { cpu: '4', memory: '8037020Ki', pods: '110', storage: '94580335255' } : { cpu: '8', memory: '32755740Ki', pods: '110', storage: '189217280038' },
    nodeInfo: { kernelVersion: '6.8.0-49-generic', osImage: 'Ubuntu 24.04.1 LTS', containerRuntimeVersion: 'containerd://1.7.22', kubeletVersion: VERSION },
  };
}

export function buildKubeadm(): ClusterBuilder {
  const clock = new Clock(KUBEADM_NOW);
  const controlPlane = kubeadmNode({ name: 'dc1-k8s-cp01', ip: '10.20.30.11', block: '112', createdAgo: '212d', controlPlane: true });
  const nodes = [
    controlPlane,
    kubeadmNode({ name: 'dc1-k8s-w01', ip: '10.20.30.21', block: '41', createdAgo: '212d' }),
    { ...kubeadmNode({ name: 'dc1-k8s-w02', ip: '10.20.30.22', block: '177', createdAgo: '212d' }), resolvedCondition: { type: 'PIDPressure' as const, ago: '3d2h' } },
    { ...kubeadmNode({ name: 'dc1-k8s-w03', ip: '10.20.30.23', block: '9', createdAgo: '96d' }), readySinceAgo: '1d6h' },
  ];
  const cluster = new ClusterBuilder('kubeadm', clock, nodes);
  const storage: StorageSetup = { storageClassName: 'local-path', provisioner: 'rancher.io/local-path', volumeHandle: (seed) => seed, hostPathRoot: '/opt/local-path-provisioner' };
  for (const namespace of ['default', 'kube-node-lease', 'kube-public', 'kube-system']) cluster.namespace(namespace, '212d');
  storageClass(cluster, { name: 'local-path', provisioner: 'rancher.io/local-path', parameters: {}, isDefault: true, createdAgo: '211d' });

  const system = 'kube-system';
  const component = (name: string, image: string, cpu: string, command: string[], restart?: ContainerSpec['livenessProbe']): ContainerSpec => ({
    name, image, args: command, requests: { cpu, ...(name === 'etcd' ? { memory: '100Mi' } : {}) }, livenessProbe: restart ?? { httpGet: { host: '127.0.0.1', path: '/healthz', port: 10257, scheme: 'HTTPS' }, initialDelaySeconds: 10, periodSeconds: 10, timeoutSeconds: 15, failureThreshold: 8 },
  });
  const staticLabels = (name: string): Record<string, string> => ({ component: name, tier: 'control-plane' });
  const etcd = staticPod(cluster, { namespace: system, component: 'etcd', node: controlPlane, podAgo: '38d', template: { labels: staticLabels('etcd'), annotations: { 'kubeadm.kubernetes.io/etcd.advertise-client-urls': 'https://10.20.30.11:2379' }, containers: [component('etcd', 'registry.k8s.io/etcd:3.5.15-0', '100m', ['etcd', '--advertise-client-urls=https://10.20.30.11:2379', '--data-dir=/var/lib/etcd', '--listen-client-urls=https://127.0.0.1:2379,https://10.20.30.11:2379', '--snapshot-count=10000'], { httpGet: { host: '127.0.0.1', path: '/livez', port: 2381, scheme: 'HTTP' }, initialDelaySeconds: 10, periodSeconds: 10, timeoutSeconds: 15, failureThreshold: 8 })] } });
  staticPod(cluster, { namespace: system, component: 'kube-apiserver', node: controlPlane, podAgo: '38d', template: { labels: staticLabels('kube-apiserver'), annotations: { 'kubeadm.kubernetes.io/kube-apiserver.advertise-address.endpoint': '10.20.30.11:6443' }, containers: [component('kube-apiserver', `registry.k8s.io/kube-apiserver:${VERSION}`, '250m', ['kube-apiserver', '--advertise-address=10.20.30.11', '--allow-privileged=true', '--authorization-mode=Node,RBAC', '--enable-admission-plugins=NodeRestriction', '--etcd-servers=https://127.0.0.1:2379', '--secure-port=6443', '--service-cluster-ip-range=10.96.0.0/12'])] } });
  const controllerManager = staticPod(cluster, { namespace: system, component: 'kube-controller-manager', node: controlPlane, podAgo: '38d', restart: { count: 2, reason: 'Error', exitCode: 1, finishedAgo: '3d11h' }, template: { labels: staticLabels('kube-controller-manager'), containers: [component('kube-controller-manager', `registry.k8s.io/kube-controller-manager:${VERSION}`, '200m', ['kube-controller-manager', '--allocate-node-cidrs=true', '--cluster-cidr=192.168.0.0/16', '--leader-elect=true', '--use-service-account-credentials=true'])] } });
  staticPod(cluster, { namespace: system, component: 'kube-scheduler', node: controlPlane, podAgo: '38d', restart: { count: 1, reason: 'Error', exitCode: 1, finishedAgo: '3d11h' }, template: { labels: staticLabels('kube-scheduler'), containers: [component('kube-scheduler', `registry.k8s.io/kube-scheduler:${VERSION}`, '100m', ['kube-scheduler', '--authentication-kubeconfig=/etc/kubernetes/scheduler.conf', '--bind-address=127.0.0.1', '--leader-elect=true'])] } });

  const everywhere = { priorityClassName: 'system-node-critical', tolerations: [{ operator: 'Exists' }], hostNetwork: true };
  daemonSet(cluster, {
    namespace: system, name: 'kube-proxy', createdAgo: '212d', podAgo: '38d', labels: { 'k8s-app': 'kube-proxy' },
    template: { ...everywhere, labels: { 'k8s-app': 'kube-proxy' }, serviceAccountName: 'kube-proxy', containers: [{ name: 'kube-proxy', image: `registry.k8s.io/kube-proxy:${VERSION}`, args: ['/usr/local/bin/kube-proxy', '--config=/var/lib/kube-proxy/config.conf', '--hostname-override=$(NODE_NAME)'] }] },
  });
  const calico = daemonSet(cluster, {
    namespace: system, name: 'calico-node', createdAgo: '211d', podAgo: '38d', labels: { 'k8s-app': 'calico-node' },
    restarts: { 3: { container: 'calico-node', count: 1, reason: 'Error', exitCode: 1, finishedAgo: '1d6h' } },
    template: { ...everywhere, labels: { 'k8s-app': 'calico-node' }, serviceAccountName: 'calico-node', initContainers: [{ name: 'upgrade-ipam', image: 'docker.io/calico/cni:v3.28.2' }, { name: 'install-cni', image: 'docker.io/calico/cni:v3.28.2' }], containers: [{ name: 'calico-node', image: 'docker.io/calico/node:v3.28.2', requests: { cpu: '250m' }, readinessProbe: { exec: { command: ['/bin/calico-node', '-felix-ready', '-bird-ready'] }, periodSeconds: 10, timeoutSeconds: 10 }, livenessProbe: { exec: { command: ['/bin/calico-node', '-felix-live', '-bird-live'] }, initialDelaySeconds: 10, periodSeconds: 10, timeoutSeconds: 10, failureThreshold: 6 } }] },
  });
  deployment(cluster, {
    namespace: system, name: 'calico-kube-controllers', createdAgo: '211d', podAgo: '38d', replicas: 1, revision: 2, labels: { 'k8s-app': 'calico-kube-controllers' }, selector: { 'k8s-app': 'calico-kube-controllers' },
    template: { priorityClassName: 'system-cluster-critical', labels: { 'k8s-app': 'calico-kube-controllers' }, serviceAccountName: 'calico-kube-controllers', containers: [{ name: 'calico-kube-controllers', image: 'docker.io/calico/kube-controllers:v3.28.2', readinessProbe: { exec: { command: ['/usr/bin/check-status', '-r'] }, periodSeconds: 10 } }] },
  });
  const coredns = deployment(cluster, {
    namespace: system, name: 'coredns', createdAgo: '212d', podAgo: '38d', replicas: 2, revision: 3, labels: { 'k8s-app': 'kube-dns' }, selector: { 'k8s-app': 'kube-dns' },
    template: { priorityClassName: 'system-cluster-critical', labels: { 'k8s-app': 'kube-dns' }, serviceAccountName: 'coredns', tolerations: [{ key: 'CriticalAddonsOnly', operator: 'Exists' }, { effect: 'NoSchedule', key: 'node-role.kubernetes.io/control-plane' }], containers: [{ name: 'coredns', image: 'registry.k8s.io/coredns/coredns:v1.11.3', args: ['-conf', '/etc/coredns/Corefile'], ports: [{ name: 'dns', containerPort: 53, protocol: 'UDP' }, { name: 'dns-tcp', containerPort: 53 }, { name: 'metrics', containerPort: 9153 }], requests: { cpu: '100m', memory: '70Mi' }, limits: { memory: '170Mi' }, readinessProbe: { httpGet: { path: '/ready', port: 8181 }, periodSeconds: 10 } }], volumes: [{ name: 'config-volume', configMap: { name: 'coredns', items: [{ key: 'Corefile', path: 'Corefile' }] } }] },
  });
  service(cluster, { namespace: system, name: 'kube-dns', createdAgo: '212d', clusterIP: '10.96.0.10', selector: { 'k8s-app': 'kube-dns' }, ports: [{ name: 'dns', port: 53, targetPort: 53, protocol: 'UDP' }, { name: 'dns-tcp', port: 53, targetPort: 53 }, { name: 'metrics', port: 9153, targetPort: 9153 }], labels: { 'k8s-app': 'kube-dns', 'kubernetes.io/cluster-service': 'true', 'kubernetes.io/name': 'CoreDNS' } });
  cluster.configMap(system, 'kubeadm-config', { ClusterConfiguration: `apiServer: {}\napiVersion: kubeadm.k8s.io/v1beta4\nclusterName: kubernetes\ncontrolPlaneEndpoint: k8s-api.dc1.internal:6443\nkind: ClusterConfiguration\nkubernetesVersion: ${VERSION}\nnetworking:\n  dnsDomain: cluster.local\n  podSubnet: 192.168.0.0/16\n  serviceSubnet: 10.96.0.0/12\n` }, { createdAgo: '212d' });

  cluster.namespace('local-path-storage', '211d');
  deployment(cluster, {
    namespace: 'local-path-storage', name: 'local-path-provisioner', createdAgo: '211d', podAgo: '38d', replicas: 1, revision: 1, labels: { app: 'local-path-provisioner' }, selector: { app: 'local-path-provisioner' },
    template: { labels: { app: 'local-path-provisioner' }, serviceAccountName: 'local-path-provisioner-service-account', containers: [{ name: 'local-path-provisioner', image: 'docker.io/rancher/local-path-provisioner:v0.0.30', args: ['local-path-provisioner', '--debug', 'start', '--config', '/etc/config/config.json'] }] },
  });
  cluster.configMap('local-path-storage', 'local-path-config', { 'config.json': '{\n  "nodePathMap": [{"node": "DEFAULT_PATH_FOR_NON_LISTED_NODES", "paths": ["/opt/local-path-provisioner"]}]\n}\n' }, { createdAgo: '211d' });

  monitoring(cluster, { storage, serviceIps: ['10.103.45.12', '10.99.201.7', '10.108.17.230', '10.97.88.141', '10.110.3.66', '10.104.150.9'], ages: { namespace: '180d', pods: '38d' } });
  teamNamespace(cluster, {
    namespace: 'erp', team: 'erp', createdAgo: '150d', serviceIps: ['10.101.12.88', '10.106.240.3'],
    api: { name: 'erp-gateway', image: 'harbor.dc1.internal/erp/gateway:5.8.2', previousImage: 'harbor.dc1.internal/erp/gateway:5.8.1', port: 8080, replicas: 3, logs: teamLogs.javaApi },
    worker: { name: 'erp-invoice-worker', image: 'harbor.dc1.internal/erp/invoice-worker:5.8.2', logs: teamLogs.queueWorker },
    database: { name: 'erp-mariadb', image: 'docker.io/library/mariadb:11.4.4', port: 3306, portName: 'mysql', size: '40Gi', env: [{ name: 'MARIADB_DATABASE', value: 'erp' }] },
    cron: { name: 'erp-backup', image: 'harbor.dc1.internal/platform/db-backup:2.3.0', schedule: '0 */3 * * *', lastRunAgo: '2h5m', args: ['--target=s3://backups.dc1.internal/erp'] },
  }, storage);
  teamNamespace(cluster, {
    namespace: 'intranet', team: 'workplace', createdAgo: '120d', serviceIps: ['10.98.77.140', '10.102.5.219'],
    api: { name: 'intranet-portal', image: 'harbor.dc1.internal/workplace/portal:2026.11.2', previousImage: 'harbor.dc1.internal/workplace/portal:2026.11.1', port: 3000, replicas: 2, restart: { count: 1, reason: 'Completed', exitCode: 0, finishedAgo: '1d6h' }, logs: teamLogs.nodeApi },
    worker: { name: 'intranet-search-indexer', image: 'harbor.dc1.internal/workplace/search-indexer:1.2.0', logs: teamLogs.queueWorker },
    database: { name: 'intranet-redis', image: 'docker.io/library/redis:7.4.1', port: 6379, portName: 'redis', size: '2Gi', env: [] },
    cron: { name: 'directory-sync', image: 'harbor.dc1.internal/workplace/ldap-sync:0.9.3', schedule: '45 * * * *', lastRunAgo: '1h20m', args: ['--ldap=ldaps://dc1-ad01.corp.internal'] },
  }, storage);

  const backupPod = findPod(cluster, 'erp', 'erp-backup');
  cluster.event({ involved: backupPod, type: 'Warning', reason: 'FailedScheduling', message: '0/4 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 3 Insufficient memory. preemption: 0/4 nodes are available: 1 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod.', firstAgo: '2h5m', component: 'default-scheduler' });
  cluster.event({ involved: backupPod, type: 'Normal', reason: 'Scheduled', message: `Successfully assigned erp/${backupPod.metadata.name} to ${String((backupPod['spec'] as { nodeName: string }).nodeName)}`, firstAgo: '2h4m', component: 'default-scheduler' });
  const calicoPod = calico.find((object) => object.kind === 'Pod' && (object['spec'] as { nodeName: string }).nodeName === 'dc1-k8s-w03');
  if (calicoPod) {
    cluster.event({ involved: calicoPod, type: 'Warning', reason: 'Unhealthy', message: 'Readiness probe failed: calico/node is not ready: BIRD is not ready: BGP not established with 10.20.30.11,10.20.30.21,10.20.30.22', firstAgo: '3h20m', lastAgo: '3h19m', count: 4, component: 'kubelet', host: 'dc1-k8s-w03', fieldPath: 'spec.containers{calico-node}' });
    const at = (ago: string, extraMs = 0): string => clock.logAgo(ago, extraMs).replace('T', ' ').slice(0, 23);
    cluster.log(calicoPod, 'calico-node', [
      `${at('1d6h')} [INFO][9] startup/startup.go 445: Early log level set to info`,
      `${at('1d6h', 900)} [INFO][9] startup/startup.go 761: Using autodetected IPv4 address on interface ens192: 10.20.30.23/24`,
      `${at('1d6h', 3000)} [INFO][61] felix/int_dataplane.go 1953: Completed first update to dataplane. secondsSinceStart=1.82`,
      `${at('3h20m')} [WARNING][61] felix/health.go 211: Reporter is not ready. name="int_dataplane"`,
      `${at('3h19m', 40_000)} [INFO][61] felix/health.go 336: Overall health status changed: live=true ready=true`,
      `${at('1h')} [INFO][61] felix/summary.go 100: Summarising 11 dataplane reconciliation loops over 1m2.4s: avg=5ms longest=19ms (resync-filter-v4)`,
      `${at('4m')} [INFO][61] felix/summary.go 100: Summarising 12 dataplane reconciliation loops over 1m3.1s: avg=4ms longest=22ms (resync-routes-v4)`,
    ]);
  }
  cluster.log(etcd, 'etcd', [
    `{"level":"info","ts":"${clock.logAgo('5h')}","caller":"mvcc/index.go:214","msg":"compact tree index","revision":48122013}`,
    `{"level":"info","ts":"${clock.logAgo('5h', 310)}","caller":"mvcc/kvstore_compaction.go:69","msg":"finished scheduled compaction","compact-revision":48122013,"took":"288.4ms"}`,
    `{"level":"warn","ts":"${clock.logAgo('3h20m')}","caller":"etcdserver/util.go:170","msg":"apply request took too long","took":"131.72ms","expected-duration":"100ms","prefix":"read-only range ","request":"key:\\"/registry/leases/kube-node-lease/dc1-k8s-w03\\" ","response":"range_response_count:1 size:552"}`,
    `{"level":"info","ts":"${clock.logAgo('10m')}","caller":"mvcc/index.go:214","msg":"compact tree index","revision":48191874}`,
  ]);
  cluster.log(controllerManager, 'kube-controller-manager', [
    `I${klog(clock, '3d11h', -20_000)} 1 leaderelection.go:297] failed to renew lease kube-system/kube-controller-manager: timed out waiting for the condition`,
    `I${klog(clock, '3d11h', -19_000)} 1 event.go:389] "Event occurred" object="kube-system/kube-controller-manager" kind="Lease" reason="LeaderElection" message="dc1-k8s-cp01_6f0b stopped leading"`,
  ], true);
  cluster.log(controllerManager, 'kube-controller-manager', [
    `I${klog(clock, '3d11h')} 1 serving.go:386] Generated self-signed cert in-memory`,
    `I${klog(clock, '3d11h', 12_000)} 1 leaderelection.go:254] attempting to acquire leader lease kube-system/kube-controller-manager...`,
    `I${klog(clock, '3d11h', 14_000)} 1 leaderelection.go:268] successfully acquired lease kube-system/kube-controller-manager`,
    `I${klog(clock, '2h5m')} 1 event.go:389] "Event occurred" object="erp/erp-backup" kind="CronJob" reason="SuccessfulCreate" message="Created job ${backupPod.metadata.labels?.['job-name'] ?? ''}"`,
  ]);
  const corednsPod = coredns.find((object) => object.kind === 'Pod');
  if (corednsPod) cluster.log(corednsPod, 'coredns', teamLogs.coredns('1.11.3'));
  return cluster;
}
