/**
 * kube-state-metrics' service and endpoint families: which Services exist and of what
 * type, and every address of their Endpoints with whether it is ready, so a Service
 * whose selector matches no ready pod shows as an Endpoints object without a ready address.
 */
import { text, type MetricDefinitions, type MetricSample } from './metrics-format.ts';
import { isRecord, type KubeObject } from './types.ts';

export const SERVICE_METRICS: MetricDefinitions = {
  kube_service_info: { help: 'Information about service.', type: 'gauge' },
  kube_service_spec_type: { help: 'Type about service.', type: 'gauge' },
  kube_endpoint_info: { help: 'Information about endpoint.', type: 'gauge' },
  kube_endpoint_address: { help: 'Information about Endpoint available and non available addresses.', type: 'gauge' },
};

/** Samples for every Service and Endpoints object. */
export function collectServiceMetrics(input: {
  services: readonly KubeObject[];
  endpoints: readonly KubeObject[];
}): MetricSample[] {
  return [...input.services.flatMap(serviceSamples), ...input.endpoints.flatMap(endpointSamples)];
}

function serviceSamples(service: KubeObject): MetricSample[] {
  const spec = isRecord(service['spec']) ? service['spec'] : {};
  const status = isRecord(service['status']) ? service['status'] : {};
  const loadBalancer = isRecord(status['loadBalancer']) ? status['loadBalancer'] : {};
  const ingress = Array.isArray(loadBalancer['ingress']) ? loadBalancer['ingress'].filter(isRecord) : [];
  const labels = {
    namespace: text(service.metadata.namespace),
    service: service.metadata.name,
    uid: text(service.metadata.uid),
  };
  return [
    {
      name: 'kube_service_info',
      labels: {
        ...labels,
        cluster_ip: text(spec['clusterIP']),
        external_name: text(spec['externalName']),
        load_balancer_ip: text(ingress[0]?.['ip']),
      },
      value: 1,
    },
    { name: 'kube_service_spec_type', labels: { ...labels, type: text(spec['type']) || 'ClusterIP' }, value: 1 },
  ];
}

function endpointSamples(endpoints: KubeObject): MetricSample[] {
  const labels = { namespace: text(endpoints.metadata.namespace), endpoint: endpoints.metadata.name };
  const samples: MetricSample[] = [{ name: 'kube_endpoint_info', labels, value: 1 }];
  const subsets = Array.isArray(endpoints['subsets']) ? endpoints['subsets'].filter(isRecord) : [];
  for (const subset of subsets) {
    for (const [field, ready] of [
      ['addresses', 'true'],
      ['notReadyAddresses', 'false'],
    ] as const) {
      const addresses = Array.isArray(subset[field]) ? subset[field].filter(isRecord) : [];
      for (const address of addresses)
        samples.push({
          name: 'kube_endpoint_address',
          labels: { ...labels, ip: text(address['ip']), ready },
          value: 1,
        });
    }
  }
  return samples;
}
