/**
 * `list_ingresses`: the Ingresses of a namespace (or of every namespace the run may read),
 * each rule as host and path to the Service and port behind it, or only the rules that serve
 * one host: what a site's name ("pay.example.com is 503ing") leads to inside the cluster.
 */
import { z } from 'zod';
import type { V1Ingress, V1IngressBackend } from '@kubernetes/client-node';
import { BudgetedText } from './format/budget.ts';
import { namespaceName } from './names.ts';
import { describeIncomplete, failureFrom, resolveNamespaces, success } from './tool-results.ts';
import type { ReadTool } from './tool.ts';

export interface IngressRouteData {
  /** `*` when the rule names no host (it serves every host). */
  host: string;
  path: string;
  /** The Service behind the route, in the Ingress's namespace; absent for a resource backend. */
  service?: string;
  /** The Service port, by number or name. */
  port?: string;
  /** A backend that is not a Service (`resource Kind/name`). */
  resource?: string;
}

export interface IngressData {
  namespace: string;
  name: string;
  className?: string;
  routes: IngressRouteData[];
  /** Where every path no rule matches goes. */
  defaultBackend?: IngressRouteData;
  tlsHosts: string[];
  /** The load balancer's addresses the controller published. */
  addresses: string[];
}

export interface IngressesData {
  /** The host asked about, when one was. */
  host?: string;
  ingresses: IngressData[];
  /** Every host the listed namespaces' Ingresses serve, when a host was asked about and none serves it. */
  otherHosts?: string[];
}

const input = z.object({
  namespace: namespaceName().optional().describe('Namespace; omitted: every namespace this run may read'),
  host: z
    .string()
    .min(1)
    .max(253)
    .regex(/^[A-Za-z0-9*.-]+$/, 'a host name such as shop.example.com')
    .optional()
    .describe("Only the rules that serve this host (a site's name as the report writes it, without scheme or path)"),
});

/** Whether a rule's host (exact, `*.example.com`, or none) serves `host`. */
export function hostServes(ruleHost: string, host: string): boolean {
  const rule = ruleHost.toLowerCase();
  const asked = host.toLowerCase().replace(/\.$/, '');
  if (rule === '*' || rule === asked) return true;
  // A wildcard covers exactly one label: *.example.com serves a.example.com, not a.b.example.com.
  return rule.startsWith('*.') && asked.endsWith(rule.slice(1)) && !asked.slice(0, -rule.length + 1).includes('.');
}

function backendOf(backend: V1IngressBackend | undefined): Pick<IngressRouteData, 'service' | 'port' | 'resource'> {
  if (backend?.service) {
    const port = backend.service.port?.number ?? backend.service.port?.name;
    return { service: backend.service.name, ...(port !== undefined ? { port: String(port) } : {}) };
  }
  if (backend?.resource) return { resource: `resource ${backend.resource.kind}/${backend.resource.name}` };
  return {};
}

export function readIngress(ingress: V1Ingress): IngressData {
  const routes: IngressRouteData[] = (ingress.spec?.rules ?? []).flatMap((rule) =>
    (rule.http?.paths ?? []).map((path) => ({
      host: rule.host ?? '*',
      path: path.path ?? '/',
      ...backendOf(path.backend),
    })),
  );
  const defaultBackend = ingress.spec?.defaultBackend
    ? { host: '*', path: '(default)', ...backendOf(ingress.spec.defaultBackend) }
    : undefined;
  const className = ingress.spec?.ingressClassName ?? ingress.metadata?.annotations?.['kubernetes.io/ingress.class'];
  return {
    namespace: ingress.metadata?.namespace ?? '',
    name: ingress.metadata?.name ?? '',
    ...(className ? { className } : {}),
    routes,
    ...(defaultBackend ? { defaultBackend } : {}),
    tlsHosts: (ingress.spec?.tls ?? []).flatMap((tls) => tls.hosts ?? []),
    addresses: (ingress.status?.loadBalancer?.ingress ?? []).flatMap((address) =>
      [address.hostname ?? address.ip ?? []].flat(),
    ),
  };
}

function formatRoute(route: IngressRouteData): string {
  const target = route.service
    ? `Service ${route.service}${route.port ? `:${route.port}` : ''}`
    : (route.resource ?? '(no backend)');
  return `${route.host}${route.path === '(default)' ? ' (default backend)' : route.path} -> ${target}`;
}

export const listIngressesTool: ReadTool<typeof input, IngressesData, 'list_ingresses'> = {
  name: 'list_ingresses',
  description:
    'Lists Ingresses: for each rule the host and path and the Service and port behind it, the class, TLS hosts and published address. ' +
    'With host: only the rules that serve that site. Use it when a report names a site or URL (503s or 502s from the ingress controller) ' +
    'to find the Service, then describe_service for its endpoints and pods.',
  input,
  risk: 'read',
  async run(args, context) {
    const ingresses: IngressData[] = [];
    const notes: string[] = [];
    for (const namespace of resolveNamespaces(args.namespace, context)) {
      const listed = await context.cluster.list('Ingress', {
        ...(namespace !== undefined ? { namespace } : {}),
        maxItems: 1000,
        signal: context.signal,
      });
      if (!listed.ok) return failureFrom(listed.error);
      ingresses.push(...listed.value.items.map(readIngress));
      const note = describeIncomplete({ ...listed.value, read: listed.value.items.length });
      if (note) notes.push(note);
    }
    const where = args.namespace ? `in ${args.namespace}` : 'in the readable namespaces';
    const serving = args.host
      ? ingresses.flatMap((ingress) => {
          const routes = ingress.routes.filter((route) => hostServes(route.host, args.host!));
          const fallback =
            routes.length === 0 && ingress.defaultBackend && ingress.routes.length === 0
              ? [ingress.defaultBackend]
              : [];
          return routes.length || fallback.length ? [{ ...ingress, routes: [...routes, ...fallback] }] : [];
        })
      : ingresses;
    const otherHosts =
      args.host && serving.length === 0
        ? [...new Set(ingresses.flatMap((ingress) => ingress.routes.map((route) => route.host)))].sort()
        : undefined;
    const text = new BudgetedText(context.outputBudgetBytes);
    if (args.host) {
      text.add(
        serving.length
          ? `${serving.length} Ingress(es) ${where} serve host ${args.host}.`
          : `No Ingress ${where} serves host ${args.host}; hosts served: ${otherHosts?.length ? otherHosts.join(', ') : 'none'}.`,
      );
    } else {
      text.add(`${ingresses.length} Ingress(es) ${where}.`);
    }
    for (const ingress of serving) {
      const lines = [
        `${ingress.namespace}/${ingress.name}: class ${ingress.className ?? '(default)'}${ingress.tlsHosts.length ? `, TLS for ${ingress.tlsHosts.join(', ')}` : ''}${ingress.addresses.length ? `, address ${ingress.addresses.join(', ')}` : ''}`,
      ];
      for (const route of ingress.routes) lines.push(`  ${formatRoute(route)}`);
      if (ingress.defaultBackend && !ingress.routes.includes(ingress.defaultBackend))
        lines.push(`  ${formatRoute(ingress.defaultBackend)}`);
      if (!text.add(lines.join('\n'))) break;
    }
    for (const note of notes) text.add(note);
    const data: IngressesData = {
      ...(args.host ? { host: args.host } : {}),
      ingresses: serving,
      ...(otherHosts ? { otherHosts } : {}),
    };
    return success(text.finish('many Ingresses; give namespace or host to narrow.'), data, text.truncated);
  },
};
