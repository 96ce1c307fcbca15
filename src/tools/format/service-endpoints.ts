/** A Service's endpoints read from its Endpoints object: ready and not-ready addresses with their pods. */
import type { V1Endpoints } from '@kubernetes/client-node';

export interface EndpointAddressData {
  ip: string;
  pod?: string;
  node?: string;
}

export interface ServiceEndpointsData {
  ready: EndpointAddressData[];
  notReady: EndpointAddressData[];
  ports: string[];
}

export function readEndpoints(endpoints: V1Endpoints | undefined): ServiceEndpointsData {
  const ready: EndpointAddressData[] = [];
  const notReady: EndpointAddressData[] = [];
  const ports = new Set<string>();
  for (const subset of endpoints?.subsets ?? []) {
    const read = (address: {
      ip: string;
      targetRef?: { kind?: string; name?: string };
      nodeName?: string;
    }): EndpointAddressData => ({
      ip: address.ip,
      ...(address.targetRef?.kind === 'Pod' && address.targetRef.name ? { pod: address.targetRef.name } : {}),
      ...(address.nodeName ? { node: address.nodeName } : {}),
    });
    ready.push(...(subset.addresses ?? []).map(read));
    notReady.push(...(subset.notReadyAddresses ?? []).map(read));
    for (const port of subset.ports ?? []) ports.add(`${port.port}${port.name ? `/${port.name}` : ''}`);
  }
  return { ready, notReady, ports: [...ports] };
}
