/**
 * kube-state-metrics' workload families: Deployments, ReplicaSets, StatefulSets,
 * DaemonSets, Jobs and CronJobs, from their spec and status the way its stores read them
 * (an unset replica count in spec is the API server's default of 1; an unset status count
 * is 0; a generation is written only when the object has one).
 */
import {
  conditionSamples,
  numberOr,
  text,
  type Labels,
  type MetricDefinitions,
  type MetricSample,
} from './metrics-format.ts';
import { isRecord, type JsonRecord, type KubeObject } from './types.ts';

export const WORKLOAD_METRICS: MetricDefinitions = {
  kube_deployment_spec_replicas: { help: 'Number of desired pods for a deployment.', type: 'gauge' },
  kube_deployment_spec_paused: {
    help: 'Whether the deployment is paused and will not be processed by the deployment controller.',
    type: 'gauge',
  },
  kube_deployment_metadata_generation: {
    help: 'Sequence number representing a specific generation of the desired state.',
    type: 'gauge',
  },
  kube_deployment_status_observed_generation: {
    help: 'The generation observed by the deployment controller.',
    type: 'gauge',
  },
  kube_deployment_status_replicas: { help: 'The number of replicas per deployment.', type: 'gauge' },
  kube_deployment_status_replicas_ready: { help: 'The number of ready replicas per deployment.', type: 'gauge' },
  kube_deployment_status_replicas_available: {
    help: 'The number of available replicas per deployment.',
    type: 'gauge',
  },
  kube_deployment_status_replicas_unavailable: {
    help: 'The number of unavailable replicas per deployment.',
    type: 'gauge',
  },
  kube_deployment_status_replicas_updated: { help: 'The number of updated replicas per deployment.', type: 'gauge' },
  kube_deployment_status_condition: { help: 'The current status conditions of a deployment.', type: 'gauge' },
  kube_replicaset_owner: { help: "Information about the ReplicaSet's owner.", type: 'gauge' },
  kube_replicaset_spec_replicas: { help: 'Number of desired pods for a ReplicaSet.', type: 'gauge' },
  kube_replicaset_status_replicas: { help: 'The number of replicas per ReplicaSet.', type: 'gauge' },
  kube_replicaset_status_ready_replicas: { help: 'The number of ready replicas per ReplicaSet.', type: 'gauge' },
  kube_statefulset_replicas: { help: 'Number of desired pods for a StatefulSet.', type: 'gauge' },
  kube_statefulset_metadata_generation: {
    help: 'Sequence number representing a specific generation of the desired state for the StatefulSet.',
    type: 'gauge',
  },
  kube_statefulset_status_observed_generation: {
    help: 'The generation observed by the StatefulSet controller.',
    type: 'gauge',
  },
  kube_statefulset_status_replicas: { help: 'The number of replicas per StatefulSet.', type: 'gauge' },
  kube_statefulset_status_replicas_available: {
    help: 'The number of available replicas per StatefulSet.',
    type: 'gauge',
  },
  kube_statefulset_status_replicas_current: { help: 'The number of current replicas per StatefulSet.', type: 'gauge' },
  kube_statefulset_status_replicas_ready: { help: 'The number of ready replicas per StatefulSet.', type: 'gauge' },
  kube_statefulset_status_replicas_updated: { help: 'The number of updated replicas per StatefulSet.', type: 'gauge' },
  kube_statefulset_status_current_revision: {
    help: 'Indicates the version of the StatefulSet used to generate Pods in the sequence [0,currentReplicas).',
    type: 'gauge',
  },
  kube_statefulset_status_update_revision: {
    help: 'Indicates the version of the StatefulSet used to generate Pods in the sequence [replicas-updatedReplicas,replicas)',
    type: 'gauge',
  },
  kube_daemonset_metadata_generation: {
    help: 'Sequence number representing a specific generation of the desired state.',
    type: 'gauge',
  },
  kube_daemonset_status_observed_generation: {
    help: 'The most recent generation observed by the daemon set controller.',
    type: 'gauge',
  },
  kube_daemonset_status_current_number_scheduled: {
    help: 'The number of nodes running at least one daemon pod and are supposed to.',
    type: 'gauge',
  },
  kube_daemonset_status_desired_number_scheduled: {
    help: 'The number of nodes that should be running the daemon pod.',
    type: 'gauge',
  },
  kube_daemonset_status_number_available: {
    help: 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available',
    type: 'gauge',
  },
  kube_daemonset_status_number_misscheduled: {
    help: 'The number of nodes running a daemon pod but are not supposed to.',
    type: 'gauge',
  },
  kube_daemonset_status_number_ready: {
    help: 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.',
    type: 'gauge',
  },
  kube_daemonset_status_number_unavailable: {
    help: 'The number of nodes that should be running the daemon pod and have none of the daemon pod running and available',
    type: 'gauge',
  },
  kube_daemonset_status_updated_number_scheduled: {
    help: 'The total number of nodes that are running updated daemon pod',
    type: 'gauge',
  },
  kube_job_info: { help: 'Information about job.', type: 'gauge' },
  kube_job_owner: { help: "Information about the Job's owner.", type: 'gauge' },
  kube_job_spec_completions: {
    help: 'The desired number of successfully finished pods the job should be run with.',
    type: 'gauge',
  },
  kube_job_spec_parallelism: {
    help: 'The maximum desired number of pods the job should run at any given time.',
    type: 'gauge',
  },
  kube_job_status_active: { help: 'The number of actively running pods.', type: 'gauge' },
  kube_job_status_start_time: {
    help: 'StartTime represents time when the job was acknowledged by the Job Manager.',
    type: 'gauge',
  },
  kube_job_status_succeeded: { help: 'The number of pods which reached Phase Succeeded.', type: 'gauge' },
  kube_job_status_failed: {
    help: 'The number of pods which reached Phase Failed and the reason for failure.',
    type: 'gauge',
  },
  kube_job_complete: { help: 'The job has completed its execution.', type: 'gauge' },
  kube_job_failed: { help: 'The job has failed its execution.', type: 'gauge' },
  kube_cronjob_info: { help: 'Info about cronjob.', type: 'gauge' },
  kube_cronjob_spec_suspend: {
    help: 'Suspend flag tells the controller to suspend subsequent executions.',
    type: 'gauge',
  },
  kube_cronjob_status_active: { help: 'Active holds pointers to currently running jobs.', type: 'gauge' },
};

/** The objects of the kinds this file reads, by kind. */
export interface Workloads {
  deployments: readonly KubeObject[];
  replicaSets: readonly KubeObject[];
  statefulSets: readonly KubeObject[];
  daemonSets: readonly KubeObject[];
  jobs: readonly KubeObject[];
  cronJobs: readonly KubeObject[];
}

interface Parts {
  spec: JsonRecord;
  status: JsonRecord;
}

function partsOf(object: KubeObject): Parts {
  return {
    spec: isRecord(object['spec']) ? object['spec'] : {},
    status: isRecord(object['status']) ? object['status'] : {},
  };
}

function conditionsOf(status: JsonRecord): JsonRecord[] {
  return Array.isArray(status['conditions']) ? status['conditions'].filter(isRecord) : [];
}

function ownerSamples(input: { name: string; object: KubeObject; labels: Labels }): MetricSample[] {
  const { name, labels } = input;
  const owners = input.object.metadata.ownerReferences ?? [];
  if (owners.length === 0)
    return [
      {
        name,
        labels: { ...labels, owner_kind: '<none>', owner_name: '<none>', owner_is_controller: '<none>' },
        value: 1,
      },
    ];
  return owners.map((owner) => ({
    name,
    labels: {
      ...labels,
      owner_kind: owner.kind,
      owner_name: owner.name,
      owner_is_controller: String(owner.controller === true),
    },
    value: 1,
  }));
}

function generationSamples(input: { name: string; object: KubeObject; labels: Labels }): MetricSample[] {
  const generation = input.object.metadata.generation;
  return typeof generation === 'number' ? [{ name: input.name, labels: input.labels, value: generation }] : [];
}

/** Every workload family's samples. */
/**
 * `clockOffsetMs` is real time minus the scenario's clock: timestamps are exported moved
 * by it, so that Prometheus, which evaluates `time() - ...` in real time, sees the ages the
 * scenario's clock gives.
 */
export function collectWorkloadMetrics(workloads: Workloads, clockOffsetMs = 0): MetricSample[] {
  const jobSamples = (job: KubeObject): MetricSample[] => jobSamplesAt(job, clockOffsetMs);
  return [
    ...workloads.deployments.flatMap(deploymentSamples),
    ...workloads.replicaSets.flatMap(replicaSetSamples),
    ...workloads.statefulSets.flatMap(statefulSetSamples),
    ...workloads.daemonSets.flatMap(daemonSetSamples),
    ...workloads.jobs.flatMap(jobSamples),
    ...workloads.cronJobs.flatMap(cronJobSamples),
  ];
}

function deploymentSamples(deployment: KubeObject): MetricSample[] {
  const { spec, status } = partsOf(deployment);
  const labels: Labels = { namespace: text(deployment.metadata.namespace), deployment: deployment.metadata.name };
  const samples: MetricSample[] = [
    { name: 'kube_deployment_spec_replicas', labels, value: numberOr(spec['replicas'], 1) },
    { name: 'kube_deployment_spec_paused', labels, value: spec['paused'] === true ? 1 : 0 },
    ...generationSamples({ name: 'kube_deployment_metadata_generation', object: deployment, labels }),
    { name: 'kube_deployment_status_observed_generation', labels, value: numberOr(status['observedGeneration'], 0) },
    { name: 'kube_deployment_status_replicas', labels, value: numberOr(status['replicas'], 0) },
    { name: 'kube_deployment_status_replicas_ready', labels, value: numberOr(status['readyReplicas'], 0) },
    { name: 'kube_deployment_status_replicas_available', labels, value: numberOr(status['availableReplicas'], 0) },
    { name: 'kube_deployment_status_replicas_unavailable', labels, value: numberOr(status['unavailableReplicas'], 0) },
    { name: 'kube_deployment_status_replicas_updated', labels, value: numberOr(status['updatedReplicas'], 0) },
  ];
  for (const condition of conditionsOf(status)) {
    samples.push(
      ...conditionSamples({
        name: 'kube_deployment_status_condition',
        labels: { ...labels, condition: text(condition['type']) },
        statusLabel: 'status',
        status: condition['status'],
      }),
    );
  }
  return samples;
}

function replicaSetSamples(replicaSet: KubeObject): MetricSample[] {
  const { spec, status } = partsOf(replicaSet);
  const labels: Labels = { namespace: text(replicaSet.metadata.namespace), replicaset: replicaSet.metadata.name };
  return [
    ...ownerSamples({ name: 'kube_replicaset_owner', object: replicaSet, labels }),
    { name: 'kube_replicaset_spec_replicas', labels, value: numberOr(spec['replicas'], 1) },
    { name: 'kube_replicaset_status_replicas', labels, value: numberOr(status['replicas'], 0) },
    { name: 'kube_replicaset_status_ready_replicas', labels, value: numberOr(status['readyReplicas'], 0) },
  ];
}

function statefulSetSamples(statefulSet: KubeObject): MetricSample[] {
  const { spec, status } = partsOf(statefulSet);
  const labels: Labels = { namespace: text(statefulSet.metadata.namespace), statefulset: statefulSet.metadata.name };
  const samples: MetricSample[] = [
    { name: 'kube_statefulset_replicas', labels, value: numberOr(spec['replicas'], 1) },
    ...generationSamples({ name: 'kube_statefulset_metadata_generation', object: statefulSet, labels }),
    { name: 'kube_statefulset_status_observed_generation', labels, value: numberOr(status['observedGeneration'], 0) },
    { name: 'kube_statefulset_status_replicas', labels, value: numberOr(status['replicas'], 0) },
    { name: 'kube_statefulset_status_replicas_available', labels, value: numberOr(status['availableReplicas'], 0) },
    { name: 'kube_statefulset_status_replicas_current', labels, value: numberOr(status['currentReplicas'], 0) },
    { name: 'kube_statefulset_status_replicas_ready', labels, value: numberOr(status['readyReplicas'], 0) },
    { name: 'kube_statefulset_status_replicas_updated', labels, value: numberOr(status['updatedReplicas'], 0) },
  ];
  if (text(status['currentRevision']))
    samples.push({
      name: 'kube_statefulset_status_current_revision',
      labels: { ...labels, revision: text(status['currentRevision']) },
      value: 1,
    });
  if (text(status['updateRevision']))
    samples.push({
      name: 'kube_statefulset_status_update_revision',
      labels: { ...labels, revision: text(status['updateRevision']) },
      value: 1,
    });
  return samples;
}

function daemonSetSamples(daemonSet: KubeObject): MetricSample[] {
  const { status } = partsOf(daemonSet);
  const labels: Labels = { namespace: text(daemonSet.metadata.namespace), daemonset: daemonSet.metadata.name };
  const counts: [string, string][] = [
    ['kube_daemonset_status_current_number_scheduled', 'currentNumberScheduled'],
    ['kube_daemonset_status_desired_number_scheduled', 'desiredNumberScheduled'],
    ['kube_daemonset_status_number_available', 'numberAvailable'],
    ['kube_daemonset_status_number_misscheduled', 'numberMisscheduled'],
    ['kube_daemonset_status_number_ready', 'numberReady'],
    ['kube_daemonset_status_number_unavailable', 'numberUnavailable'],
    ['kube_daemonset_status_updated_number_scheduled', 'updatedNumberScheduled'],
  ];
  return [
    ...generationSamples({ name: 'kube_daemonset_metadata_generation', object: daemonSet, labels }),
    { name: 'kube_daemonset_status_observed_generation', labels, value: numberOr(status['observedGeneration'], 0) },
    ...counts.map(([name, field]) => ({ name, labels, value: numberOr(status[field], 0) })),
  ];
}

function jobSamplesAt(job: KubeObject, clockOffsetMs: number): MetricSample[] {
  const { spec, status } = partsOf(job);
  const labels: Labels = { namespace: text(job.metadata.namespace), job_name: job.metadata.name };
  const conditions = conditionsOf(status);
  const failedCondition = conditions.find(
    (condition) => condition['type'] === 'Failed' && condition['status'] === 'True',
  );
  const samples: MetricSample[] = [
    { name: 'kube_job_info', labels, value: 1 },
    ...ownerSamples({ name: 'kube_job_owner', object: job, labels }),
    { name: 'kube_job_status_active', labels, value: numberOr(status['active'], 0) },
    { name: 'kube_job_status_succeeded', labels, value: numberOr(status['succeeded'], 0) },
    // The failure reason is a label only once the job has failed for one.
    {
      name: 'kube_job_status_failed',
      labels:
        failedCondition && text(failedCondition['reason'])
          ? { ...labels, reason: text(failedCondition['reason']) }
          : labels,
      value: numberOr(status['failed'], 0),
    },
  ];
  const started = Date.parse(text(status['startTime']));
  if (!Number.isNaN(started))
    samples.push({ name: 'kube_job_status_start_time', labels, value: Math.round((started + clockOffsetMs) / 1000) });
  if (typeof spec['completions'] === 'number')
    samples.push({ name: 'kube_job_spec_completions', labels, value: spec['completions'] });
  if (typeof spec['parallelism'] === 'number')
    samples.push({ name: 'kube_job_spec_parallelism', labels, value: spec['parallelism'] });
  for (const condition of conditions) {
    if (condition['type'] === 'Complete')
      samples.push(
        ...conditionSamples({
          name: 'kube_job_complete',
          labels,
          statusLabel: 'condition',
          status: condition['status'],
        }),
      );
    if (condition['type'] === 'Failed')
      samples.push(
        ...conditionSamples({ name: 'kube_job_failed', labels, statusLabel: 'condition', status: condition['status'] }),
      );
  }
  return samples;
}

function cronJobSamples(cronJob: KubeObject): MetricSample[] {
  const { spec, status } = partsOf(cronJob);
  const labels: Labels = { namespace: text(cronJob.metadata.namespace), cronjob: cronJob.metadata.name };
  return [
    {
      name: 'kube_cronjob_info',
      labels: {
        ...labels,
        schedule: text(spec['schedule']),
        concurrency_policy: text(spec['concurrencyPolicy']) || 'Allow',
      },
      value: 1,
    },
    { name: 'kube_cronjob_spec_suspend', labels, value: spec['suspend'] === true ? 1 : 0 },
    {
      name: 'kube_cronjob_status_active',
      labels,
      value: Array.isArray(status['active']) ? status['active'].length : 0,
    },
  ];
}
