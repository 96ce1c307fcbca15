/** `list_services`: Services with type, selector, ports and ready/not-ready endpoint counts; those without ready endpoints first. */
import { z } from 'zod';
import { namespaceName } from './names.ts';
import type { V1Endpoints, V1Service } from '@kubernetes/client-node';
import { BudgetedText } from './format/budget.ts';
import { readEndpoints } from './format/service-endpoints.ts';
import { formatLabelMap } from './format/selectors.ts';
import { failureFrom, resolveNamespaces, success } from './tool-results.ts';
import type { ReadTool } from './tool.ts';

export interface ServiceSummaryData {
  namespace: string;
  name: string;
  type: string;
  selector: string;
  ports: string[];
  readyEndpoints: number;
  notReadyEndpoints: number;
  /** Has a selector (so Kubernetes manages its endpoints) and no ready endpoint. */
  noReadyEndpoints: boolean;
}

export interface ServicesData {
  total: number;
  withoutReadyEndpoints: number;
  services: ServiceSummaryData[];
}

const input = z.object({
  namespace: namespaceName().optional().describe('Namespace; omitted: every namespace this run may read'),
  noReadyEndpoints: z
    .boolean()
    .optional()
    .describe('true: only the Services whose selector yields no ready endpoint (the others are counted, not listed)'),
});

export function formatServicePorts(service: V1Service): string[] {
  return (service.spec?.ports ?? []).map(
    (port) =>
      `${port.name ? `${port.name}:` : ''}${port.port}->${port.targetPort ?? port.port}/${port.protocol ?? 'TCP'}`,
  );
}

export const listServicesTool: ReadTool<typeof input, ServicesData, 'list_services'> = {
  name: 'list_services',
  description:
    'Lists Services with type, selector, ports and how many ready and not-ready endpoints each has; Services whose selector yields no ready ' +
    'endpoint come first (noReadyEndpoints: only those). Use describe_service on one of them to see which pods its selector matches and why none are ready.',
  input,
  risk: 'read',
  async run(args, context) {
    const services: V1Service[] = [];
    const endpoints = new Map<string, V1Endpoints>();
    for (const namespace of resolveNamespaces(args.namespace, context)) {
      const scope = namespace !== undefined ? { namespace } : {};
      const [serviceList, endpointList] = await Promise.all([
        context.cluster.list('Service', { ...scope, maxItems: 2000, signal: context.signal }),
        context.cluster.list('Endpoints', { ...scope, maxItems: 2000, signal: context.signal }),
      ]);
      if (!serviceList.ok) return failureFrom(serviceList.error);
      services.push(...serviceList.value.items);
      if (endpointList.ok)
        for (const item of endpointList.value.items)
          endpoints.set(`${item.metadata?.namespace}/${item.metadata?.name}`, item);
    }
    const summaries = services
      .map((service): ServiceSummaryData => {
        const key = `${service.metadata?.namespace}/${service.metadata?.name}`;
        const read = readEndpoints(endpoints.get(key));
        const selector = formatLabelMap(service.spec?.selector);
        return {
          namespace: service.metadata?.namespace ?? '',
          name: service.metadata?.name ?? '',
          type: service.spec?.type ?? 'ClusterIP',
          selector,
          ports: formatServicePorts(service),
          readyEndpoints: read.ready.length,
          notReadyEndpoints: read.notReady.length,
          noReadyEndpoints: selector !== '' && service.spec?.type !== 'ExternalName' && read.ready.length === 0,
        };
      })
      .sort(
        (left, right) =>
          Number(right.noReadyEndpoints) - Number(left.noReadyEndpoints) ||
          left.namespace.localeCompare(right.namespace) ||
          left.name.localeCompare(right.name),
      );
    const listed = args.noReadyEndpoints ? summaries.filter((service) => service.noReadyEndpoints) : summaries;
    const data: ServicesData = {
      total: summaries.length,
      withoutReadyEndpoints: summaries.filter((service) => service.noReadyEndpoints).length,
      services: listed.slice(0, 500),
    };
    const text = new BudgetedText(context.outputBudgetBytes);
    text.add(
      `${summaries.length} Service(s): ${data.withoutReadyEndpoints} with a selector but no ready endpoint${args.noReadyEndpoints ? '; only those are listed' : ''}.`,
    );
    for (const service of listed) {
      // A Service that reaches ready pods through its selector is as kubectl get svc shows it: the selector only where something is wrong.
      const reaching = service.selector !== '' && service.readyEndpoints > 0;
      const selector = reaching ? '' : `, selector ${service.selector || '(none: endpoints managed by hand)'}`;
      const notReady = reaching && service.notReadyEndpoints === 0 ? '' : `, not ready ${service.notReadyEndpoints}`;
      const line = `${args.namespace ? '' : `${service.namespace}/`}${service.name}: ${service.type}${selector}, ports ${service.ports.join(' ') || '-'}, endpoints ready ${service.readyEndpoints}${notReady}${service.noReadyEndpoints ? '  <- NO READY ENDPOINTS' : ''}`;
      if (!text.add(line)) break;
    }
    return success(text.finish('narrow with namespace, or use describe_service.'), data, text.truncated);
  },
};
