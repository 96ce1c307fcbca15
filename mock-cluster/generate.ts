/**
 * A large namespace for scale tests: `count` pods in Deployments of 50 (each with its
 * ReplicaSet), deterministic names, and a realistic mix: most pods Running and ready, a few
 * crash-looping (some OOMKilled), Pending and unschedulable, ImagePullBackOff,
 * ContainerCreating, and Running but not ready.
 */
import { stableUid } from './complete-objects.ts';
import { safeEncode, timestamp } from './state.ts';
import type { KubeObject } from './types.ts';

const GROUP_SIZE = 50;
const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

function suffix(index: number): string {
  let text = '';
  let value = index + 1;
  for (let position = 0; position < 5; position++) {
    text = (ALPHABET[value % ALPHABET.length] ?? 'b') + text;
    value = Math.floor(value / ALPHABET.length);
  }
  return text;
}

type PodState = 'running' | 'crash' | 'oom' | 'pending' | 'image' | 'creating' | 'not-ready';

function stateFor(index: number): PodState {
  const slot = index % 100;
  if (slot < 90) return 'running';
  if (slot < 93) return 'crash';
  if (slot === 93) return 'oom';
  if (slot < 96) return 'pending';
  if (slot === 96) return 'image';
  if (slot === 97) return 'creating';
  return 'not-ready';
}

function containerStatus(state: PodState, image: string, now: number): Record<string, unknown> {
  const minutesAgo = (minutes: number): string => timestamp(now - minutes * 60_000);
  const base = { name: 'app', image, imageID: '', containerID: '' };
  switch (state) {
    case 'running':
      return {
        ...base,
        ready: true,
        started: true,
        restartCount: 0,
        state: { running: { startedAt: minutesAgo(300) } },
      };
    case 'not-ready':
      return {
        ...base,
        ready: false,
        started: true,
        restartCount: 0,
        state: { running: { startedAt: minutesAgo(20) } },
      };
    case 'crash':
    case 'oom':
      return {
        ...base,
        ready: false,
        started: false,
        restartCount: 7,
        state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 5m0s restarting failed container=app' } },
        lastState: {
          terminated: {
            reason: state === 'oom' ? 'OOMKilled' : 'Error',
            exitCode: state === 'oom' ? 137 : 1,
            startedAt: minutesAgo(4),
            finishedAt: minutesAgo(3),
          },
        },
      };
    case 'image':
      return {
        ...base,
        ready: false,
        started: false,
        restartCount: 0,
        state: { waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image "${image}"` } },
      };
    default:
      return {
        ...base,
        ready: false,
        started: false,
        restartCount: 0,
        state: { waiting: { reason: 'ContainerCreating' } },
      };
  }
}

function pod(options: {
  namespace: string;
  index: number;
  replicaSet: KubeObject;
  app: string;
  image: string;
  nodes: string[];
  now: number;
}): KubeObject {
  const { namespace, index, replicaSet, app, now } = options;
  const state = stateFor(index);
  const name = `${replicaSet.metadata.name}-${suffix(index)}`;
  const created = timestamp(now - (state === 'not-ready' ? 20 : 300) * 60_000);
  const scheduled = state !== 'pending';
  const ready = state === 'running';
  const conditions = scheduled
    ? [
        { type: 'Initialized', status: 'True', lastTransitionTime: created },
        {
          type: 'Ready',
          status: ready ? 'True' : 'False',
          lastTransitionTime: created,
          ...(ready ? {} : { reason: 'ContainersNotReady' }),
        },
        { type: 'ContainersReady', status: ready ? 'True' : 'False', lastTransitionTime: created },
        { type: 'PodScheduled', status: 'True', lastTransitionTime: created },
      ]
    : [
        {
          type: 'PodScheduled',
          status: 'False',
          reason: 'Unschedulable',
          message:
            '0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.',
          lastTransitionTime: created,
        },
      ];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace,
      uid: stableUid(`generated/${namespace}/${name}`),
      creationTimestamp: created,
      labels: { app, 'pod-template-hash': replicaSet.metadata.labels?.['pod-template-hash'] ?? '' },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: replicaSet.metadata.name,
          uid: replicaSet.metadata.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      containers: [
        {
          name: 'app',
          image: options.image,
          resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
        },
      ],
      restartPolicy: 'Always',
      ...(scheduled ? { nodeName: options.nodes[index % options.nodes.length] } : {}),
    },
    status: {
      phase: state === 'pending' || state === 'image' || state === 'creating' ? 'Pending' : 'Running',
      conditions,
      qosClass: 'Burstable',
      ...(scheduled
        ? {
            podIP: `10.42.${Math.floor(index / 250) % 250}.${(index % 250) + 2}`,
            hostIP: '10.0.0.10',
            startTime: created,
            containerStatuses: [containerStatus(state, options.image, now)],
          }
        : {}),
    },
  };
}

/** Deployments, ReplicaSets and `count` pods for one namespace. `nodes` are the node names pods run on. */
export function generateWorkloads(options: {
  namespace: string;
  count: number;
  now: number;
  nodes: string[];
}): KubeObject[] {
  const { namespace, count, now } = options;
  const nodes = options.nodes.length > 0 ? options.nodes : ['generated-node'];
  const objects: KubeObject[] = [];
  for (let start = 0; start < count; start += GROUP_SIZE) {
    const group = start / GROUP_SIZE;
    const app = `load-${String(group).padStart(3, '0')}`;
    const image = `registry.example.com/${app}:1.${group % 7}.0`;
    const replicas = Math.min(GROUP_SIZE, count - start);
    const hash = safeEncode((0x9e3779b1 * (group + 1)) >>> 0);
    const created = timestamp(now - 86_400_000);
    const deploymentUid = stableUid(`generated/${namespace}/deployment/${app}`);
    const template = { metadata: { labels: { app } }, spec: { containers: [{ name: 'app', image }] } };
    const replicaSet: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: `${app}-${hash}`,
        namespace,
        uid: stableUid(`generated/${namespace}/replicaset/${app}`),
        creationTimestamp: created,
        labels: { app, 'pod-template-hash': hash },
        annotations: { 'deployment.kubernetes.io/revision': '1' },
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            name: app,
            uid: deploymentUid,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: {
        replicas,
        selector: { matchLabels: { app, 'pod-template-hash': hash } },
        template: { ...template, metadata: { labels: { app, 'pod-template-hash': hash } } },
      },
      status: { replicas, readyReplicas: 0, availableReplicas: 0 },
    };
    const pods = Array.from({ length: replicas }, (_, offset) =>
      pod({ namespace, index: start + offset, replicaSet, app, image, nodes, now }),
    );
    const ready = pods.filter((candidate) =>
      (candidate['status'] as { conditions?: { type: string; status: string }[] }).conditions?.some(
        (condition) => condition.type === 'Ready' && condition.status === 'True',
      ),
    ).length;
    replicaSet['status'] = {
      replicas,
      readyReplicas: ready,
      availableReplicas: ready,
      fullyLabeledReplicas: replicas,
      observedGeneration: 1,
    };
    objects.push(
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: {
          name: app,
          namespace,
          uid: deploymentUid,
          generation: 1,
          creationTimestamp: created,
          labels: { app },
          annotations: { 'deployment.kubernetes.io/revision': '1' },
        },
        spec: { replicas, selector: { matchLabels: { app } }, template },
        status: {
          observedGeneration: 1,
          replicas,
          updatedReplicas: replicas,
          readyReplicas: ready,
          availableReplicas: ready,
          unavailableReplicas: replicas - ready,
        },
      },
      replicaSet,
      ...pods,
    );
  }
  return objects;
}
