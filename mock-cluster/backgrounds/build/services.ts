/**
 * What sits around the workloads of a healthy cluster: Services with their Endpoints and
 * EndpointSlices listing every ready pod they select, StorageClasses and claims Bound to a
 * provisioned volume, ResourceQuotas whose `used` is counted from the pods, autoscalers
 * holding steady inside their range.
 */
import type { KubeObject } from '../../types.ts';
import { isRecord, readPath } from '../../types.ts';
import type { ClusterBuilder } from './cluster.ts';
import { formatResource, parseResource, safeSuffix, sha } from './kit.ts';

export interface ServicePort {
  name?: string;
  port: number;
  targetPort: number | string;
  protocol?: string;
}

function selects(selector: Record<string, string>, pod: KubeObject): boolean {
  return Object.entries(selector).every(([key, value]) => pod.metadata.labels?.[key] === value);
}

function resolvePort(pod: KubeObject, target: number | string): number {
  if (typeof target === 'number') return target;
  const containers = readPath(pod, 'spec.containers');
  for (const container of Array.isArray(containers) ? containers : []) {
    const ports = isRecord(container) && Array.isArray(container['ports']) ? container['ports'] : [];
    const found = ports.find((port: unknown) => isRecord(port) && port['name'] === target) as { containerPort?: number } | undefined;
    if (found?.containerPort) return found.containerPort;
  }
  throw new Error(`pod ${pod.metadata.name} has no port named ${target}`);
}

/** A ClusterIP (or headless) Service and the endpoints of the running pods it selects. */
export function service(cluster: ClusterBuilder, input: { namespace: string; name: string; createdAgo: string; clusterIP: string; selector: Record<string, string>; ports: ServicePort[]; labels?: Record<string, string> }): KubeObject {
  const headless = input.clusterIP === 'None';
  const object: KubeObject = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: input.name, namespace: input.namespace, uid: cluster.uid('Service', input.namespace, input.name), creationTimestamp: cluster.clock.ago(input.createdAgo), ...(input.labels ? { labels: input.labels } : {}) },
    spec: {
      clusterIP: input.clusterIP,
      clusterIPs: [input.clusterIP],
      internalTrafficPolicy: 'Cluster',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      ports: input.ports.map((port) => ({ ...(port.name ? { name: port.name } : {}), port: port.port, protocol: port.protocol ?? 'TCP', targetPort: port.targetPort })),
      ...(headless ? { publishNotReadyAddresses: false } : {}),
      selector: input.selector,
      sessionAffinity: 'None',
      type: 'ClusterIP',
    },
    status: { loadBalancer: {} },
  };
  const pods = cluster.objects.filter((pod) => pod.kind === 'Pod' && pod.metadata.namespace === input.namespace && readPath(pod, 'status.phase') === 'Running' && selects(input.selector, pod));
  if (pods.length === 0) throw new Error(`Service ${input.namespace}/${input.name} selects no running pod`);
  const endpointPorts = input.ports.map((port) => ({ ...(port.name ? { name: port.name } : {}), port: resolvePort(pods[0]!, port.targetPort), protocol: port.protocol ?? 'TCP' }));
  const target = (pod: KubeObject): Record<string, unknown> => ({ kind: 'Pod', name: pod.metadata.name, namespace: input.namespace, uid: pod.metadata.uid });
  const endpoints: KubeObject = {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: input.name, namespace: input.namespace, uid: cluster.uid('Endpoints', input.namespace, input.name), creationTimestamp: cluster.clock.ago(input.createdAgo), labels: { ...input.labels, ...(headless ? { 'service.kubernetes.io/headless': '' } : {}) }, annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': String(readPath(pods[0], 'status.startTime')) } },
    subsets: [{ addresses: pods.map((pod) => ({ ip: String(readPath(pod, 'status.podIP')), nodeName: String(readPath(pod, 'spec.nodeName')), targetRef: target(pod) })), ports: endpointPorts }],
  };
  const sliceName = `${input.name}-${safeSuffix(`${input.namespace}/${input.name}/slice`, 5)}`;
  const slice: KubeObject = {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: sliceName,
      namespace: input.namespace,
      uid: cluster.uid('EndpointSlice', input.namespace, sliceName),
      creationTimestamp: cluster.clock.ago(input.createdAgo),
      generateName: `${input.name}-`,
      labels: { ...input.labels, 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io', 'kubernetes.io/service-name': input.name },
      ownerReferences: [cluster.ownerOf(object)],
    },
    addressType: 'IPv4',
    endpoints: pods.map((pod) => ({ addresses: [String(readPath(pod, 'status.podIP'))], conditions: { ready: true, serving: true, terminating: false }, nodeName: String(readPath(pod, 'spec.nodeName')), targetRef: target(pod) })),
    ports: endpointPorts,
  };
  cluster.add(object, endpoints, slice);
  return object;
}

export function storageClass(cluster: ClusterBuilder, input: { name: string; provisioner: string; parameters: Record<string, string>; isDefault?: boolean; createdAgo: string }): void {
  cluster.add({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: input.name, uid: cluster.uid('StorageClass', undefined, input.name), creationTimestamp: cluster.clock.ago(input.createdAgo), ...(input.isDefault ? { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } : {}) },
    provisioner: input.provisioner,
    parameters: input.parameters,
    reclaimPolicy: 'Delete',
    allowVolumeExpansion: true,
    volumeBindingMode: 'WaitForFirstConsumer',
  });
}

/** A claim Bound to the volume its StorageClass provisioned: a CSI volume (`volumeHandle` as the driver names it) or a local path on the node. */
export function boundClaim(cluster: ClusterBuilder, input: { namespace: string; name: string; size: string; storageClassName: string; provisioner: string; volumeHandle: (seed: string) => string; hostPathRoot?: string; node: string; createdAgo: string; labels?: Record<string, string> }): void {
  const uid = cluster.uid('PersistentVolumeClaim', input.namespace, input.name);
  const volumeName = `pvc-${uid}`;
  const created = cluster.clock.ago(input.createdAgo);
  cluster.add(
    {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {
        name: input.name,
        namespace: input.namespace,
        uid,
        creationTimestamp: created,
        ...(input.labels ? { labels: input.labels } : {}),
        annotations: { 'pv.kubernetes.io/bind-completed': 'yes', 'pv.kubernetes.io/bound-by-controller': 'yes', 'volume.beta.kubernetes.io/storage-provisioner': input.provisioner, 'volume.kubernetes.io/selected-node': input.node, 'volume.kubernetes.io/storage-provisioner': input.provisioner },
        finalizers: ['kubernetes.io/pvc-protection'],
      },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: input.size } }, storageClassName: input.storageClassName, volumeMode: 'Filesystem', volumeName },
      status: { accessModes: ['ReadWriteOnce'], capacity: { storage: input.size }, phase: 'Bound' },
    },
    {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: volumeName, uid: cluster.uid('PersistentVolume', undefined, volumeName), creationTimestamp: created, annotations: { 'pv.kubernetes.io/provisioned-by': input.provisioner, 'volume.kubernetes.io/provisioner-deletion-secret-name': '', 'volume.kubernetes.io/provisioner-deletion-secret-namespace': '' }, finalizers: ['external-provisioner.volume.kubernetes.io/finalizer', 'kubernetes.io/pv-protection'] },
      spec: {
        accessModes: ['ReadWriteOnce'],
        capacity: { storage: input.size },
        claimRef: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', name: input.name, namespace: input.namespace, uid },
        ...(input.hostPathRoot
          ? {
              hostPath: { path: `${input.hostPathRoot}/${volumeName}_${input.namespace}_${input.name}`, type: 'DirectoryOrCreate' },
              nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [input.node] }] }] } },
            }
          : { csi: { driver: input.provisioner, fsType: 'ext4', volumeHandle: input.volumeHandle(sha(volumeName)) } }),
        persistentVolumeReclaimPolicy: 'Delete',
        storageClassName: input.storageClassName,
        volumeMode: 'Filesystem',
      },
      status: { lastPhaseTransitionTime: created, phase: 'Bound' },
    },
  );
}

/** A ResourceQuota whose `used` is what the namespace's running pods request; `hard` leaves room. */
export function resourceQuota(cluster: ClusterBuilder, input: { namespace: string; name: string; createdAgo: string; hard: Record<string, string> }): void {
  const pods = cluster.objects.filter((pod) => pod.kind === 'Pod' && pod.metadata.namespace === input.namespace && readPath(pod, 'status.phase') === 'Running');
  const sum = (field: 'requests' | 'limits', resource: 'cpu' | 'memory'): string => {
    let total = 0;
    for (const pod of pods) {
      const containers = readPath(pod, 'spec.containers');
      for (const container of Array.isArray(containers) ? containers : []) {
        const value = readPath(container, `resources.${field}.${resource}`);
        if (typeof value === 'string') total += parseResource(resource, value);
      }
    }
    return formatResource(resource, total);
  };
  const claims = cluster.objects.filter((object) => object.kind === 'PersistentVolumeClaim' && object.metadata.namespace === input.namespace).length;
  const usedOf: Record<string, () => string> = {
    'requests.cpu': () => sum('requests', 'cpu'),
    'requests.memory': () => sum('requests', 'memory'),
    'limits.cpu': () => sum('limits', 'cpu'),
    'limits.memory': () => sum('limits', 'memory'),
    pods: () => String(pods.length),
    persistentvolumeclaims: () => String(claims),
  };
  const used = Object.fromEntries(Object.keys(input.hard).map((key) => [key, usedOf[key]?.() ?? '0']));
  cluster.add({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: input.name, namespace: input.namespace, uid: cluster.uid('ResourceQuota', input.namespace, input.name), creationTimestamp: cluster.clock.ago(input.createdAgo) }, spec: { hard: input.hard }, status: { hard: input.hard, used } });
}

/** An autoscaler on a Deployment, steady: current = desired, utilisation under target. */
export function autoscaler(cluster: ClusterBuilder, input: { namespace: string; deployment: string; min: number; max: number; replicas: number; targetCpu: number; currentCpu: number; createdAgo: string; lastScaleAgo: string }): void {
  const condition = (type: string, status: string, reason: string, message: string): Record<string, string> => ({ type, status, lastTransitionTime: cluster.clock.ago(input.lastScaleAgo), reason, message });
  cluster.add({
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: input.deployment, namespace: input.namespace, uid: cluster.uid('HorizontalPodAutoscaler', input.namespace, input.deployment), creationTimestamp: cluster.clock.ago(input.createdAgo) },
    spec: { maxReplicas: input.max, minReplicas: input.min, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: input.targetCpu } } }], scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: input.deployment } },
    status: {
      conditions: [
        condition('AbleToScale', 'True', 'ReadyForNewScale', 'recommended size matches current size'),
        condition('ScalingActive', 'True', 'ValidMetricFound', 'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)'),
        condition('ScalingLimited', 'False', 'DesiredWithinRange', 'the desired count is within the acceptable range'),
      ],
      currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: input.currentCpu, averageValue: `${input.currentCpu * 2}m` } } }],
      currentReplicas: input.replicas,
      desiredReplicas: input.replicas,
      lastScaleTime: cluster.clock.ago(input.lastScaleAgo),
    },
  });
}
