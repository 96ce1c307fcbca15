/**
 * The ReplicaSet and Deployment controllers' part that a scale or a rollout needs: a
 * ReplicaSet whose replica count changed gets exactly that many pods, and the statuses that
 * `kubectl get`, `rollout status` and the tools read follow.
 *
 * Kept simple and deterministic: a new pod runs on the node its siblings use (else the first
 * Ready, schedulable node by name) and is Running and Ready, unless a sibling of the same
 * ReplicaSet is not: then it repeats that sibling's state, so a scenario's fault (a crash
 * loop, an image that cannot be pulled) survives a scale. Scaling down removes pods that are
 * not ready first, then the newest, as the ReplicaSet controller ranks them; a removed pod is
 * Terminating for its grace period first.
 */
import { randomUUID } from 'node:crypto';
import { isPodReady } from './pod-ready.ts';
import type { ResourceType } from './resources.ts';
import { randomSuffix, save, timestamp, type ClusterState } from './state.ts';
import type { JsonRecord, KubeObject } from './types.ts';
import { deepClone, isRecord, readPath } from './types.ts';

const DEFAULT_GRACE_SECONDS = 30;

function controlledBy(object: KubeObject, owner: KubeObject): boolean {
  return (
    object.metadata.ownerReferences?.some(
      (reference) => reference.controller && reference.uid === owner.metadata.uid,
    ) ?? false
  );
}

/** The active pods a ReplicaSet controls (terminating ones aside), oldest first. */
export function podsOf(state: ClusterState, replicaSet: KubeObject): KubeObject[] {
  const podType = state.registry.forKind('v1', 'Pod');
  if (!podType) return [];
  return state.store
    .list(podType, replicaSet.metadata.namespace)
    .filter((pod) => controlledBy(pod, replicaSet) && !pod.metadata.deletionTimestamp)
    .sort((left, right) =>
      String(left.metadata.creationTimestamp).localeCompare(String(right.metadata.creationTimestamp)),
    );
}

function schedulableNode(state: ClusterState): string | undefined {
  const nodeType = state.registry.forKind('v1', 'Node');
  if (!nodeType) return undefined;
  const nodes = state.store
    .list(nodeType)
    .filter((node) => readPath(node, 'spec.unschedulable') !== true && isPodReady(node));
  return nodes.map((node) => node.metadata.name).sort()[0];
}

function runningStatus(template: JsonRecord, created: string): JsonRecord {
  const containers = Array.isArray(readPath(template, 'spec.containers'))
    ? (readPath(template, 'spec.containers') as JsonRecord[])
    : [];
  return {
    phase: 'Running',
    conditions: ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map(
      (type) => ({ type, status: 'True', lastTransitionTime: created }),
    ),
    startTime: created,
    containerStatuses: containers.map((container) => ({
      name: String(container['name'] ?? ''),
      image: String(container['image'] ?? ''),
      imageID: '',
      ready: true,
      started: true,
      restartCount: 0,
      state: { running: { startedAt: created } },
    })),
  };
}

function newPod(state: ClusterState, replicaSet: KubeObject, siblings: KubeObject[]): KubeObject {
  const template = (readPath(replicaSet, 'spec.template') ?? {}) as JsonRecord;
  const templateMetadata = (isRecord(template['metadata']) ? template['metadata'] : {}) as {
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  const created = timestamp(state.now());
  const faulty = siblings.find((sibling) => !isPodReady(sibling));
  const nodeName = String(readPath(siblings[0], 'spec.nodeName') ?? '') || schedulableNode(state);
  const status = faulty
    ? deepClone(readPath(faulty, 'status') as JsonRecord)
    : nodeName
      ? runningStatus(template, created)
      : {
          phase: 'Pending',
          conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', lastTransitionTime: created }],
        };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `${replicaSet.metadata.name}-${randomSuffix()}`,
      generateName: `${replicaSet.metadata.name}-`,
      namespace: replicaSet.metadata.namespace,
      uid: randomUUID(),
      creationTimestamp: created,
      labels: { ...(templateMetadata.labels ?? {}) },
      ...(templateMetadata.annotations ? { annotations: { ...templateMetadata.annotations } } : {}),
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
    spec: { ...deepClone((template['spec'] ?? {}) as JsonRecord), ...(nodeName ? { nodeName } : {}) },
    status,
  };
}

/**
 * Deletes a pod gracefully: it shows as Terminating (its log still readable) for its
 * termination grace period, then it is gone.
 */
function terminate(state: ClusterState, podType: ResourceType, pod: KubeObject): void {
  const graceSeconds = Number(readPath(pod, 'spec.terminationGracePeriodSeconds') ?? DEFAULT_GRACE_SECONDS);
  pod.metadata.deletionTimestamp = timestamp(state.now() + graceSeconds * 1000);
  pod.metadata.deletionGracePeriodSeconds = graceSeconds;
  save(state, podType, pod);
  const uid = pod.metadata.uid;
  setTimeout(() => {
    if (state.store.get(podType, pod.metadata.namespace, pod.metadata.name)?.metadata.uid !== uid) return;
    state.store.remove(podType, pod.metadata.namespace, pod.metadata.name);
    state.store.nextResourceVersion();
  }, graceSeconds * 1000).unref();
}

/** Creates or deletes pods until the ReplicaSet has spec.replicas of them, then updates its status (the caller stores the ReplicaSet). */
export function reconcileReplicaSetPods(state: ClusterState, replicaSet: KubeObject): void {
  const podType = state.registry.forKind('v1', 'Pod');
  if (!podType) return;
  const desired = Number(readPath(replicaSet, 'spec.replicas') ?? 1);
  const pods = podsOf(state, replicaSet);
  if (pods.length > desired) {
    const ranked = [...pods].sort(
      (left, right) =>
        Number(isPodReady(left)) - Number(isPodReady(right)) ||
        String(right.metadata.creationTimestamp).localeCompare(String(left.metadata.creationTimestamp)),
    );
    for (const pod of ranked.slice(0, pods.length - desired)) terminate(state, podType, pod);
  }
  for (let count = pods.length; count < desired; count++) save(state, podType, newPod(state, replicaSet, pods));
  const current = podsOf(state, replicaSet);
  const ready = current.filter(isPodReady).length;
  replicaSet['status'] = {
    ...(isRecord(replicaSet['status']) ? replicaSet['status'] : {}),
    replicas: current.length,
    fullyLabeledReplicas: current.length,
    readyReplicas: ready,
    availableReplicas: ready,
    observedGeneration: replicaSet.metadata.generation ?? 1,
  };
}

/** A Deployment's status from its ReplicaSets' pods: what the deployment controller writes after a rollout step. */
export function deploymentStatus(
  state: ClusterState,
  deployment: KubeObject,
  replicaSets: { current: KubeObject; all: KubeObject[] },
): JsonRecord {
  const previous = isRecord(deployment['status']) ? deployment['status'] : {};
  const wanted = Number(readPath(deployment, 'spec.replicas') ?? 1);
  const allPods = replicaSets.all.flatMap((replicaSet) => podsOf(state, replicaSet));
  const updated = podsOf(state, replicaSets.current);
  const available = allPods.filter(isPodReady).length;
  const complete = updated.length === wanted && allPods.length === wanted && updated.every(isPodReady);
  const now = timestamp(state.now());
  const conditions = (Array.isArray(previous['conditions']) ? previous['conditions'] : [])
    .filter(isRecord)
    .filter((condition) => condition['type'] !== 'Available' && condition['type'] !== 'Progressing');
  conditions.push(
    available >= wanted
      ? {
          type: 'Available',
          status: 'True',
          lastUpdateTime: now,
          lastTransitionTime: now,
          reason: 'MinimumReplicasAvailable',
          message: 'Deployment has minimum availability.',
        }
      : {
          type: 'Available',
          status: 'False',
          lastUpdateTime: now,
          lastTransitionTime: now,
          reason: 'MinimumReplicasUnavailable',
          message: 'Deployment does not have minimum availability.',
        },
    complete
      ? {
          type: 'Progressing',
          status: 'True',
          lastUpdateTime: now,
          lastTransitionTime: now,
          reason: 'NewReplicaSetAvailable',
          message: `ReplicaSet "${replicaSets.current.metadata.name}" has successfully progressed.`,
        }
      : {
          type: 'Progressing',
          status: 'True',
          lastUpdateTime: now,
          lastTransitionTime: now,
          reason: 'ReplicaSetUpdated',
          message: `ReplicaSet "${replicaSets.current.metadata.name}" is progressing.`,
        },
  );
  return {
    ...previous,
    observedGeneration: deployment.metadata.generation ?? 1,
    replicas: allPods.length,
    updatedReplicas: updated.length,
    readyReplicas: available,
    availableReplicas: available,
    unavailableReplicas: Math.max(0, wanted - available),
    conditions,
  };
}
