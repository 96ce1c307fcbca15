/**
 * Healthy workloads with their whole chain, as controllers leave it: Deployment → ReplicaSets
 * (the current one and, for history, the one it replaced) → pods with the pod-template-hash;
 * StatefulSet and DaemonSet → pods with their controller-revision-hash; CronJob → its last
 * Job, Complete → the pod that ran it; static pods mirrored from the kubelet, owned by the Node.
 */
import type { KubeObject } from '../../types.ts';
import { type ClusterBuilder, type NodeSpec } from './cluster.ts';
import { parseAgo, safeSuffix } from './kit.ts';
import { buildPod, templateSpec, type OldRestart, type PodTemplate } from './pods.ts';

export interface WorkloadInput {
  namespace: string;
  name: string;
  createdAgo: string;
  template: PodTemplate;
  labels?: Record<string, string>;
  /** Labels the selector uses (default: the template's labels). */
  selector?: Record<string, string>;
  /** Old restarts, by pod index. */
  restarts?: Record<number, OldRestart>;
}

function metadata(cluster: ClusterBuilder, kind: string, input: { namespace: string; name: string; createdAgo: string; labels?: Record<string, string>; annotations?: Record<string, string> }): KubeObject['metadata'] {
  return {
    name: input.name,
    namespace: input.namespace,
    uid: cluster.uid(kind, input.namespace, input.name),
    creationTimestamp: cluster.clock.ago(input.createdAgo),
    generation: 1,
    ...(input.labels ? { labels: input.labels } : {}),
    ...(input.annotations ? { annotations: input.annotations } : {}),
  };
}

/** A Deployment at its desired replicas; `previous` adds the ReplicaSet of the revision before (scaled to 0). */
export function deployment(cluster: ClusterBuilder, input: WorkloadInput & { replicas: number; podAgo: string; revision: number; previous?: { image: string; createdAgo: string } }): KubeObject[] {
  const selector = input.selector ?? input.template.labels;
  const spec = templateSpec(input.template);
  const hash = safeSuffix(`${cluster.name}/${input.namespace}/${input.name}/${JSON.stringify(spec)}`, 10);
  const deploymentObject: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { ...metadata(cluster, 'Deployment', { ...input, annotations: { 'deployment.kubernetes.io/revision': String(input.revision) } }), generation: input.revision },
    spec: { progressDeadlineSeconds: 600, replicas: input.replicas, revisionHistoryLimit: 10, selector: { matchLabels: selector }, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } }, template: spec },
    status: {
      availableReplicas: input.replicas,
      conditions: [
        { type: 'Available', status: 'True', lastTransitionTime: cluster.clock.ago(input.podAgo), lastUpdateTime: cluster.clock.ago(input.podAgo), reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' },
        { type: 'Progressing', status: 'True', lastTransitionTime: cluster.clock.ago(input.createdAgo), lastUpdateTime: cluster.clock.ago(input.podAgo), reason: 'NewReplicaSetAvailable', message: `ReplicaSet "${input.name}-${hash}" has successfully progressed.` },
      ],
      observedGeneration: input.revision,
      readyReplicas: input.replicas,
      replicas: input.replicas,
      updatedReplicas: input.replicas,
    },
  };
  const replicaSet = (name: string, revision: number, replicas: number, template: Record<string, unknown>, createdAgo: string, podHash: string): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      ...metadata(cluster, 'ReplicaSet', { namespace: input.namespace, name, createdAgo, labels: { ...selector, 'pod-template-hash': podHash } }),
      annotations: { 'deployment.kubernetes.io/desired-replicas': String(input.replicas), 'deployment.kubernetes.io/max-replicas': String(input.replicas + Math.ceil(input.replicas / 4)), 'deployment.kubernetes.io/revision': String(revision) },
      ownerReferences: [cluster.ownerOf(deploymentObject)],
    },
    spec: { replicas, selector: { matchLabels: { ...selector, 'pod-template-hash': podHash } }, template: { ...template, metadata: { ...(template['metadata'] as object), labels: { ...input.template.labels, 'pod-template-hash': podHash } } } },
    status: replicas > 0 ? { availableReplicas: replicas, fullyLabeledReplicas: replicas, observedGeneration: 1, readyReplicas: replicas, replicas } : { observedGeneration: 2, replicas: 0 },
  });
  const objects: KubeObject[] = [deploymentObject];
  if (input.previous) {
    const previous = input.previous;
    const oldTemplate = templateSpec({ ...input.template, containers: input.template.containers.map((container, index) => (index === 0 ? { ...container, image: previous.image } : container)) });
    const oldHash = safeSuffix(`${cluster.name}/${input.namespace}/${input.name}/${JSON.stringify(oldTemplate)}`, 10);
    objects.push(replicaSet(`${input.name}-${oldHash}`, input.revision - 1, 0, oldTemplate, previous.createdAgo, oldHash));
  }
  const current = replicaSet(`${input.name}-${hash}`, input.revision, input.replicas, spec, input.podAgo, hash);
  objects.push(current);
  for (let index = 0; index < input.replicas; index++) {
    const node = cluster.nextWorkerNode();
    const name = `${current.metadata.name}-${safeSuffix(`${current.metadata.name}/${index}`, 5)}`;
    objects.push(buildPod(input.template, { cluster: cluster.name, namespace: input.namespace, name, owner: cluster.ownerOf(current), node, podIp: cluster.podIp(node, input.template.hostNetwork), createdAgo: input.podAgo, extraLabels: { 'pod-template-hash': hash }, ...(input.restarts?.[index] ? { restart: input.restarts[index] } : {}) }, cluster.clock));
  }
  cluster.add(...objects);
  return objects;
}

/** A StatefulSet with every replica ready; `claim` adds its volumeClaimTemplate (the claims are made by services.ts). */
export function statefulSet(cluster: ClusterBuilder, input: WorkloadInput & { replicas: number; podAgo: string; serviceName: string; claim?: { name: string; size: string; storageClassName: string } }): KubeObject[] {
  const selector = input.selector ?? input.template.labels;
  const spec = templateSpec(input.template);
  const revision = `${input.name}-${safeSuffix(`${cluster.name}/${input.namespace}/${input.name}/${JSON.stringify(spec)}`, 10)}`;
  const object: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: metadata(cluster, 'StatefulSet', input),
    spec: {
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
      podManagementPolicy: 'OrderedReady',
      replicas: input.replicas,
      revisionHistoryLimit: 10,
      selector: { matchLabels: selector },
      serviceName: input.serviceName,
      template: spec,
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      ...(input.claim ? { volumeClaimTemplates: [{ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: input.claim.name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: input.claim.size } }, storageClassName: input.claim.storageClassName, volumeMode: 'Filesystem' } }] } : {}),
    },
    status: { availableReplicas: input.replicas, collisionCount: 0, currentReplicas: input.replicas, currentRevision: revision, observedGeneration: 1, readyReplicas: input.replicas, replicas: input.replicas, updateRevision: revision, updatedReplicas: input.replicas },
  };
  const objects: KubeObject[] = [object];
  for (let index = 0; index < input.replicas; index++) {
    const node = cluster.nextWorkerNode();
    const name = `${input.name}-${index}`;
    const template = input.claim ? { ...input.template, volumes: [...(input.template.volumes ?? []), { name: input.claim.name, persistentVolumeClaim: { claimName: `${input.claim.name}-${name}` } }] } : input.template;
    objects.push(buildPod(template, { cluster: cluster.name, namespace: input.namespace, name, owner: cluster.ownerOf(object), node, podIp: cluster.podIp(node), createdAgo: input.podAgo, extraLabels: { 'apps.kubernetes.io/pod-index': String(index), 'controller-revision-hash': revision, 'statefulset.kubernetes.io/pod-name': name }, ...(input.restarts?.[index] ? { restart: input.restarts[index] } : {}) }, cluster.clock));
  }
  cluster.add(...objects);
  return objects;
}

/** A DaemonSet with one ready pod on every node it targets (`nodes`, default: every node). */
export function daemonSet(cluster: ClusterBuilder, input: WorkloadInput & { podAgo: string; nodes?: NodeSpec[] }): KubeObject[] {
  const selector = input.selector ?? input.template.labels;
  const nodes = input.nodes ?? cluster.nodes;
  const spec = templateSpec(input.template);
  const hash = safeSuffix(`${cluster.name}/${input.namespace}/${input.name}/${JSON.stringify(spec)}`, 10);
  const count = nodes.length;
  const object: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { ...metadata(cluster, 'DaemonSet', input), annotations: { 'deprecated.daemonset.template.generation': '1' } },
    spec: { revisionHistoryLimit: 10, selector: { matchLabels: selector }, template: spec, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } } },
    status: { currentNumberScheduled: count, desiredNumberScheduled: count, numberAvailable: count, numberMisscheduled: 0, numberReady: count, observedGeneration: 1, updatedNumberScheduled: count },
  };
  const objects: KubeObject[] = [object];
  nodes.forEach((node, index) => {
    const name = `${input.name}-${safeSuffix(`${input.name}/${node.name}`, 5)}`;
    const affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node.name] }] }] } } };
    objects.push(buildPod(input.template, { cluster: cluster.name, namespace: input.namespace, name, owner: cluster.ownerOf(object), node, podIp: cluster.podIp(node, input.template.hostNetwork), createdAgo: input.podAgo, affinity, extraLabels: { 'controller-revision-hash': hash, 'pod-template-generation': '1' }, ...(input.restarts?.[index] ? { restart: input.restarts[index] } : {}) }, cluster.clock));
  });
  cluster.add(...objects);
  return objects;
}

/** A CronJob and its last run: a Job that completed, and the Succeeded pod that ran it. */
export function cronJob(cluster: ClusterBuilder, input: WorkloadInput & { schedule: string; lastRunAgo: string; runSeconds: number }): KubeObject[] {
  const spec = templateSpec(input.template);
  (spec['spec'] as Record<string, unknown>)['restartPolicy'] = 'OnFailure';
  const finished = `${Math.max(0, Math.floor(parseAgo(input.lastRunAgo) / 1000) - input.runSeconds)}s`;
  const cron: KubeObject = {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: metadata(cluster, 'CronJob', input),
    spec: { concurrencyPolicy: 'Forbid', failedJobsHistoryLimit: 1, jobTemplate: { metadata: {}, spec: { backoffLimit: 2, template: spec } }, schedule: input.schedule, successfulJobsHistoryLimit: 3, suspend: false },
    status: { lastScheduleTime: cluster.clock.ago(input.lastRunAgo), lastSuccessfulTime: cluster.clock.ago(finished) },
  };
  const scheduledMinutes = Math.floor(Date.parse(cluster.clock.ago(input.lastRunAgo)) / 60_000);
  const jobName = `${input.name}-${scheduledMinutes}`;
  const jobUid = cluster.uid('Job', input.namespace, jobName);
  const jobLabels = { 'batch.kubernetes.io/controller-uid': jobUid, 'batch.kubernetes.io/job-name': jobName, 'controller-uid': jobUid, 'job-name': jobName };
  const job: KubeObject = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { ...metadata(cluster, 'Job', { namespace: input.namespace, name: jobName, createdAgo: input.lastRunAgo, labels: { ...input.template.labels, ...jobLabels } }), annotations: { 'batch.kubernetes.io/cronjob-scheduled-timestamp': cluster.clock.ago(input.lastRunAgo) }, ownerReferences: [cluster.ownerOf(cron)] },
    spec: { backoffLimit: 2, completionMode: 'NonIndexed', completions: 1, manualSelector: false, parallelism: 1, podReplacementPolicy: 'TerminatingOrFailed', selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': jobUid } }, suspend: false, template: { ...spec, metadata: { labels: { ...input.template.labels, ...jobLabels } } } },
    status: {
      completionTime: cluster.clock.ago(finished),
      conditions: [
        { type: 'SuccessCriteriaMet', status: 'True', lastProbeTime: cluster.clock.ago(finished), lastTransitionTime: cluster.clock.ago(finished), reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' },
        { type: 'Complete', status: 'True', lastProbeTime: cluster.clock.ago(finished), lastTransitionTime: cluster.clock.ago(finished), reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' },
      ],
      ready: 0,
      startTime: cluster.clock.ago(input.lastRunAgo),
      succeeded: 1,
      terminating: 0,
      uncountedTerminatedPods: {},
    },
  };
  const node = cluster.nextWorkerNode();
  const pod = buildPod({ ...input.template, labels: { ...input.template.labels, ...jobLabels } }, { cluster: cluster.name, namespace: input.namespace, name: `${jobName}-${safeSuffix(jobName, 5)}`, owner: cluster.ownerOf(job), node, podIp: cluster.podIp(node), createdAgo: input.lastRunAgo, completed: { finishedAgo: finished } }, cluster.clock);
  const objects = [cron, job, pod];
  cluster.add(...objects);
  return objects;
}

/** A static pod: the kubelet runs it from a manifest on the node; its mirror pod is owned by the Node. */
export function staticPod(cluster: ClusterBuilder, input: { namespace: string; component: string; node: NodeSpec; template: PodTemplate; podAgo: string; restart?: OldRestart }): KubeObject {
  const nodeObject = cluster.objects.find((object) => object.kind === 'Node' && object.metadata.name === input.node.name);
  if (!nodeObject) throw new Error(`no Node ${input.node.name}`);
  const hash = safeSuffix(`${input.component}/${input.node.name}`, 32).replace(/[^0-9a-f]/g, (character) => (character.charCodeAt(0) % 16).toString(16));
  const template = { ...input.template, hostNetwork: true, priorityClassName: 'system-node-critical', annotations: { 'kubernetes.io/config.hash': hash, 'kubernetes.io/config.mirror': hash, 'kubernetes.io/config.seen': cluster.clock.ago(input.podAgo), 'kubernetes.io/config.source': 'file', ...input.template.annotations } };
  const pod = buildPod(template, { cluster: cluster.name, namespace: input.namespace, name: `${input.component}-${input.node.name}`, owner: { apiVersion: 'v1', kind: 'Node', name: input.node.name, uid: nodeObject.metadata.uid ?? '', controller: true }, node: input.node, podIp: input.node.ip, createdAgo: input.podAgo, ...(input.restart ? { restart: input.restart } : {}) }, cluster.clock);
  cluster.add(pod);
  return pod;
}
