/**
 * One Service as `describe_service` and `resolve_host` show it: selector, ports, endpoints,
 * the pods its selector matches with the state and problem of each unhealthy one, and when
 * the selector matches nothing, the label values the namespace's pods carry for its keys.
 */
import type { V1Pod, V1Service } from '@kubernetes/client-node';
import type { ReadCluster, ClusterError } from '../../cluster/cluster.ts';
import { formatPodGroup, readPodGroup, type PodGroupData } from './pod-group.ts';
import { readEndpoints, type ServiceEndpointsData } from './service-endpoints.ts';
import { formatLabelMap, matchesLabelMap } from './selectors.ts';

export interface ServiceDetailsData {
  namespace: string;
  name: string;
  type: string;
  clusterIP?: string;
  /** An ExternalName Service's DNS name (a CNAME, no endpoints). */
  externalName?: string;
  selector: Record<string, string>;
  ports: Array<{ name?: string; port: number; targetPort: string; protocol: string }>;
  endpoints: ServiceEndpointsData;
  /** Pods the selector matches; the unhealthy ones carry their problem, previous termination and scheduler message. */
  pods: PodGroupData;
  /** When no pod matches: for each selector key, the values the namespace's pods carry. */
  labelValuesInNamespace?: Record<string, string[]>;
  /** When no pod matches: for each selector key, the labels that carry its wanted value under another key (`app=web` for `app.kubernetes.io/name=web`). */
  wantedValueUnderOtherKeys?: Record<string, string[]>;
  /** The ports the matched pods' containers declare (`3000`, `http=3000`). */
  declaredPorts: string[];
  /** Target ports no matched pod's container declares (named ports must exist by name). */
  unmatchedTargetPorts: string[];
}

export interface ServiceDetails {
  data: ServiceDetailsData;
  /** Why the Endpoints object could not be read (`not-found`: Kubernetes made none). */
  endpointsError?: ClusterError;
}

/** The ports the pods' containers declare, once each: `3000` or `http=3000`. */
function declaredPortList(pods: readonly V1Pod[]): string[] {
  const ports = new Set<string>();
  for (const pod of pods) {
    for (const container of pod.spec?.containers ?? []) {
      for (const port of container.ports ?? [])
        ports.add(port.name ? `${port.name}=${port.containerPort}` : String(port.containerPort));
    }
  }
  return [...ports].slice(0, 20);
}

function declaredPorts(pods: readonly V1Pod[]): Set<string> {
  const ports = new Set<string>();
  for (const pod of pods) {
    for (const container of pod.spec?.containers ?? []) {
      for (const port of container.ports ?? []) {
        ports.add(String(port.containerPort));
        if (port.name) ports.add(port.name);
      }
    }
  }
  return ports;
}

interface LabelValues {
  values: Record<string, string[]>;
  underOtherKeys: Record<string, string[]>;
}

/** For each selector key: the values the namespace's pods carry under it, and the labels carrying its wanted value under another key. */
async function readLabelValues(input: {
  cluster: ReadCluster;
  namespace: string;
  selector: Record<string, string>;
  signal: AbortSignal;
}): Promise<LabelValues | undefined> {
  const all = await input.cluster.list('Pod', { namespace: input.namespace, maxItems: 5000, signal: input.signal });
  if (!all.ok) return undefined;
  const labels = all.value.items.map((pod) => pod.metadata?.labels ?? {});
  const distinct = (found: Array<string | undefined>): string[] =>
    [...new Set(found.filter((value): value is string => value !== undefined))].sort().slice(0, 20);
  const entries = Object.entries(input.selector);
  const underOtherKeys = Object.fromEntries(
    entries
      .map(
        ([key, wanted]) =>
          [
            key,
            distinct(
              labels.flatMap((map) =>
                Object.entries(map)
                  .filter(([other, value]) => other !== key && value === wanted)
                  .map(([other, value]) => `${other}=${value}`),
              ),
            ),
          ] as const,
      )
      .filter(([, found]) => found.length > 0),
  );
  return {
    values: Object.fromEntries(entries.map(([key]) => [key, distinct(labels.map((map) => map[key]))])),
    underOtherKeys,
  };
}

/** Reads a Service's endpoints and the pods behind it; the Service itself was read by the caller. */
export async function readServiceDetails(input: {
  cluster: ReadCluster;
  service: V1Service;
  signal: AbortSignal;
}): Promise<ServiceDetails> {
  const namespace = input.service.metadata?.namespace ?? '';
  const name = input.service.metadata?.name ?? '';
  const selector = input.service.spec?.selector ?? {};
  const selectorText = formatLabelMap(selector);
  const [endpointsResult, pods] = await Promise.all([
    input.cluster.get('Endpoints', { namespace, name }, { signal: input.signal }),
    readPodGroup({
      cluster: input.cluster,
      namespace,
      labelSelector: selectorText,
      signal: input.signal,
      filter: (pod) => matchesLabelMap(selector, pod.metadata?.labels),
    }),
  ]);
  const labelValues =
    selectorText && pods.total === 0
      ? await readLabelValues({ cluster: input.cluster, namespace, selector, signal: input.signal })
      : undefined;
  const ports = (input.service.spec?.ports ?? []).map((port) => ({
    ...(port.name ? { name: port.name } : {}),
    port: port.port,
    targetPort: String(port.targetPort ?? port.port),
    protocol: port.protocol ?? 'TCP',
  }));
  const declared = declaredPorts(pods.items);
  const { items: _items, ...podGroup } = pods;
  const spec = input.service.spec;
  const data: ServiceDetailsData = {
    namespace,
    name,
    type: spec?.type ?? 'ClusterIP',
    ...(spec?.clusterIP ? { clusterIP: spec.clusterIP } : {}),
    ...(spec?.externalName ? { externalName: spec.externalName } : {}),
    selector,
    ports,
    endpoints: readEndpoints(endpointsResult.ok ? endpointsResult.value : undefined),
    pods: podGroup,
    ...(labelValues ? { labelValuesInNamespace: labelValues.values } : {}),
    ...(labelValues && Object.keys(labelValues.underOtherKeys).length
      ? { wantedValueUnderOtherKeys: labelValues.underOtherKeys }
      : {}),
    declaredPorts: declaredPortList(pods.items),
    unmatchedTargetPorts: pods.items.length
      ? ports.map((port) => port.targetPort).filter((target) => !declared.has(target))
      : [],
  };
  return { data, ...(endpointsResult.ok ? {} : { endpointsError: endpointsResult.error }) };
}

/** `http:80->8080/TCP`, as kubectl prints a Service's ports. */
export function formatServiceDetailPorts(ports: ServiceDetailsData['ports']): string[] {
  return ports.map((port) => `${port.name ? `${port.name}:` : ''}${port.port}->${port.targetPort}/${port.protocol}`);
}

/** The lines `describe_service` prints, most telling first. */
export function formatServiceDetails(details: ServiceDetails, now: Date): string[] {
  const { data } = details;
  const selectorText = formatLabelMap(data.selector);
  const address = data.clusterIP
    ? ` ${data.clusterIP}${data.clusterIP === 'None' ? ' (headless: DNS answers the pod IPs)' : ''}`
    : '';
  const lines = [
    `Service ${data.namespace}/${data.name}: ${data.type}${address}, selector ${selectorText || '(none)'}, ports ${formatServiceDetailPorts(data.ports).join(' ') || '-'}`,
  ];
  if (data.externalName)
    lines.push(`ExternalName: DNS answers a CNAME to ${data.externalName}; no pods or endpoints are involved.`);
  const endpointText = (list: ServiceEndpointsData['ready']): string =>
    list
      .slice(0, 10)
      .map((entry) => `${entry.ip}${entry.pod ? ` (${entry.pod})` : ''}`)
      .join(', ');
  const { endpoints } = data;
  if (details.endpointsError)
    lines.push(
      `endpoints: ${details.endpointsError.kind === 'not-found' ? 'no Endpoints object' : `could not be read (${details.endpointsError.message})`}`,
    );
  else
    lines.push(
      `endpoints: ${endpoints.ready.length} ready${endpoints.ready.length ? ` [${endpointText(endpoints.ready)}]` : ''}, ${endpoints.notReady.length} not ready${endpoints.notReady.length ? ` [${endpointText(endpoints.notReady)}]` : ''}`,
    );
  if (!selectorText) lines.push("no selector: Kubernetes does not manage this Service's endpoints.");
  else {
    lines.push(`pods matching selector ${selectorText}:`);
    for (const line of formatPodGroup(data.pods, now)) lines.push(`  ${line}`);
  }
  if (data.labelValuesInNamespace) {
    const values = Object.entries(data.labelValuesInNamespace).map(
      ([key, found]) =>
        `${key}=${data.selector[key]} wanted; pods here have ${key} in {${found.join(', ') || 'no such label'}}`,
    );
    lines.push(`the selector matches no pod in ${data.namespace}: ${values.join('; ')}`);
  }
  for (const [key, found] of Object.entries(data.wantedValueUnderOtherKeys ?? {})) {
    lines.push(`pods here carry the wanted value of ${key} under another key: ${found.join(', ')}`);
  }
  if (data.unmatchedTargetPorts.length) {
    lines.push(
      `targetPort(s) ${data.unmatchedTargetPorts.join(', ')} not declared by any matched pod's containers, which declare ${data.declaredPorts.join(', ') || 'no port'} (a named targetPort must match a container port name).`,
    );
  }
  return lines;
}
