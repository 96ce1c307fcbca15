/**
 * The cluster a background definition fills: its nodes, the objects added so far, pod IP
 * allocation per node, and the logs to write. Workloads (workloads.ts) and services
 * (services.ts) add to it; `objects` is what becomes cluster.yaml.
 */
import type { KubeObject, OwnerReference, ScenarioLog } from '../../types.ts';
import type { Clock} from './kit.ts';
import { sha, uidFor } from './kit.ts';

export interface NodeSpec {
  name: string;
  ip: string;
  /** Pod IPs are `podPrefix` + a counter (`10.0.37.` or `10.244.1.`). */
  podPrefix: string;
  createdAgo: string;
  labels: Record<string, string>;
  annotations?: Record<string, string>;
  providerID?: string;
  podCIDR?: string;
  taints?: Record<string, unknown>[];
  capacity: { cpu: string; memory: string; pods: string; storage: string };
  allocatable: { cpu: string; memory: string; pods: string; storage: string };
  nodeInfo: { kernelVersion: string; osImage: string; containerRuntimeVersion: string; kubeletVersion: string };
  /** A condition that was True once and has been False since `ago`: harmless history. */
  resolvedCondition?: { type: 'MemoryPressure' | 'DiskPressure' | 'PIDPressure'; ago: string };
  /** Ready since (the last kubelet restart or reboot); default: since creation. */
  readySinceAgo?: string;
  /** Does not run ordinary workloads (a control-plane node). */
  dedicated?: boolean;
}

const CONDITION_TEXT: Record<string, [string, string]> = {
  MemoryPressure: ['KubeletHasSufficientMemory', 'kubelet has sufficient memory available'],
  DiskPressure: ['KubeletHasNoDiskPressure', 'kubelet has no disk pressure'],
  PIDPressure: ['KubeletHasSufficientPID', 'kubelet has sufficient PID available'],
};

export class ClusterBuilder {
  readonly objects: KubeObject[] = [];
  readonly logs: ScenarioLog[] = [];
  private readonly podCounters = new Map<string, number>();
  private nextWorker = 0;
  readonly name: string;
  readonly clock: Clock;
  readonly nodes: NodeSpec[];

  constructor(name: string, clock: Clock, nodes: NodeSpec[]) {
    this.name = name;
    this.clock = clock;
    this.nodes = nodes;
    for (const node of nodes) this.objects.push(this.nodeObject(node));
  }

  uid(kind: string, namespace: string | undefined, name: string): string {
    return uidFor(`${this.name}/${kind}/${namespace ?? ''}/${name}`);
  }

  ownerOf(object: KubeObject): OwnerReference {
    return { apiVersion: object.apiVersion, kind: object.kind, name: object.metadata.name, uid: object.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
  }

  add(...objects: KubeObject[]): void {
    this.objects.push(...objects);
  }

  node(name: string): NodeSpec {
    const node = this.nodes.find((candidate) => candidate.name === name);
    if (!node) throw new Error(`no node ${name} in background ${this.name}`);
    return node;
  }

  /** The next worker node, round robin: where a Deployment's pod lands. */
  nextWorkerNode(): NodeSpec {
    const workers = this.nodes.filter((node) => !node.dedicated);
    const node = workers[this.nextWorker % workers.length];
    this.nextWorker += 1;
    if (!node) throw new Error(`background ${this.name} has no worker nodes`);
    return node;
  }

  podIp(node: NodeSpec, hostNetwork = false): string {
    if (hostNetwork) return node.ip;
    const next = (this.podCounters.get(node.name) ?? 10) + 1 + (sha(`${node.name}/${this.podCounters.get(node.name) ?? 0}`).charCodeAt(0) % 7);
    this.podCounters.set(node.name, next);
    return `${node.podPrefix}${next}`;
  }

  namespace(name: string, createdAgo: string, labels: Record<string, string> = {}): void {
    this.add({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name, uid: this.uid('Namespace', undefined, name), creationTimestamp: this.clock.ago(createdAgo), labels: { 'kubernetes.io/metadata.name': name, ...labels } },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    });
  }

  configMap(namespace: string, name: string, data: Record<string, string>, options: { createdAgo: string; labels?: Record<string, string> }): void {
    this.add({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, uid: this.uid('ConfigMap', namespace, name), creationTimestamp: this.clock.ago(options.createdAgo), ...(options.labels ? { labels: options.labels } : {}) }, data });
  }

  /** A Secret as a capture shows it: its keys, the values redacted. */
  secret(namespace: string, name: string, keys: string[], options: { createdAgo: string; type?: string; labels?: Record<string, string> }): void {
    this.add({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace, uid: this.uid('Secret', namespace, name), creationTimestamp: this.clock.ago(options.createdAgo), ...(options.labels ? { labels: options.labels } : {}) },
      type: options.type ?? 'Opaque',
      data: Object.fromEntries(keys.map((key) => [key, 'UkVEQUNURUQ='])),
    });
  }

  /** An event as the API server keeps it: counted, with its first and last time. */
  event(input: { involved: KubeObject; type: 'Normal' | 'Warning'; reason: string; message: string; firstAgo: string; lastAgo?: string; count?: number; component: string; host?: string; fieldPath?: string }): void {
    const involved = input.involved;
    const name = `${involved.metadata.name}.${sha(`${involved.metadata.name}/${input.reason}/${input.firstAgo}`).slice(0, 16)}`;
    const namespace = involved.metadata.namespace ?? 'default';
    this.add({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace, uid: this.uid('Event', namespace, name), creationTimestamp: this.clock.ago(input.firstAgo) },
      involvedObject: { apiVersion: involved.apiVersion, kind: involved.kind, name: involved.metadata.name, ...(involved.metadata.namespace ? { namespace: involved.metadata.namespace } : {}), uid: involved.metadata.uid, ...(input.fieldPath ? { fieldPath: input.fieldPath } : {}) },
      type: input.type,
      reason: input.reason,
      message: input.message,
      count: input.count ?? 1,
      firstTimestamp: this.clock.ago(input.firstAgo),
      lastTimestamp: this.clock.ago(input.lastAgo ?? input.firstAgo),
      reportingComponent: input.component,
      reportingInstance: input.host ?? '',
      source: { component: input.component, ...(input.host ? { host: input.host } : {}) },
    });
  }

  log(pod: KubeObject, container: string, lines: string[], previous = false): void {
    this.logs.push({ namespace: pod.metadata.namespace ?? 'default', pod: pod.metadata.name, container, previous, text: `${lines.join('\n')}\n` });
  }

  private nodeObject(node: NodeSpec): KubeObject {
    const created = this.clock.ago(node.createdAgo);
    const heartbeat = this.clock.ago('38s');
    const condition = (type: string, reason: string, message: string, since: string, status = 'False'): Record<string, unknown> => ({ type, status, lastHeartbeatTime: heartbeat, lastTransitionTime: since, reason, message });
    const conditions = Object.entries(CONDITION_TEXT).map(([type, [reason, message]]) => condition(type, reason, message, node.resolvedCondition?.type === type ? this.clock.ago(node.resolvedCondition.ago) : created));
    conditions.push(condition('Ready', 'KubeletReady', 'kubelet is posting ready status', node.readySinceAgo ? this.clock.ago(node.readySinceAgo) : created, 'True'));
    const resources = (values: NodeSpec['capacity']): Record<string, string> => ({ cpu: values.cpu, 'ephemeral-storage': values.storage, 'hugepages-1Gi': '0', 'hugepages-2Mi': '0', memory: values.memory, pods: values.pods });
    return {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: node.name,
        uid: this.uid('Node', undefined, node.name),
        creationTimestamp: created,
        labels: { 'beta.kubernetes.io/arch': 'amd64', 'beta.kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', 'kubernetes.io/hostname': node.name, 'kubernetes.io/os': 'linux', ...node.labels },
        annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true', ...node.annotations },
      },
      spec: { ...(node.podCIDR ? { podCIDR: node.podCIDR, podCIDRs: [node.podCIDR] } : {}), ...(node.providerID ? { providerID: node.providerID } : {}), ...(node.taints ? { taints: node.taints } : {}) },
      status: {
        addresses: [
          { type: 'InternalIP', address: node.ip },
          { type: 'Hostname', address: node.name },
        ],
        allocatable: resources(node.allocatable),
        capacity: resources(node.capacity),
        conditions,
        daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
        nodeInfo: {
          architecture: 'amd64',
          bootID: this.uid('Boot', undefined, node.name),
          containerRuntimeVersion: node.nodeInfo.containerRuntimeVersion,
          kernelVersion: node.nodeInfo.kernelVersion,
          kubeProxyVersion: node.nodeInfo.kubeletVersion,
          kubeletVersion: node.nodeInfo.kubeletVersion,
          machineID: sha(`machine/${node.name}`).slice(0, 32),
          operatingSystem: 'linux',
          osImage: node.nodeInfo.osImage,
          systemUUID: this.uid('System', undefined, node.name),
        },
      },
    };
  }
}
