/**
 * kube-state-metrics' pod families, computed from Pod objects as its pod store does:
 * identity (`kube_pod_info`, `kube_pod_owner`), phase, readiness, scheduling and reason,
 * and per container (and init container) its state, waiting and termination reasons,
 * readiness and restart counter. Names, labels and values follow kube-state-metrics v2.
 */
import {
  conditionSamples,
  numberOr,
  text,
  type Labels,
  type MetricDefinitions,
  type MetricSample,
} from './metrics-format.ts';
import { isRecord, type KubeObject, type JsonRecord } from './types.ts';

const CONTAINER_FAMILIES = (prefix: string, kind: string): MetricDefinitions => ({
  [`${prefix}_info`]: { help: `Information about a ${kind} in a pod.`, type: 'gauge' },
  [`${prefix}_status_waiting`]: { help: `Describes whether the ${kind} is currently in waiting state.`, type: 'gauge' },
  [`${prefix}_status_waiting_reason`]: {
    help: `Describes the reason the ${kind} is currently in waiting state.`,
    type: 'gauge',
  },
  [`${prefix}_status_running`]: { help: `Describes whether the ${kind} is currently in running state.`, type: 'gauge' },
  [`${prefix}_status_terminated`]: {
    help: `Describes whether the ${kind} is currently in terminated state.`,
    type: 'gauge',
  },
  [`${prefix}_status_terminated_reason`]: {
    help: `Describes the reason the ${kind} is currently in terminated state.`,
    type: 'gauge',
  },
  [`${prefix}_status_last_terminated_reason`]: {
    help: `Describes the last reason the ${kind} was in terminated state.`,
    type: 'gauge',
  },
  [`${prefix}_status_last_terminated_exitcode`]: {
    help: `Describes the exit code for the last ${kind} in terminated state.`,
    type: 'gauge',
  },
  [`${prefix}_status_ready`]: { help: `Describes whether the ${kind}'s readiness check succeeded.`, type: 'gauge' },
  [`${prefix}_status_restarts_total`]: { help: `The number of restarts for the ${kind}.`, type: 'counter' },
});

export const POD_METRICS: MetricDefinitions = {
  kube_pod_info: { help: 'Information about pod.', type: 'gauge' },
  kube_pod_owner: { help: "Information about the Pod's owner.", type: 'gauge' },
  kube_pod_status_phase: { help: 'The pods current phase.', type: 'gauge' },
  kube_pod_status_ready: { help: 'Describes whether the pod is ready to serve requests.', type: 'gauge' },
  kube_pod_status_scheduled: { help: 'Describes the status of the scheduling process for the pod.', type: 'gauge' },
  kube_pod_status_unschedulable: { help: 'Describes the unschedulable status for the pod.', type: 'gauge' },
  kube_pod_status_reason: { help: 'The pod status reasons', type: 'gauge' },
  ...CONTAINER_FAMILIES('kube_pod_container', 'container'),
  ...CONTAINER_FAMILIES('kube_pod_init_container', 'init container'),
};

const PHASES = ['Pending', 'Succeeded', 'Failed', 'Unknown', 'Running'];
const POD_REASONS = ['Evicted', 'NodeAffinity', 'NodeLost', 'Shutdown', 'UnexpectedAdmissionError'];
const NONE = '<none>';

/** Every pod family's samples for these pods. */
export function collectPodMetrics(pods: readonly KubeObject[]): MetricSample[] {
  return pods.flatMap((pod) => podSamples(pod));
}

function podSamples(pod: KubeObject): MetricSample[] {
  const spec = isRecord(pod['spec']) ? pod['spec'] : {};
  const status = isRecord(pod['status']) ? pod['status'] : {};
  const base: Labels = { namespace: text(pod.metadata.namespace), pod: pod.metadata.name, uid: text(pod.metadata.uid) };
  const owners = pod.metadata.ownerReferences ?? [];
  const controller = owners.find((owner) => owner.controller);
  const samples: MetricSample[] = [
    {
      name: 'kube_pod_info',
      labels: {
        ...base,
        host_ip: text(status['hostIP']),
        pod_ip: text(status['podIP']),
        node: text(spec['nodeName']),
        created_by_kind: controller?.kind ?? NONE,
        created_by_name: controller?.name ?? NONE,
        priority_class: text(spec['priorityClassName']),
        host_network: String(spec['hostNetwork'] === true),
      },
      value: 1,
    },
  ];
  if (owners.length === 0)
    samples.push({
      name: 'kube_pod_owner',
      labels: { ...base, owner_kind: NONE, owner_name: NONE, owner_is_controller: NONE },
      value: 1,
    });
  for (const owner of owners) {
    samples.push({
      name: 'kube_pod_owner',
      labels: {
        ...base,
        owner_kind: owner.kind,
        owner_name: owner.name,
        owner_is_controller: String(owner.controller === true),
      },
      value: 1,
    });
  }

  const reason = text(status['reason']);
  // A pod whose node stopped answering is being deleted with reason NodeLost: its phase is no longer known.
  const phase = pod.metadata.deletionTimestamp && reason === 'NodeLost' ? 'Unknown' : text(status['phase']);
  if (phase)
    for (const candidate of PHASES)
      samples.push({
        name: 'kube_pod_status_phase',
        labels: { ...base, phase: candidate },
        value: candidate === phase ? 1 : 0,
      });

  const conditions = Array.isArray(status['conditions']) ? status['conditions'].filter(isRecord) : [];
  for (const condition of conditions) {
    if (condition['type'] === 'Ready')
      samples.push(
        ...conditionSamples({
          name: 'kube_pod_status_ready',
          labels: base,
          statusLabel: 'condition',
          status: condition['status'],
        }),
      );
    if (condition['type'] === 'PodScheduled') {
      samples.push(
        ...conditionSamples({
          name: 'kube_pod_status_scheduled',
          labels: base,
          statusLabel: 'condition',
          status: condition['status'],
        }),
      );
      if (condition['status'] === 'False' && condition['reason'] === 'Unschedulable')
        samples.push({ name: 'kube_pod_status_unschedulable', labels: base, value: 1 });
    }
  }
  for (const candidate of POD_REASONS)
    samples.push({
      name: 'kube_pod_status_reason',
      labels: { ...base, reason: candidate },
      value: candidate === reason ? 1 : 0,
    });

  samples.push(
    ...containerSamples({
      prefix: 'kube_pod_container',
      base,
      specs: spec['containers'],
      statuses: status['containerStatuses'],
      exitCodes: true,
    }),
  );
  samples.push(
    ...containerSamples({
      prefix: 'kube_pod_init_container',
      base,
      specs: spec['initContainers'],
      statuses: status['initContainerStatuses'],
      exitCodes: false,
    }),
  );
  return samples;
}

function containerSamples(input: {
  prefix: string;
  base: Labels;
  specs: unknown;
  statuses: unknown;
  exitCodes: boolean;
}): MetricSample[] {
  const specs = Array.isArray(input.specs) ? input.specs.filter(isRecord) : [];
  const statuses = Array.isArray(input.statuses) ? input.statuses.filter(isRecord) : [];
  const samples: MetricSample[] = [];
  const add = (suffix: string, labels: Labels, value: number): void =>
    void samples.push({ name: `${input.prefix}${suffix}`, labels, value });
  for (const containerStatus of statuses) {
    const container = text(containerStatus['name']);
    const labels: Labels = { ...input.base, container };
    const spec = specs.find((candidate) => candidate['name'] === container);
    const state: JsonRecord = isRecord(containerStatus['state']) ? containerStatus['state'] : {};
    const lastState: JsonRecord = isRecord(containerStatus['lastState']) ? containerStatus['lastState'] : {};
    const waiting = isRecord(state['waiting']) ? state['waiting'] : undefined;
    const terminated = isRecord(state['terminated']) ? state['terminated'] : undefined;
    const lastTerminated = isRecord(lastState['terminated']) ? lastState['terminated'] : undefined;

    add(
      '_info',
      {
        ...labels,
        image_spec: text(spec?.['image']),
        image: text(containerStatus['image']),
        image_id: text(containerStatus['imageID']),
        container_id: text(containerStatus['containerID']),
      },
      1,
    );
    add('_status_waiting', labels, waiting ? 1 : 0);
    if (waiting && text(waiting['reason']))
      add('_status_waiting_reason', { ...labels, reason: text(waiting['reason']) }, 1);
    add('_status_running', labels, isRecord(state['running']) ? 1 : 0);
    add('_status_terminated', labels, terminated ? 1 : 0);
    if (terminated && text(terminated['reason']))
      add('_status_terminated_reason', { ...labels, reason: text(terminated['reason']) }, 1);
    if (lastTerminated && text(lastTerminated['reason']))
      add('_status_last_terminated_reason', { ...labels, reason: text(lastTerminated['reason']) }, 1);
    if (lastTerminated && input.exitCodes)
      add('_status_last_terminated_exitcode', labels, numberOr(lastTerminated['exitCode'], 0));
    add('_status_ready', labels, containerStatus['ready'] === true ? 1 : 0);
    add('_status_restarts_total', labels, numberOr(containerStatus['restartCount'], 0));
  }
  return samples;
}
