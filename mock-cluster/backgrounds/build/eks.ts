/**
 * `eks`: an Amazon EKS 1.31 cluster in eu-west-1: two managed node groups, the VPC CNI
 * (aws-node) and kube-proxy on every node, CoreDNS, the EBS CSI driver, the AWS Load
 * Balancer Controller, metrics-server, kube-prometheus-stack and two product teams.
 */
import { ClusterBuilder, type NodeSpec } from './cluster.ts';
import { Clock } from './kit.ts';
import { monitoring, type StorageSetup } from './monitoring.ts';
import { findPod, teamLogs } from './noise.ts';
import { service, storageClass } from './services.ts';
import { teamNamespace } from './team.ts';
import { daemonSet, deployment } from './workloads.ts';

export const EKS_NOW = '2026-11-30T14:20:00Z';

function eksNode(input: { ip: string; zone: string; nodegroup: string; instanceType: string; spot?: boolean; createdAgo: string; instance: string; large: boolean }): NodeSpec {
  const name = `ip-${input.ip.replaceAll('.', '-')}.eu-west-1.compute.internal`;
  const capacity = input.large ? { cpu: '4', memory: '16069568Ki', pods: '58', storage: '83873772Ki' } : { cpu: '2', memory: '7941112Ki', pods: '29', storage: '83873772Ki' };
  const allocatable = input.large ? { cpu: '3920m', memory: '15136704Ki', pods: '58', storage: '76224326324' } : { cpu: '1930m', memory: '7291888Ki', pods: '29', storage: '76224326324' };
  return {
    name,
    ip: input.ip,
    podPrefix: `${input.ip.split('.').slice(0, 3).join('.')}.`,
    createdAgo: input.createdAgo,
    providerID: `aws:///eu-west-1${input.zone}/${input.instance}`,
    labels: {
      'eks.amazonaws.com/capacityType': input.spot ? 'SPOT' : 'ON_DEMAND',
      'eks.amazonaws.com/nodegroup': input.nodegroup,
      'eks.amazonaws.com/nodegroup-image': 'ami-0a5e3c7d41f2b9e60',
      'eks.amazonaws.com/sourceLaunchTemplateId': 'lt-0e1f7c2a9b3d45e61',
      'eks.amazonaws.com/sourceLaunchTemplateVersion': '3',
      'node.kubernetes.io/instance-type': input.instanceType,
      'beta.kubernetes.io/instance-type': input.instanceType,
      'topology.kubernetes.io/region': 'eu-west-1',
      'topology.kubernetes.io/zone': `eu-west-1${input.zone}`,
      'topology.ebs.csi.aws.com/zone': `eu-west-1${input.zone}`,
      'k8s.io/cloud-provider-aws': '5c0d7f1e9a3b4c2d8e6f0a1b2c3d4e5f',
    },
    annotations: { 'alpha.kubernetes.io/provided-node-ip': input.ip, 'csi.volume.kubernetes.io/nodeid': `{"ebs.csi.aws.com":"${input.instance}"}` },
    capacity,
    allocatable,
    nodeInfo: { kernelVersion: '6.1.115-126.197.amzn2023.x86_64', osImage: 'Amazon Linux 2023.6.20241121', containerRuntimeVersion: 'containerd://1.7.23', kubeletVersion: 'v1.31.2-eks-94953ac' },
  };
}

export function buildEks(): ClusterBuilder {
  const clock = new Clock(EKS_NOW);
  const nodes = [
    eksNode({ ip: '10.0.37.142', zone: 'a', nodegroup: 'general-20251104', instanceType: 'm6i.xlarge', createdAgo: '26d', instance: 'i-0b8e2d4f61a7c3905', large: true }),
    eksNode({ ip: '10.0.61.18', zone: 'b', nodegroup: 'general-20251104', instanceType: 'm6i.xlarge', createdAgo: '26d', instance: 'i-04c9a1e7d2b8f3601', large: true }),
    { ...eksNode({ ip: '10.0.88.203', zone: 'c', nodegroup: 'general-20251104', instanceType: 'm6i.xlarge', createdAgo: '11d', instance: 'i-0f2a6b9c4e1d7a388', large: true }), resolvedCondition: { type: 'MemoryPressure' as const, ago: '2d3h' } },
    eksNode({ ip: '10.0.104.57', zone: 'a', nodegroup: 'batch-spot-20251120', instanceType: 'm6a.large', spot: true, createdAgo: '5d4h', instance: 'i-07d3e8f1a2b6c4d90', large: false }),
  ];
  const cluster = new ClusterBuilder('eks', clock, nodes);
  const storage: StorageSetup = { storageClassName: 'gp3', provisioner: 'ebs.csi.aws.com', volumeHandle: (seed) => `vol-0${seed.slice(0, 16)}` };
  for (const namespace of ['default', 'kube-node-lease', 'kube-public', 'kube-system']) cluster.namespace(namespace, '41d');
  storageClass(cluster, { name: 'gp2', provisioner: 'kubernetes.io/aws-ebs', parameters: { fsType: 'ext4', type: 'gp2' }, createdAgo: '41d' });
  storageClass(cluster, { name: 'gp3', provisioner: 'ebs.csi.aws.com', parameters: { encrypted: 'true', type: 'gp3' }, isDefault: true, createdAgo: '40d' });

  const system = 'kube-system';
  const critical = { priorityClassName: 'system-node-critical', tolerations: [{ operator: 'Exists' }] };
  const awsNode = daemonSet(cluster, {
    namespace: system, name: 'aws-node', createdAgo: '41d', podAgo: '5d4h', labels: { 'app.kubernetes.io/name': 'aws-node', 'k8s-app': 'aws-node' }, selector: { 'k8s-app': 'aws-node' },
    restarts: { 3: { container: 'aws-node', count: 1, reason: 'Error', exitCode: 1, finishedAgo: '5d4h' } },
    template: { ...critical, labels: { 'app.kubernetes.io/instance': 'aws-vpc-cni', 'app.kubernetes.io/name': 'aws-node', 'k8s-app': 'aws-node' }, hostNetwork: true, serviceAccountName: 'aws-node', initContainers: [{ name: 'aws-vpc-cni-init', image: '602401143452.dkr.ecr.eu-west-1.amazonaws.com/amazon-k8s-cni-init:v1.19.0-eksbuild.1', requests: { cpu: '25m' } }], containers: [{ name: 'aws-node', image: '602401143452.dkr.ecr.eu-west-1.amazonaws.com/amazon-k8s-cni:v1.19.0-eksbuild.1', ports: [{ name: 'metrics', containerPort: 61678 }], requests: { cpu: '25m' } }, { name: 'aws-eks-nodeagent', image: '602401143452.dkr.ecr.eu-west-1.amazonaws.com/amazon/aws-network-policy-agent:v1.1.5-eksbuild.1', requests: { cpu: '25m' } }] },
  });
  daemonSet(cluster, {
    namespace: system, name: 'kube-proxy', createdAgo: '41d', podAgo: '5d4h', labels: { 'eks.amazonaws.com/component': 'kube-proxy', 'k8s-app': 'kube-proxy' }, selector: { 'k8s-app': 'kube-proxy' },
    template: { ...critical, labels: { 'k8s-app': 'kube-proxy' }, hostNetwork: true, serviceAccountName: 'kube-proxy', containers: [{ name: 'kube-proxy', image: '602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/kube-proxy:v1.31.2-minimal-eksbuild.3', args: ['--v=2', '--config=/var/lib/kube-proxy-config/config', '--hostname-override=$(NODE_NAME)'], requests: { cpu: '100m' } }] },
  });
  const coredns = deployment(cluster, {
    namespace: system, name: 'coredns', createdAgo: '41d', podAgo: '11d', replicas: 2, revision: 2, labels: { 'eks.amazonaws.com/component': 'coredns', 'k8s-app': 'kube-dns', 'kubernetes.io/name': 'CoreDNS' }, selector: { 'eks.amazonaws.com/component': 'coredns', 'k8s-app': 'kube-dns' },
    template: { priorityClassName: 'system-cluster-critical', labels: { 'eks.amazonaws.com/component': 'coredns', 'k8s-app': 'kube-dns' }, serviceAccountName: 'coredns', containers: [{ name: 'coredns', image: '602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/coredns:v1.11.3-eksbuild.2', args: ['-conf', '/etc/coredns/Corefile'], ports: [{ name: 'dns', containerPort: 53, protocol: 'UDP' }, { name: 'dns-tcp', containerPort: 53 }, { name: 'metrics', containerPort: 9153 }], requests: { cpu: '100m', memory: '70Mi' }, limits: { memory: '170Mi' }, readinessProbe: { httpGet: { path: '/ready', port: 8181 }, periodSeconds: 10 }, livenessProbe: { httpGet: { path: '/health', port: 8080 }, initialDelaySeconds: 60, periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 5 } }], volumes: [{ name: 'config-volume', configMap: { name: 'coredns', items: [{ key: 'Corefile', path: 'Corefile' }] } }] },
  });
  deployment(cluster, {
    namespace: system, name: 'ebs-csi-controller', createdAgo: '40d', podAgo: '9d', replicas: 2, revision: 4, labels: { 'app.kubernetes.io/component': 'csi-driver', 'app.kubernetes.io/name': 'aws-ebs-csi-driver' }, selector: { app: 'ebs-csi-controller', 'app.kubernetes.io/name': 'aws-ebs-csi-driver' },
    template: { priorityClassName: 'system-cluster-critical', labels: { app: 'ebs-csi-controller', 'app.kubernetes.io/component': 'csi-driver', 'app.kubernetes.io/name': 'aws-ebs-csi-driver' }, serviceAccountName: 'ebs-csi-controller-sa', containers: [
      { name: 'ebs-plugin', image: '602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/aws-ebs-csi-driver:v1.37.0', args: ['controller', '--endpoint=$(CSI_ENDPOINT)', '--batching=true', '--logging-format=text', '--v=2'], ports: [{ name: 'healthz', containerPort: 9808 }], requests: { cpu: '10m', memory: '40Mi' }, limits: { memory: '256Mi' } },
      { name: 'csi-provisioner', image: '602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/csi-provisioner:v5.1.0-eks-1-31-7', requests: { cpu: '10m', memory: '40Mi' }, limits: { memory: '256Mi' } },
      { name: 'csi-attacher', image: '602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/csi-attacher:v4.7.0-eks-1-31-7', requests: { cpu: '10m', memory: '40Mi' }, limits: { memory: '256Mi' } },
      { name: 'liveness-probe', image: '602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/livenessprobe:v2.14.0-eks-1-31-7', requests: { cpu: '10m', memory: '40Mi' }, limits: { memory: '256Mi' } },
    ] },
  });
  const albController = deployment(cluster, {
    namespace: system, name: 'aws-load-balancer-controller', createdAgo: '38d', podAgo: '6d', replicas: 2, revision: 3, previous: { image: 'public.ecr.aws/eks/aws-load-balancer-controller:v2.9.2', createdAgo: '30d' }, labels: { 'app.kubernetes.io/instance': 'aws-load-balancer-controller', 'app.kubernetes.io/name': 'aws-load-balancer-controller', 'app.kubernetes.io/version': 'v2.10.1' }, selector: { 'app.kubernetes.io/instance': 'aws-load-balancer-controller', 'app.kubernetes.io/name': 'aws-load-balancer-controller' },
    template: { priorityClassName: 'system-cluster-critical', labels: { 'app.kubernetes.io/instance': 'aws-load-balancer-controller', 'app.kubernetes.io/name': 'aws-load-balancer-controller' }, serviceAccountName: 'aws-load-balancer-controller', containers: [{ name: 'aws-load-balancer-controller', image: 'public.ecr.aws/eks/aws-load-balancer-controller:v2.10.1', args: ['--cluster-name=shop-prod-euw1', '--ingress-class=alb', '--aws-region=eu-west-1', '--aws-vpc-id=vpc-0c4f1b2a9d8e7f615'], ports: [{ name: 'webhook-server', containerPort: 9443 }, { name: 'metrics-server', containerPort: 8080 }], requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '512Mi' }, livenessProbe: { httpGet: { path: '/healthz', port: 61779 }, initialDelaySeconds: 30, timeoutSeconds: 10, failureThreshold: 2 } }] },
  });
  deployment(cluster, {
    namespace: system, name: 'metrics-server', createdAgo: '41d', podAgo: '11d', replicas: 1, revision: 1, labels: { 'app.kubernetes.io/name': 'metrics-server', 'k8s-app': 'metrics-server' }, selector: { 'k8s-app': 'metrics-server' },
    template: { priorityClassName: 'system-cluster-critical', labels: { 'app.kubernetes.io/name': 'metrics-server', 'k8s-app': 'metrics-server' }, serviceAccountName: 'metrics-server', containers: [{ name: 'metrics-server', image: 'registry.k8s.io/metrics-server/metrics-server:v0.7.2', args: ['--cert-dir=/tmp', '--secure-port=10250', '--kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname', '--kubelet-use-node-status-port', '--metric-resolution=15s'], ports: [{ name: 'https', containerPort: 10250 }], requests: { cpu: '100m', memory: '200Mi' }, readinessProbe: { httpGet: { path: '/readyz', port: 'https', scheme: 'HTTPS' }, initialDelaySeconds: 20, periodSeconds: 10 } }] },
  });
  service(cluster, { namespace: system, name: 'kube-dns', createdAgo: '41d', clusterIP: '10.100.0.10', selector: { 'k8s-app': 'kube-dns' }, ports: [{ name: 'dns', port: 53, targetPort: 53, protocol: 'UDP' }, { name: 'dns-tcp', port: 53, targetPort: 53 }, { name: 'metrics', port: 9153, targetPort: 9153 }], labels: { 'eks.amazonaws.com/component': 'kube-dns', 'k8s-app': 'kube-dns', 'kubernetes.io/name': 'CoreDNS' } });
  service(cluster, { namespace: system, name: 'metrics-server', createdAgo: '41d', clusterIP: '10.100.142.87', selector: { 'k8s-app': 'metrics-server' }, ports: [{ name: 'https', port: 443, targetPort: 'https' }], labels: { 'k8s-app': 'metrics-server' } });
  service(cluster, { namespace: system, name: 'aws-load-balancer-webhook-service', createdAgo: '38d', clusterIP: '10.100.61.203', selector: { 'app.kubernetes.io/instance': 'aws-load-balancer-controller', 'app.kubernetes.io/name': 'aws-load-balancer-controller' }, ports: [{ name: 'webhook-server', port: 443, targetPort: 'webhook-server' }], labels: { 'app.kubernetes.io/name': 'aws-load-balancer-controller' } });
  cluster.configMap(system, 'coredns', { Corefile: '.:53 {\n    errors\n    health {\n        lameduck 5s\n      }\n    ready\n    kubernetes cluster.local in-addr.arpa ip6.arpa {\n      pods insecure\n      fallthrough in-addr.arpa ip6.arpa\n    }\n    prometheus :9153\n    forward . /etc/resolv.conf\n    cache 30\n    loop\n    reload\n    loadbalance\n}\n' }, { createdAgo: '41d', labels: { 'eks.amazonaws.com/component': 'coredns', 'k8s-app': 'kube-dns' } });
  cluster.configMap(system, 'amazon-vpc-cni', { 'enable-network-policy-controller': 'false', 'enable-windows-ipam': 'false', 'enable-windows-prefix-delegation': 'false', 'warm-prefix-target': '0', 'warm-ip-target': '3' }, { createdAgo: '41d', labels: { 'app.kubernetes.io/name': 'aws-node' } });

  monitoring(cluster, { storage, serviceIps: ['10.100.24.61', '10.100.77.12', '10.100.203.140', '10.100.9.231', '10.100.180.5', '10.100.51.98'], ages: { namespace: '33d', pods: '9d' } });
  teamNamespace(cluster, {
    namespace: 'pricing', team: 'pricing', createdAgo: '29d', serviceIps: ['10.100.88.17', '10.100.120.44'],
    api: { name: 'price-api', image: '412817563920.dkr.ecr.eu-west-1.amazonaws.com/pricing/price-api:2.41.3', previousImage: '412817563920.dkr.ecr.eu-west-1.amazonaws.com/pricing/price-api:2.41.2', port: 8080, replicas: 3, restart: { count: 1, reason: 'OOMKilled', exitCode: 137, finishedAgo: '1d22h' }, logs: teamLogs.javaApi },
    worker: { name: 'price-sync-worker', image: '412817563920.dkr.ecr.eu-west-1.amazonaws.com/pricing/price-sync:1.18.0', logs: teamLogs.queueWorker },
    database: { name: 'pricing-postgres', image: 'docker.io/library/postgres:16.4-bookworm', port: 5432, portName: 'postgres', size: '20Gi', env: [{ name: 'PGDATA', value: '/var/lib/data/pgdata' }] },
    cron: { name: 'price-snapshot', image: '412817563920.dkr.ecr.eu-west-1.amazonaws.com/pricing/price-snapshot:1.4.2', schedule: '0 */4 * * *', lastRunAgo: '2h20m', args: ['--export', 's3://pricing-snapshots-euw1'] },
  }, storage);
  teamNamespace(cluster, {
    namespace: 'loyalty', team: 'loyalty', createdAgo: '17d', serviceIps: ['10.100.35.201', '10.100.212.9'],
    api: { name: 'rewards-api', image: '412817563920.dkr.ecr.eu-west-1.amazonaws.com/loyalty/rewards-api:v0.29.1', previousImage: '412817563920.dkr.ecr.eu-west-1.amazonaws.com/loyalty/rewards-api:v0.29.0', port: 3000, replicas: 2, logs: teamLogs.nodeApi },
    worker: { name: 'points-ledger-consumer', image: '412817563920.dkr.ecr.eu-west-1.amazonaws.com/loyalty/points-consumer:v0.12.4', logs: teamLogs.queueWorker },
    database: { name: 'loyalty-redis', image: 'docker.io/library/redis:7.4.1-alpine', port: 6379, portName: 'redis', size: '5Gi', env: [] },
    cron: { name: 'expire-points', image: '412817563920.dkr.ecr.eu-west-1.amazonaws.com/loyalty/rewards-api:v0.29.1', schedule: '30 */3 * * *', lastRunAgo: '3h50m', args: ['node', 'dist/jobs/expire-points.js'] },
  }, storage);

  const spotNode = nodes[3]!;
  const snapshotPod = findPod(cluster, 'pricing', 'price-snapshot');
  cluster.event({ involved: snapshotPod, type: 'Warning', reason: 'FailedScheduling', message: `0/4 nodes are available: 1 Insufficient memory, 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/4 nodes are available: 1 No preemption victims found for incoming pod, 3 Preemption is not helpful for scheduling.`, firstAgo: '2h20m', lastAgo: '2h20m', count: 1, component: 'default-scheduler' });
  cluster.event({ involved: snapshotPod, type: 'Normal', reason: 'Scheduled', message: `Successfully assigned pricing/${snapshotPod.metadata.name} to ${String((snapshotPod['spec'] as { nodeName: string }).nodeName)}`, firstAgo: '2h19m', component: 'default-scheduler' });
  const expirePod = findPod(cluster, 'loyalty', 'expire-points');
  const image = '412817563920.dkr.ecr.eu-west-1.amazonaws.com/loyalty/rewards-api:v0.29.1';
  const host = String((expirePod['spec'] as { nodeName: string }).nodeName);
  cluster.event({ involved: expirePod, type: 'Warning', reason: 'Failed', message: `Failed to pull image "${image}": rpc error: code = Unknown desc = failed to pull and unpack image "${image}": failed to resolve reference "${image}": dial tcp 52.95.148.2:443: i/o timeout`, firstAgo: '3h50m', count: 1, component: 'kubelet', host, fieldPath: 'spec.containers{expire-points}' });
  cluster.event({ involved: expirePod, type: 'Normal', reason: 'BackOff', message: `Back-off pulling image "${image}"`, firstAgo: '3h49m', count: 2, component: 'kubelet', host, fieldPath: 'spec.containers{expire-points}' });
  cluster.event({ involved: expirePod, type: 'Normal', reason: 'Pulled', message: `Successfully pulled image "${image}" in 2.81s (2.81s including waiting). Image size: 61843212 bytes.`, firstAgo: '3h49m', component: 'kubelet', host, fieldPath: 'spec.containers{expire-points}' });
  const awsNodePod = awsNode.find((object) => object.kind === 'Pod' && (object['spec'] as { nodeName: string }).nodeName === spotNode.name);
  if (awsNodePod) cluster.log(awsNodePod, 'aws-node', teamLogs.awsNode(clock));
  const corednsPod = coredns.find((object) => object.kind === 'Pod');
  if (corednsPod) cluster.log(corednsPod, 'coredns', teamLogs.coredns('1.11.3'));
  const albPod = albController.find((object) => object.kind === 'Pod');
  if (albPod) cluster.log(albPod, 'aws-load-balancer-controller', teamLogs.albController(clock));
  return cluster;
}
