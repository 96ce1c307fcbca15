/**
 * `aks`: an Azure AKS 1.30 cluster in westeurope: one VMSS system pool on Azure CNI
 * overlay, with the add-ons AKS manages (azure-cns, azure-ip-masq-agent, cloud-node-manager,
 * kube-proxy, CoreDNS and its autoscaler, konnectivity-agent, metrics-server, the Azure Disk
 * CSI node plugin), kube-prometheus-stack and two product teams.
 */
import { ClusterBuilder, type NodeSpec } from './cluster.ts';
import { Clock } from './kit.ts';
import { monitoring, type StorageSetup } from './monitoring.ts';
import { findPod, klog, teamLogs } from './noise.ts';
import { service, storageClass } from './services.ts';
import { teamNamespace } from './team.ts';
import { daemonSet, deployment } from './workloads.ts';

export const AKS_NOW = '2026-11-27T08:45:00Z';

const POOL = 'aks-nodepool1-70391846-vmss';
const RESOURCE_GROUP = 'MC_rg-claims-prod_aks-claims-prod_westeurope';

function aksNode(index: number, createdAgo: string): NodeSpec {
  const name = `${POOL}${String(index).padStart(6, '0')}`;
  return {
    name,
    ip: `10.224.0.${4 + index}`,
    podPrefix: `10.244.${index}.`,
    podCIDR: `10.244.${index}.0/24`,
    createdAgo,
    providerID: `azure:///subscriptions/3f9c1b2e-7a4d-4e8f-9b6a-2c1d0e5f7a83/resourceGroups/mc_rg-claims-prod_aks-claims-prod_westeurope/providers/Microsoft.Compute/virtualMachineScaleSets/${POOL}/virtualMachines/${index}`,
    labels: {
      agentpool: 'nodepool1',
      'kubernetes.azure.com/agentpool': 'nodepool1',
      'kubernetes.azure.com/cluster': RESOURCE_GROUP,
      'kubernetes.azure.com/consolidated-additional-properties': 'b1a7c3e9-4d2f-11ef-8e5c-6f2a9b1d3c7e',
      'kubernetes.azure.com/kubelet-identity-client-id': '5d2e8f1a-9c4b-4a7e-b3d6-0f1e2a3b4c5d',
      'kubernetes.azure.com/mode': 'system',
      'kubernetes.azure.com/network-plugin': 'azure',
      'kubernetes.azure.com/network-plugin-mode': 'overlay',
      'kubernetes.azure.com/node-image-version': 'AKSUbuntu-2204gen2containerd-202411.12.0',
      'kubernetes.azure.com/os-sku': 'Ubuntu',
      'kubernetes.azure.com/role': 'agent',
      'kubernetes.azure.com/storageprofile': 'managed',
      'kubernetes.azure.com/storagetier': 'Premium_LRS',
      'node.kubernetes.io/instance-type': 'Standard_D4s_v5',
      'beta.kubernetes.io/instance-type': 'Standard_D4s_v5',
      'topology.disk.csi.azure.com/zone': `westeurope-${index + 1}`,
      'topology.kubernetes.io/region': 'westeurope',
      'topology.kubernetes.io/zone': `westeurope-${index + 1}`,
    },
    annotations: { 'csi.volume.kubernetes.io/nodeid': `{"disk.csi.azure.com":"${name}","file.csi.azure.com":"${name}"}` },
    capacity: { cpu: '4', memory: '16375368Ki', pods: '250', storage: '129886128Ki' },
    allocatable: { cpu: '3860m', memory: '12880968Ki', pods: '250', storage: '119703055367' },
    nodeInfo: { kernelVersion: '5.15.0-1074-azure', osImage: 'Ubuntu 22.04.5 LTS', containerRuntimeVersion: 'containerd://1.7.23-1', kubeletVersion: 'v1.30.6' },
  };
}

const MCR = 'mcr.microsoft.com';

export function buildAks(): ClusterBuilder {
  const clock = new Clock(AKS_NOW);
  const nodes = [aksNode(0, '18d'), { ...aksNode(1, '18d'), resolvedCondition: { type: 'DiskPressure' as const, ago: '1d9h' } }, { ...aksNode(2, '7d3h'), readySinceAgo: '7d3h' }];
  const cluster = new ClusterBuilder('aks', clock, nodes);
  const storage: StorageSetup = { storageClassName: 'managed-csi', provisioner: 'disk.csi.azure.com', volumeHandle: (seed) => `/subscriptions/3f9c1b2e-7a4d-4e8f-9b6a-2c1d0e5f7a83/resourceGroups/${RESOURCE_GROUP.toLowerCase()}/providers/Microsoft.Compute/disks/pvc-${seed.slice(0, 8)}` };
  for (const namespace of ['default', 'kube-node-lease', 'kube-public', 'kube-system']) cluster.namespace(namespace, '63d');
  storageClass(cluster, { name: 'managed-csi', provisioner: 'disk.csi.azure.com', parameters: { skuname: 'StandardSSD_LRS' }, isDefault: true, createdAgo: '63d' });
  storageClass(cluster, { name: 'managed-csi-premium', provisioner: 'disk.csi.azure.com', parameters: { skuname: 'Premium_LRS' }, createdAgo: '63d' });
  storageClass(cluster, { name: 'azurefile-csi', provisioner: 'file.csi.azure.com', parameters: { skuName: 'Standard_LRS' }, createdAgo: '63d' });

  const system = 'kube-system';
  const managed = { 'kubernetes.azure.com/managedby': 'aks' };
  const nodeCritical = { priorityClassName: 'system-node-critical', tolerations: [{ operator: 'Exists' }], hostNetwork: true };
  const ds = (name: string, image: string, labels: Record<string, string>, requests: { cpu: string; memory: string }, extra: { restarts?: Parameters<typeof daemonSet>[1]['restarts']; containers?: { name: string; image: string }[] } = {}): void => {
    daemonSet(cluster, {
      namespace: system, name, createdAgo: '63d', podAgo: '7d3h', labels: { ...labels, ...managed }, selector: labels,
      ...(extra.restarts ? { restarts: extra.restarts } : {}),
      template: { ...nodeCritical, labels: { ...labels, ...managed }, serviceAccountName: name, containers: [{ name: name.replace(/^azure-/, ''), image, requests, limits: { memory: '500Mi' } }, ...(extra.containers ?? []).map((container) => ({ ...container, requests: { cpu: '10m', memory: '20Mi' } }))] },
    });
  };
  ds('azure-cns', `${MCR}/containernetworking/azure-cns:v1.6.13`, { 'k8s-app': 'azure-cns' }, { cpu: '40m', memory: '250Mi' });
  ds('azure-ip-masq-agent', `${MCR}/aks/ip-masq-agent-v2:v0.1.14`, { 'k8s-app': 'azure-ip-masq-agent', tier: 'node' }, { cpu: '100m', memory: '50Mi' });
  ds('cloud-node-manager', `${MCR}/oss/kubernetes/azure-cloud-node-manager:v1.30.7`, { 'k8s-app': 'cloud-node-manager' }, { cpu: '50m', memory: '50Mi' }, { restarts: { 2: { count: 2, reason: 'Error', exitCode: 255, finishedAgo: '7d3h' } } });
  ds('kube-proxy', `${MCR}/oss/kubernetes/kube-proxy:v1.30.6-hotfix.20241024`, { component: 'kube-proxy', tier: 'node' }, { cpu: '100m', memory: '50Mi' });
  ds('csi-azuredisk-node', `${MCR}/oss/kubernetes-csi/azuredisk-csi:v1.30.5`, { app: 'csi-azuredisk-node' }, { cpu: '10m', memory: '20Mi' }, { containers: [{ name: 'liveness-probe', image: `${MCR}/oss/kubernetes-csi/livenessprobe:v2.13.1` }, { name: 'node-driver-registrar', image: `${MCR}/oss/kubernetes-csi/csi-node-driver-registrar:v2.11.1` }] });

  const critical = { priorityClassName: 'system-cluster-critical', tolerations: [{ key: 'CriticalAddonsOnly', operator: 'Exists' }] };
  const coredns = deployment(cluster, {
    namespace: system, name: 'coredns', createdAgo: '63d', podAgo: '7d2h', replicas: 2, revision: 6, labels: { 'k8s-app': 'kube-dns', 'kubernetes.io/cluster-service': 'true', version: 'v20', ...managed }, selector: { 'k8s-app': 'kube-dns', version: 'v20' },
    template: { ...critical, labels: { 'k8s-app': 'kube-dns', 'kubernetes.azure.com/managedby': 'aks', version: 'v20' }, serviceAccountName: 'coredns', containers: [{ name: 'coredns', image: `${MCR}/oss/kubernetes/coredns:v1.9.4-hotfix.20240704`, args: ['-conf', '/etc/coredns/Corefile'], ports: [{ name: 'dns', containerPort: 53, protocol: 'UDP' }, { name: 'dns-tcp', containerPort: 53 }, { name: 'metrics', containerPort: 9153 }], requests: { cpu: '100m', memory: '70Mi' }, limits: { memory: '500Mi' }, readinessProbe: { httpGet: { path: '/ready', port: 8181 }, periodSeconds: 10 } }] },
  });
  const autoscalerPods = deployment(cluster, {
    namespace: system, name: 'coredns-autoscaler', createdAgo: '63d', podAgo: '7d2h', replicas: 1, revision: 4, labels: { 'k8s-app': 'coredns-autoscaler', ...managed }, selector: { 'k8s-app': 'coredns-autoscaler' },
    template: { ...critical, labels: { 'k8s-app': 'coredns-autoscaler', ...managed }, serviceAccountName: 'coredns-autoscaler', containers: [{ name: 'autoscaler', image: `${MCR}/oss/kubernetes/autoscaler/cluster-proportional-autoscaler:v1.8.11`, args: ['/cluster-proportional-autoscaler', '--namespace=kube-system', '--configmap=coredns-autoscaler', '--target=deployment/coredns', '--default-params={"ladder":{"coresToReplicas":[[1,2],[512,3],[1024,4],[2048,5]],"nodesToReplicas":[[1,2],[8,3],[16,4],[32,5]]}}', '--logtostderr=true', '--v=2'], requests: { cpu: '20m', memory: '10Mi' }, limits: { memory: '500Mi' } }] },
  });
  const konnectivity = deployment(cluster, {
    namespace: system, name: 'konnectivity-agent', createdAgo: '63d', podAgo: '7d2h', replicas: 2, revision: 9, labels: { app: 'konnectivity-agent', ...managed }, selector: { app: 'konnectivity-agent' },
    restarts: { 0: { count: 1, reason: 'Error', exitCode: 2, finishedAgo: '2d14h' } },
    template: { ...critical, labels: { app: 'konnectivity-agent', component: 'tunnel', ...managed }, serviceAccountName: 'konnectivity-agent', containers: [{ name: 'konnectivity-agent', image: `${MCR}/oss/kubernetes/apiserver-network-proxy/agent:v0.30.3-hotfix.20240819`, args: ['--logtostderr=true', '--proxy-server-host=aks-claims-prod-dns-7f3a1c2e.hcp.westeurope.azmk8s.io', '--proxy-server-port=443', '--health-server-port=8082', '--keepalive-time=30s'], requests: { cpu: '20m', memory: '20Mi' }, limits: { cpu: '1', memory: '1Gi' }, livenessProbe: { httpGet: { path: '/healthz', port: 8082 }, initialDelaySeconds: 15, timeoutSeconds: 15 } }] },
  });
  deployment(cluster, {
    namespace: system, name: 'metrics-server', createdAgo: '63d', podAgo: '7d2h', replicas: 2, revision: 5, labels: { 'k8s-app': 'metrics-server', ...managed }, selector: { 'k8s-app': 'metrics-server' },
    template: { ...critical, labels: { 'k8s-app': 'metrics-server', ...managed }, serviceAccountName: 'metrics-server', containers: [{ name: 'metrics-server', image: `${MCR}/oss/kubernetes/metrics-server:v0.7.2`, args: ['--kubelet-insecure-tls', '--kubelet-preferred-address-types=InternalIP', '--cert-dir=/tmp', '--secure-port=4443'], ports: [{ name: 'https', containerPort: 4443 }], requests: { cpu: '50m', memory: '85Mi' }, limits: { memory: '400Mi' }, readinessProbe: { httpGet: { path: '/readyz', port: 'https', scheme: 'HTTPS' }, periodSeconds: 10 } }] },
  });
  service(cluster, { namespace: system, name: 'kube-dns', createdAgo: '63d', clusterIP: '10.0.0.10', selector: { 'k8s-app': 'kube-dns' }, ports: [{ name: 'dns', port: 53, targetPort: 53, protocol: 'UDP' }, { name: 'dns-tcp', port: 53, targetPort: 53 }], labels: { 'k8s-app': 'kube-dns', 'kubernetes.io/cluster-service': 'true', 'kubernetes.io/name': 'CoreDNS' } });
  service(cluster, { namespace: system, name: 'metrics-server', createdAgo: '63d', clusterIP: '10.0.118.63', selector: { 'k8s-app': 'metrics-server' }, ports: [{ port: 443, targetPort: 'https' }], labels: { 'k8s-app': 'metrics-server', 'kubernetes.io/cluster-service': 'true' } });
  cluster.configMap(system, 'coredns-autoscaler', { ladder: '{"coresToReplicas":[[1,2],[512,3],[1024,4],[2048,5]],"nodesToReplicas":[[1,2],[8,3],[16,4],[32,5]]}' }, { createdAgo: '63d' });
  cluster.configMap(system, 'coredns-custom', {}, { createdAgo: '63d', labels: { 'addonmanager.kubernetes.io/mode': 'EnsureExists', 'k8s-app': 'kube-dns' } });

  monitoring(cluster, { storage, serviceIps: ['10.0.41.220', '10.0.173.9', '10.0.96.141', '10.0.12.77', '10.0.230.18', '10.0.64.5'], ages: { namespace: '52d', pods: '7d1h' } });
  teamNamespace(cluster, {
    namespace: 'claims', team: 'claims', createdAgo: '48d', serviceIps: ['10.0.150.32', '10.0.201.8'],
    api: { name: 'claims-intake', image: 'claimsprod.azurecr.io/claims/intake-api:2024.11.4', previousImage: 'claimsprod.azurecr.io/claims/intake-api:2024.11.3', port: 8080, replicas: 2, restart: { count: 3, reason: 'Error', exitCode: 143, finishedAgo: '1d19h' }, logs: teamLogs.javaApi },
    worker: { name: 'claims-document-worker', image: 'claimsprod.azurecr.io/claims/document-worker:1.9.2', logs: teamLogs.queueWorker },
    database: { name: 'claims-postgres', image: 'docker.io/bitnami/postgresql:16.4.0-debian-12-r14', port: 5432, portName: 'postgresql', size: '32Gi', env: [{ name: 'POSTGRESQL_PORT_NUMBER', value: '5432' }] },
    cron: { name: 'claims-report', image: 'claimsprod.azurecr.io/claims/reporting:0.7.1', schedule: '15 */2 * * *', lastRunAgo: '1h30m', args: ['report', '--since=2h'] },
  }, storage);
  teamNamespace(cluster, {
    namespace: 'underwriting', team: 'underwriting', createdAgo: '31d', serviceIps: ['10.0.87.190', '10.0.33.47'],
    api: { name: 'quote-engine', image: 'claimsprod.azurecr.io/underwriting/quote-engine:v3.12.0', previousImage: 'claimsprod.azurecr.io/underwriting/quote-engine:v3.11.2', port: 3000, replicas: 2, logs: teamLogs.nodeApi },
    worker: { name: 'risk-score-worker', image: 'claimsprod.azurecr.io/underwriting/risk-worker:v1.3.7', logs: teamLogs.queueWorker },
    database: { name: 'quote-cache', image: 'docker.io/library/redis:7.2.6-alpine', port: 6379, portName: 'redis', size: '4Gi', env: [] },
    cron: { name: 'rates-import', image: 'claimsprod.azurecr.io/underwriting/rates-import:v0.4.0', schedule: '0 */6 * * *', lastRunAgo: '2h45m', args: ['--source', 'sftp://rates.partner.example/daily'] },
  }, storage);

  const reportPod = findPod(cluster, 'claims', 'claims-report');
  const reportNode = String((reportPod['spec'] as { nodeName: string }).nodeName);
  cluster.event({ involved: reportPod, type: 'Warning', reason: 'FailedScheduling', message: '0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.', firstAgo: '1h30m', count: 2, lastAgo: '1h29m', component: 'default-scheduler' });
  cluster.event({ involved: reportPod, type: 'Normal', reason: 'Scheduled', message: `Successfully assigned claims/${reportPod.metadata.name} to ${reportNode}`, firstAgo: '1h28m', component: 'default-scheduler' });
  const importPod = findPod(cluster, 'underwriting', 'rates-import');
  const image = 'claimsprod.azurecr.io/underwriting/rates-import:v0.4.0';
  const host = String((importPod['spec'] as { nodeName: string }).nodeName);
  cluster.event({ involved: importPod, type: 'Warning', reason: 'Failed', message: `Failed to pull image "${image}": failed to pull and unpack image "${image}": failed to copy: httpReadSeeker: failed open: failed to do request: Get "https://claimsprod.westeurope.data.azurecr.io/docker/registry/v2/blobs/sha256/4e/4e1f...": net/http: TLS handshake timeout`, firstAgo: '2h45m', component: 'kubelet', host, fieldPath: 'spec.containers{rates-import}' });
  cluster.event({ involved: importPod, type: 'Normal', reason: 'BackOff', message: `Back-off pulling image "${image}"`, firstAgo: '2h44m', count: 1, component: 'kubelet', host, fieldPath: 'spec.containers{rates-import}' });
  cluster.event({ involved: importPod, type: 'Normal', reason: 'Pulled', message: `Successfully pulled image "${image}" in 4.212s (4.212s including waiting). Image size: 48211937 bytes.`, firstAgo: '2h44m', component: 'kubelet', host, fieldPath: 'spec.containers{rates-import}' });

  const corednsPod = coredns.find((object) => object.kind === 'Pod');
  if (corednsPod) cluster.log(corednsPod, 'coredns', teamLogs.coredns('1.9.4'));
  const autoscalerPod = autoscalerPods.find((object) => object.kind === 'Pod');
  if (autoscalerPod) cluster.log(autoscalerPod, 'autoscaler', [
    `I${klog(clock, '7d2h')} 1 autoscaler.go:49] Scaling Namespace: kube-system, Target: deployment/coredns`,
    `I${klog(clock, '7d2h', 500)} 1 autoscaler_server.go:157] ConfigMap not found: configmaps "coredns-autoscaler" not found, will create one with default params`,
    `I${klog(clock, '7d2h', 900)} 1 k8sclient.go:147] Created ConfigMap coredns-autoscaler in namespace kube-system`,
    `I${klog(clock, '7d2h', 1000)} 1 linear_controller.go:60] ConfigMap version change (old:  new: 4401) - rebuilding params`,
    `I${klog(clock, '7d2h', 1100)} 1 linear_controller.go:61] Params from apiserver: {"coresToReplicas":[[1,2],[512,3],[1024,4],[2048,5]],"nodesToReplicas":[[1,2],[8,3],[16,4],[32,5]]}`,
  ]);
  const konnectivityPod = konnectivity.find((object) => object.kind === 'Pod');
  if (konnectivityPod) cluster.log(konnectivityPod, 'konnectivity-agent', [
    `I${klog(clock, '2d14h')} 1 options.go:110] AgentCert set to "/certs/client.crt".`,
    `I${klog(clock, '2d14h', 200)} 1 client.go:255] "Connect to server" serverID="b7d01c6a-9e2f-4c3b-8f1a-2d4e6a8c0b13"`,
    `I${klog(clock, '2d14h', 210)} 1 clientset.go:222] "sync added client connecting to proxy server" serverID="b7d01c6a-9e2f-4c3b-8f1a-2d4e6a8c0b13"`,
    `W${klog(clock, '6h10m')} 1 clientset.go:238] "cannot connect once, retrying in 5s" err="rpc error: code = Unavailable desc = connection error"`,
    `I${klog(clock, '6h10m', 5100)} 1 client.go:255] "Connect to server" serverID="b7d01c6a-9e2f-4c3b-8f1a-2d4e6a8c0b13"`,
  ]);
  return cluster;
}

