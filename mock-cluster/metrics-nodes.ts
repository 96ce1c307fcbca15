/**
 * kube-state-metrics' node and namespace families: node identity, cordon and taints,
 * every node condition (Ready, MemoryPressure, DiskPressure, PIDPressure, and whatever a
 * node problem detector adds), and namespace phase.
 */
import { conditionSamples, text, type MetricDefinitions, type MetricSample } from './metrics-format.ts';
import { isRecord, type KubeObject } from './types.ts';

export const NODE_METRICS: MetricDefinitions = {
  kube_node_info: { help: 'Information about a cluster node.', type: 'gauge' },
  kube_node_spec_unschedulable: { help: 'Whether a node can schedule new pods.', type: 'gauge' },
  kube_node_spec_taint: { help: 'The taint of a cluster node.', type: 'gauge' },
  kube_node_status_condition: { help: 'The condition of a cluster node.', type: 'gauge' },
  kube_namespace_status_phase: { help: 'kubernetes namespace status phase.', type: 'gauge' },
};

/** Samples for every node and namespace. */
export function collectNodeMetrics(input: {
  nodes: readonly KubeObject[];
  namespaces: readonly KubeObject[];
}): MetricSample[] {
  return [...input.nodes.flatMap(nodeSamples), ...input.namespaces.flatMap(namespaceSamples)];
}

function nodeSamples(node: KubeObject): MetricSample[] {
  const spec = isRecord(node['spec']) ? node['spec'] : {};
  const status = isRecord(node['status']) ? node['status'] : {};
  const info = isRecord(status['nodeInfo']) ? status['nodeInfo'] : {};
  const addresses = Array.isArray(status['addresses']) ? status['addresses'].filter(isRecord) : [];
  const labels = { node: node.metadata.name };
  const samples: MetricSample[] = [
    {
      name: 'kube_node_info',
      labels: {
        ...labels,
        kernel_version: text(info['kernelVersion']),
        os_image: text(info['osImage']),
        container_runtime_version: text(info['containerRuntimeVersion']),
        kubelet_version: text(info['kubeletVersion']),
        kubeproxy_version: text(info['kubeProxyVersion']),
        provider_id: text(spec['providerID']),
        pod_cidr: text(spec['podCIDR']),
        system_uuid: text(info['systemUUID']),
        internal_ip: text(addresses.find((address) => address['type'] === 'InternalIP')?.['address']),
      },
      value: 1,
    },
    { name: 'kube_node_spec_unschedulable', labels, value: spec['unschedulable'] === true ? 1 : 0 },
  ];
  const taints = Array.isArray(spec['taints']) ? spec['taints'].filter(isRecord) : [];
  for (const taint of taints)
    samples.push({
      name: 'kube_node_spec_taint',
      labels: { ...labels, key: text(taint['key']), value: text(taint['value']), effect: text(taint['effect']) },
      value: 1,
    });
  const conditions = Array.isArray(status['conditions']) ? status['conditions'].filter(isRecord) : [];
  for (const condition of conditions) {
    samples.push(
      ...conditionSamples({
        name: 'kube_node_status_condition',
        labels: { ...labels, condition: text(condition['type']) },
        statusLabel: 'status',
        status: condition['status'],
      }),
    );
  }
  return samples;
}

function namespaceSamples(namespace: KubeObject): MetricSample[] {
  const status = isRecord(namespace['status']) ? namespace['status'] : {};
  const phase = text(status['phase']) || 'Active';
  return ['Active', 'Terminating'].map((candidate) => ({
    name: 'kube_namespace_status_phase',
    labels: { namespace: namespace.metadata.name, phase: candidate },
    value: candidate === phase ? 1 : 0,
  }));
}
