/**
 * Pods as a healthy cluster reports them: scheduled on a node, Running with every container
 * ready (or Succeeded for a finished Job), with the harmless history a long-lived pod
 * carries: a restart days ago whose last state is still shown.
 */
import type { KubeObject, OwnerReference } from '../../types.ts';
import type { Clock} from './kit.ts';
import { imageId, sha, uidFor } from './kit.ts';

export interface ContainerSpec {
  name: string;
  image: string;
  args?: string[];
  ports?: { name?: string; containerPort: number; protocol?: string }[];
  requests?: { cpu?: string; memory?: string };
  limits?: { cpu?: string; memory?: string };
  env?: Record<string, unknown>[];
  readinessProbe?: Record<string, unknown>;
  livenessProbe?: Record<string, unknown>;
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}

/** An old restart: the container ran before, stopped `finishedAgo`, and has run ever since. */
export interface OldRestart {
  container?: string;
  count: number;
  reason: 'Error' | 'OOMKilled' | 'Completed';
  exitCode: number;
  finishedAgo: string;
}

export interface PodTemplate {
  labels: Record<string, string>;
  annotations?: Record<string, string>;
  containers: ContainerSpec[];
  initContainers?: ContainerSpec[];
  serviceAccountName?: string;
  priorityClassName?: string;
  hostNetwork?: boolean;
  nodeSelector?: Record<string, string>;
  tolerations?: Record<string, unknown>[];
  volumes?: Record<string, unknown>[];
  securityContext?: Record<string, unknown>;
}

export interface PodPlacement {
  cluster: string;
  namespace: string;
  name: string;
  owner: OwnerReference;
  node: { name: string; ip: string };
  podIp: string;
  createdAgo: string;
  /** The pod ran to completion (a Job's pod): phase Succeeded, containers terminated with exit 0. */
  completed?: { finishedAgo: string };
  restart?: OldRestart;
  extraLabels?: Record<string, string>;
  affinity?: Record<string, unknown>;
}

const PRIORITIES: Record<string, number> = { 'system-node-critical': 2_000_001_000, 'system-cluster-critical': 2_000_000_000 };

function containerSpec(container: ContainerSpec): Record<string, unknown> {
  const resources: Record<string, unknown> = {};
  if (container.requests) resources['requests'] = container.requests;
  if (container.limits) resources['limits'] = container.limits;
  return {
    name: container.name,
    image: container.image,
    imagePullPolicy: 'IfNotPresent',
    ...(container.args ? { args: container.args } : {}),
    ...(container.env ? { env: container.env } : {}),
    ...(container.ports ? { ports: container.ports.map((port) => ({ ...port, protocol: port.protocol ?? 'TCP' })) } : {}),
    ...(container.readinessProbe ? { readinessProbe: container.readinessProbe } : {}),
    ...(container.livenessProbe ? { livenessProbe: container.livenessProbe } : {}),
    resources,
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    ...(container.volumeMounts ? { volumeMounts: container.volumeMounts } : {}),
  };
}

/** The pod template as a workload's spec.template holds it. */
export function templateSpec(template: PodTemplate): Record<string, unknown> {
  return {
    metadata: { labels: template.labels, ...(template.annotations ? { annotations: template.annotations } : {}) },
    spec: {
      ...(template.initContainers ? { initContainers: template.initContainers.map(containerSpec) } : {}),
      containers: template.containers.map(containerSpec),
      dnsPolicy: template.hostNetwork ? 'ClusterFirstWithHostNet' : 'ClusterFirst',
      ...(template.hostNetwork ? { hostNetwork: true } : {}),
      ...(template.nodeSelector ? { nodeSelector: template.nodeSelector } : {}),
      ...(template.priorityClassName ? { priorityClassName: template.priorityClassName } : {}),
      restartPolicy: 'Always',
      schedulerName: 'default-scheduler',
      securityContext: template.securityContext ?? {},
      serviceAccountName: template.serviceAccountName ?? 'default',
      terminationGracePeriodSeconds: 30,
      ...(template.tolerations ? { tolerations: template.tolerations } : {}),
      ...(template.volumes ? { volumes: template.volumes } : {}),
    },
  };
}

function qosClass(containers: ContainerSpec[]): string {
  if (containers.every((container) => !container.requests && !container.limits)) return 'BestEffort';
  const guaranteed = containers.every((container) => container.limits?.cpu && container.limits.memory && (!container.requests || (container.requests.cpu === container.limits.cpu && container.requests.memory === container.limits.memory)));
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

function containerStatus(container: ContainerSpec, placement: PodPlacement, clock: Clock): Record<string, unknown> {
  const seed = `${placement.cluster}/${placement.namespace}/${placement.name}/${container.name}`;
  const restart = placement.restart && (placement.restart.container ?? container.name) === container.name ? placement.restart : undefined;
  const base = { name: container.name, image: container.image, imageID: imageId(container.image), containerID: `containerd://${sha(seed)}` };
  if (placement.completed) {
    return { ...base, ready: false, started: false, restartCount: 0, lastState: {}, state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: clock.ago(placement.createdAgo), finishedAt: clock.ago(placement.completed.finishedAgo), containerID: base.containerID } } };
  }
  const startedAgo = restart ? restart.finishedAgo : placement.createdAgo;
  const lastState = restart
    ? { terminated: { exitCode: restart.exitCode, reason: restart.reason, startedAt: clock.ago(placement.createdAgo), finishedAt: clock.ago(restart.finishedAgo), containerID: `containerd://${sha(`${seed}/previous`)}` } }
    : {};
  return { ...base, ready: true, started: true, restartCount: restart?.count ?? 0, lastState, state: { running: { startedAt: clock.ago(startedAgo) } } };
}

/** One pod of a workload (or a static pod), as `kubectl get pod -o yaml` prints it. */
export function buildPod(template: PodTemplate, placement: PodPlacement, clock: Clock): KubeObject {
  const created = clock.ago(placement.createdAgo);
  const ready = !placement.completed;
  const readySince = placement.restart ? clock.ago(placement.restart.finishedAgo) : created;
  const spec = templateSpec(template)['spec'] as Record<string, unknown>;
  const tokenVolume = `kube-api-access-${sha(`${placement.namespace}/${placement.name}`).slice(0, 5)}`;
  const priority = PRIORITIES[template.priorityClassName ?? ''] ?? 0;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: placement.name,
      namespace: placement.namespace,
      uid: uidFor(`${placement.cluster}/Pod/${placement.namespace}/${placement.name}`),
      creationTimestamp: created,
      ...(placement.owner.kind === 'Node' ? {} : { generateName: placement.name.replace(/[^-]+$/, '') }),
      labels: { ...template.labels, ...placement.extraLabels },
      ...(template.annotations ? { annotations: template.annotations } : {}),
      ownerReferences: [placement.owner],
    },
    spec: {
      ...spec,
      ...(placement.affinity ? { affinity: placement.affinity } : {}),
      enableServiceLinks: true,
      nodeName: placement.node.name,
      preemptionPolicy: 'PreemptLowerPriority',
      priority,
      restartPolicy: placement.completed ? 'OnFailure' : 'Always',
      tolerations: (spec['tolerations'] as unknown[] | undefined) ?? [
        { effect: 'NoExecute', key: 'node.kubernetes.io/not-ready', operator: 'Exists', tolerationSeconds: 300 },
        { effect: 'NoExecute', key: 'node.kubernetes.io/unreachable', operator: 'Exists', tolerationSeconds: 300 },
      ],
      volumes: [
        ...((spec['volumes'] as unknown[] | undefined) ?? []),
        ...(placement.owner.kind === 'Node' ? [] : [{ name: tokenVolume, projected: { defaultMode: 420, sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }, { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } }] } }]),
      ],
    },
    status: {
      phase: placement.completed ? 'Succeeded' : 'Running',
      conditions: [
        { type: 'PodReadyToStartContainers', status: ready ? 'True' : 'False', lastTransitionTime: created },
        { type: 'Initialized', status: 'True', lastTransitionTime: created, ...(placement.completed ? { reason: 'PodCompleted' } : {}) },
        { type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: readySince, ...(placement.completed ? { reason: 'PodCompleted' } : {}) },
        { type: 'ContainersReady', status: ready ? 'True' : 'False', lastTransitionTime: readySince, ...(placement.completed ? { reason: 'PodCompleted' } : {}) },
        { type: 'PodScheduled', status: 'True', lastTransitionTime: created },
      ],
      hostIP: placement.node.ip,
      hostIPs: [{ ip: placement.node.ip }],
      podIP: placement.podIp,
      podIPs: [{ ip: placement.podIp }],
      qosClass: qosClass(template.containers),
      startTime: created,
      ...(template.initContainers
        ? { initContainerStatuses: template.initContainers.map((container) => containerStatus(container, { ...placement, completed: { finishedAgo: placement.createdAgo }, restart: undefined }, clock)) }
        : {}),
      containerStatuses: template.containers.map((container) => containerStatus(container, placement, clock)),
    },
  };
}
