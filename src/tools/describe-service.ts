/**
 * `describe_service`: one Service's selector, ports and endpoints, the pods its selector
 * matches (ready or not), and when it matches none, the label values the namespace's pods
 * carry for the same keys, so a mistyped selector shows at once.
 */
import { z } from 'zod';
import type { V1Pod } from '@kubernetes/client-node';
import { BudgetedText } from './format/budget.ts';
import { formatPodGroup, readPodGroup, type PodGroupData } from './format/pod-group.ts';
import { readEndpoints, type ServiceEndpointsData } from './format/service-endpoints.ts';
import { formatLabelMap, matchesLabelMap } from './format/selectors.ts';
import { formatServicePorts } from './list-services.ts';
import { failureFrom, success } from './tool-results.ts';
import type { Tool } from './tool.ts';

export interface ServiceDetailsData {
  namespace: string;
  name: string;
  type: string;
  clusterIP?: string;
  selector: Record<string, string>;
  ports: Array<{ name?: string; port: number; targetPort: string; protocol: string }>;
  endpoints: ServiceEndpointsData;
  /** Pods the selector matches. */
  pods: PodGroupData;
  /** When no pod matches: for each selector key, the values the namespace's pods carry. */
  labelValuesInNamespace?: Record<string, string[]>;
  /** Target ports no matched pod's container declares (named ports must exist by name). */
  unmatchedTargetPorts: string[];
}

const input = z.object({
  namespace: z.string().min(1).describe('Namespace of the Service'),
  name: z.string().min(1).describe('Service name'),
});

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

export const describeServiceTool: Tool<typeof input> = {
  name: 'describe_service',
  description:
    'Shows one Service: type, selector, ports (port -> targetPort), ready and not-ready endpoints with their pods, the pods its selector ' +
    'matches by status, target ports no matched pod declares, and when the selector matches no pod, the values the namespace\'s pods carry ' +
    'for the selector\'s label keys (a typo in the selector shows here). Use it for 503s and "no endpoints" alerts.',
  input,
  risk: 'read',
  async run(args, context) {
    const [service, endpointsResult] = await Promise.all([
      context.cluster.get('Service', { namespace: args.namespace, name: args.name }, { signal: context.signal }),
      context.cluster.get('Endpoints', { namespace: args.namespace, name: args.name }, { signal: context.signal }),
    ]);
    if (!service.ok) return failureFrom(service.error, service.error.kind === 'not-found' ? `Use list_services in "${args.namespace}".` : undefined);
    const now = context.cluster.now();
    const selector = service.value.spec?.selector ?? {};
    const selectorText = formatLabelMap(selector);
    const endpoints = readEndpoints(endpointsResult.ok ? endpointsResult.value : undefined);
    const pods = await readPodGroup({ cluster: context.cluster, namespace: args.namespace, labelSelector: selectorText, signal: context.signal, filter: (pod) => matchesLabelMap(selector, pod.metadata?.labels) });
    let labelValuesInNamespace: Record<string, string[]> | undefined;
    if (selectorText && pods.total === 0) {
      const all = await context.cluster.list('Pod', { namespace: args.namespace, maxItems: 5000, signal: context.signal });
      if (all.ok) {
        labelValuesInNamespace = Object.fromEntries(
          Object.keys(selector).map((key) => [key, [...new Set(all.value.items.map((pod) => pod.metadata?.labels?.[key]).filter((value): value is string => value !== undefined))].sort().slice(0, 20)]),
        );
      }
    }
    const ports = (service.value.spec?.ports ?? []).map((port) => ({ ...(port.name ? { name: port.name } : {}), port: port.port, targetPort: String(port.targetPort ?? port.port), protocol: port.protocol ?? 'TCP' }));
    const declared = declaredPorts(pods.items);
    const unmatchedTargetPorts = pods.items.length ? ports.map((port) => port.targetPort).filter((target) => !declared.has(target)) : [];
    const { items: _items, ...podGroup } = pods;
    const data: ServiceDetailsData = {
      namespace: args.namespace,
      name: args.name,
      type: service.value.spec?.type ?? 'ClusterIP',
      ...(service.value.spec?.clusterIP ? { clusterIP: service.value.spec.clusterIP } : {}),
      selector,
      ports,
      endpoints,
      pods: podGroup,
      ...(labelValuesInNamespace ? { labelValuesInNamespace } : {}),
      unmatchedTargetPorts,
    };

    const text = new BudgetedText(context.outputBudgetBytes);
    text.addIfRoom(`Service ${args.namespace}/${args.name}: ${data.type}${data.clusterIP ? ` ${data.clusterIP}` : ''}, selector ${selectorText || '(none)'}, ports ${formatServicePorts(service.value).join(' ') || '-'}`);
    const endpointText = (list: ServiceEndpointsData['ready']): string => list.slice(0, 10).map((address) => `${address.ip}${address.pod ? ` (${address.pod})` : ''}`).join(', ');
    if (!endpointsResult.ok) text.addIfRoom(`endpoints: ${endpointsResult.error.kind === 'not-found' ? 'no Endpoints object' : `could not be read (${endpointsResult.error.message})`}`);
    else text.addIfRoom(`endpoints: ${endpoints.ready.length} ready${endpoints.ready.length ? ` [${endpointText(endpoints.ready)}]` : ''}, ${endpoints.notReady.length} not ready${endpoints.notReady.length ? ` [${endpointText(endpoints.notReady)}]` : ''}`);
    if (!selectorText) text.addIfRoom('no selector: Kubernetes does not manage this Service\'s endpoints.');
    else {
      text.addIfRoom(`pods matching selector ${selectorText}:`);
      for (const line of formatPodGroup(pods, now)) text.addIfRoom(`  ${line}`);
    }
    if (labelValuesInNamespace) {
      const values = Object.entries(labelValuesInNamespace).map(([key, found]) => `${key}=${selector[key]} wanted; pods here have ${key} in {${found.join(', ') || 'no such label'}}`);
      text.addIfRoom(`the selector matches no pod in ${args.namespace}: ${values.join('; ')}`);
    }
    if (unmatchedTargetPorts.length) text.addIfRoom(`targetPort(s) ${unmatchedTargetPorts.join(', ')} not declared by any matched pod's containers (a named targetPort must match a container port name).`);
    return success(text.finish('use list_pods with the selector for the pods.'), data, text.truncated);
  },
};
