/**
 * `resolve_host`: what a host named in a client's log is inside the cluster, found the way
 * cluster DNS would find it: the Service (by name or cluster IP) or the pod (by pod IP), with
 * the Service's endpoints and backend pods as `describe_service` shows them. A name that no
 * Service carries is the finding (cluster DNS answers NXDOMAIN): it is said plainly, with the
 * Services that do exist there. A public domain is named as outside the cluster, nothing more.
 */
import { z } from 'zod';
import { namespaceName } from './names.ts';
import type { V1Pod, V1Service } from '@kubernetes/client-node';
import { BudgetedText } from './format/budget.ts';
import {
  findNodeByAddress,
  findPodsByIp,
  findServiceByClusterIp,
  findServicesSelecting,
} from './format/host-lookups.ts';
import { findSimilarNames, parseHost, type ServiceCandidate } from './format/host-names.ts';
import { formatContainerState, summarizePod } from './format/pod-status.ts';
import {
  formatServiceDetailPorts,
  formatServiceDetails,
  readServiceDetails,
  type ServiceDetailsData,
} from './format/service-details.ts';
import { failureFrom, success } from './tool-results.ts';
import type { ReadTool, ReadToolContext, ToolFailure, ToolResult } from './tool.ts';

export interface ResolvedHostData {
  /** The host name or IP alone: no scheme, credentials, port or path. */
  host: string;
  port?: number;
  /** The resolved Service's (or, by pod IP without a Service, the pod's) namespace; when nothing resolved, where the name was looked for. */
  namespace?: string;
  /** The resolved Service's name; when nothing resolved, the Service name looked for. */
  name?: string;
  resolvedBy: 'service-name' | 'cluster-ip' | 'pod-ip' | 'none' | 'external';
  service?: ServiceDetailsData;
  pod?: { namespace: string; name: string };
  /** When no Service has the name: Services in that namespace with similar names. */
  similar: string[];
}

const input = z.object({
  host: z
    .string()
    .trim()
    .min(1, 'the host is empty: pass it as the log names it, e.g. "redis:6379"')
    .describe(
      'The host as the log line names it: redis, redis:6379, orders-db.data, name.namespace.svc.cluster.local, 10.96.12.7:6379 or a URL',
    ),
  namespace: namespaceName().describe('Namespace of the pod whose log names the host (short names resolve there)'),
});

function isAllowed(namespace: string, context: ReadToolContext): boolean {
  return !context.allowedNamespaces || context.allowedNamespaces.includes(namespace);
}

/** What the backend's state means for the chain: the next step, in one line. */
function describeBackends(service: ServiceDetailsData, port: number | undefined): string[] {
  const lines: string[] = [];
  if (port !== undefined && service.ports.length && !service.ports.some((entry) => entry.port === port)) {
    lines.push(
      `port ${port} is not a port of this Service (${formatServiceDetailPorts(service.ports).join(' ')}): connections to it are refused or time out.`,
    );
  }
  const ready = service.endpoints.ready.length;
  const matched = service.pods.total;
  if (service.type === 'ExternalName')
    lines.push(`follow the CNAME: ${service.externalName ?? '?'} is resolved outside this Service.`);
  else if (!Object.keys(service.selector).length)
    lines.push('no selector: its endpoints are set by hand; check the addresses above.');
  else if (matched === 0)
    lines.push(
      "no pod matches the selector, so the Service has no backend (service-no-endpoints): the selector or the pods' labels are the finding.",
    );
  else if (ready === 0)
    lines.push(
      `none of its ${matched} backend pod(s) is ready: the backend is the culprit. Diagnose those pods and their workload (describe_pod, get_pod_logs previous=true); the client's errors are evidence.`,
    );
  else if (service.endpoints.notReady.length)
    lines.push(
      `${ready} ready, ${service.endpoints.notReady.length} not ready: the not-ready backends fail some connections; diagnose them.`,
    );
  else
    lines.push(
      `all ${ready} ready endpoint(s) serve: the backend looks healthy; check the port, NetworkPolicies (list_network_policies) and the backend's own logs for refusals.`,
    );
  return lines;
}

async function answerWithService(input: {
  context: ReadToolContext;
  text: BudgetedText;
  service: V1Service;
  base: Omit<ResolvedHostData, 'resolvedBy' | 'similar'>;
  resolvedBy: ResolvedHostData['resolvedBy'];
  pod?: { namespace: string; name: string };
}): Promise<ToolResult<ResolvedHostData>> {
  const details = await readServiceDetails({
    cluster: input.context.cluster,
    service: input.service,
    signal: input.context.signal,
  });
  for (const line of formatServiceDetails(details, input.context.cluster.now())) input.text.addIfRoom(line);
  for (const line of describeBackends(details.data, input.base.port)) input.text.addIfRoom(line);
  const data: ResolvedHostData = {
    ...input.base,
    namespace: details.data.namespace,
    name: details.data.name,
    resolvedBy: input.resolvedBy,
    service: details.data,
    ...(input.pod ? { pod: input.pod } : {}),
    similar: [],
  };
  return success(input.text.finish('call describe_service or list_pods on the backend.'), data, input.text.truncated);
}

async function resolveName(input: {
  context: ReadToolContext;
  host: string;
  port?: number;
  candidates: ServiceCandidate[];
}): Promise<ToolResult<ResolvedHostData>> {
  const { context, host } = input;
  const portPart = input.port !== undefined ? { port: input.port } : {};
  const text = new BudgetedText(context.outputBudgetBytes);
  const hostText = `${host}${input.port !== undefined ? `:${input.port}` : ''}`;
  const allowed = input.candidates.filter((candidate) => isAllowed(candidate.namespace, context));
  // The reading as a Service name (not a headless pod) is the one a miss is reported for.
  const wanted = input.candidates.find((candidate) => !candidate.podHostname) ?? input.candidates[0];
  const refused = (namespace: string): ToolFailure => ({
    ok: false,
    error: 'namespace-not-allowed',
    content: `namespace-not-allowed: ${hostText} names namespace ${namespace}, outside this run's allowlist; say so in the diagnosis.`,
  });
  if (!allowed.length)
    return refused([...new Set(input.candidates.map((candidate) => candidate.namespace))].join(', '));
  for (const candidate of allowed) {
    const service = await context.cluster.get(
      'Service',
      { namespace: candidate.namespace, name: candidate.service },
      { signal: context.signal },
    );
    if (!service.ok && service.error.kind !== 'not-found') return failureFrom(service.error);
    if (!service.ok) continue;
    const base = { host, ...portPart };
    if (!candidate.podHostname) {
      text.add(`${hostText} -> Service ${candidate.namespace}/${candidate.service} (${candidate.fqdn})`);
      return answerWithService({ context, text, service: service.value, base, resolvedBy: 'service-name' });
    }
    const headless = service.value.spec?.clusterIP === 'None';
    const pod = headless
      ? await context.cluster.get(
          'Pod',
          { namespace: candidate.namespace, name: candidate.podHostname },
          { signal: context.signal },
        )
      : undefined;
    if (pod && !pod.ok && pod.error.kind !== 'not-found') return failureFrom(pod.error);
    if (!pod?.ok) {
      if (candidate !== allowed.at(-1)) continue;
      const why = headless
        ? `headless Service ${candidate.namespace}/${candidate.service} exists but has no pod "${candidate.podHostname}"`
        : `Service ${candidate.namespace}/${candidate.service} exists but is not headless, so no pod name resolves under it`;
      text.add(`${hostText}: ${why}; cluster DNS answers NXDOMAIN for ${candidate.fqdn}.`);
      return answerWithService({ context, text, service: service.value, base, resolvedBy: 'service-name' });
    }
    text.add(
      `${hostText} -> pod ${candidate.namespace}/${candidate.podHostname} of headless Service ${candidate.namespace}/${candidate.service} (${candidate.fqdn})`,
    );
    text.add(describePod(pod.value, context));
    return answerWithService({
      context,
      text,
      service: service.value,
      base,
      resolvedBy: 'service-name',
      pod: { namespace: candidate.namespace, name: candidate.podHostname },
    });
  }
  const namespace = wanted?.namespace ?? '';
  if (!isAllowed(namespace, context)) return refused(namespace);
  const listed = await context.cluster.list('Service', { namespace, maxItems: 2000, signal: context.signal });
  if (!listed.ok) return failureFrom(listed.error);
  const names = listed.value.items.map((service) => service.metadata?.name ?? '').sort();
  const similar = findSimilarNames(wanted?.service ?? host, names);
  const namespaceRead = names.length
    ? undefined
    : await context.cluster.get('Namespace', { name: namespace }, { signal: context.signal });
  const namespaceMissing = namespaceRead?.ok === false && namespaceRead.error.kind === 'not-found';
  if (namespaceMissing) {
    text.add(
      `${hostText}: namespace ${namespace} does not exist, so no Service answers ${wanted?.fqdn} (NXDOMAIN inside the cluster). ` +
        'If the name is meant for a host outside the cluster, cluster DNS forwards it upstream and the failure lies outside Kubernetes.',
    );
  } else {
    text.add(
      `${hostText}: no Service "${wanted?.service}" in namespace ${namespace}, so cluster DNS answers NXDOMAIN for ${wanted?.fqdn}. ` +
        'That is the finding: the Service is missing or was renamed, or the client is configured with a wrong name.',
    );
  }
  if (!names.length) {
    if (!namespaceMissing) text.add(`namespace ${namespace} has no Services.`);
  } else {
    if (similar.length) text.add(`similar names in ${namespace}: ${similar.join(', ')}`);
    text.add(`Services in ${namespace} (${names.length}): ${names.slice(0, 60).join(', ')}`);
  }
  const data: ResolvedHostData = {
    host,
    ...portPart,
    namespace,
    ...(wanted ? { name: wanted.service } : {}),
    resolvedBy: 'none',
    similar,
  };
  return success(text.finish('call list_services in that namespace.'), data, text.truncated);
}

function describePod(pod: V1Pod, context: ReadToolContext): string {
  const now = context.cluster.now();
  const summary = summarizePod(pod, now);
  const problem = summary.problem
    ? `, ${summary.problem.last ? 'last ' : ''}${summary.problem.container} ${formatContainerState(summary.problem.state, now, { messageLimit: 160 })}`
    : '';
  const previous = summary.lastTermination
    ? `; previous run ${formatContainerState(summary.lastTermination.state, now, { messageLimit: 120 })}`
    : '';
  return `pod ${summary.namespace}/${summary.name}: ${summary.status}, ready ${summary.ready}, restarts ${summary.restarts}${summary.node ? `, node ${summary.node}` : ''}${problem}${previous}`;
}

async function resolveIp(input: {
  context: ReadToolContext;
  host: string;
  ip: string;
  port?: number;
}): Promise<ToolResult<ResolvedHostData>> {
  const { context, ip } = input;
  const portPart = input.port !== undefined ? { port: input.port } : {};
  const base = { host: input.host, ...portPart };
  const hostText = `${ip}${input.port !== undefined ? `:${input.port}` : ''}`;
  const text = new BudgetedText(context.outputBudgetBytes);
  const byClusterIp = await findServiceByClusterIp(ip, context);
  if (!byClusterIp.ok) return failureFrom(byClusterIp.error);
  if (byClusterIp.value) {
    text.add(
      `${hostText} is the cluster IP of Service ${byClusterIp.value.metadata?.namespace}/${byClusterIp.value.metadata?.name}`,
    );
    return answerWithService({ context, text, service: byClusterIp.value, base, resolvedBy: 'cluster-ip' });
  }
  const pods = await findPodsByIp(ip, context);
  if (!pods.ok) return failureFrom(pods.error);
  const pod = pods.value[0];
  if (pod && !pod.spec?.hostNetwork) {
    const reference = { namespace: pod.metadata?.namespace ?? '', name: pod.metadata?.name ?? '' };
    text.add(`${hostText} is the pod IP of pod ${reference.namespace}/${reference.name}`);
    text.add(describePod(pod, context));
    const services = await findServicesSelecting(pod, context);
    if (!services.ok) return failureFrom(services.error);
    const [first, ...others] = services.value;
    if (others.length)
      text.add(
        `Services selecting it: ${services.value.map((service) => service.metadata?.name).join(', ')} (the first is shown)`,
      );
    if (first) return answerWithService({ context, text, service: first, base, resolvedBy: 'pod-ip', pod: reference });
    text.add(
      'no Service selects this pod: the client dials the pod directly (an address it cached or was configured with).',
    );
    const data: ResolvedHostData = {
      ...base,
      namespace: reference.namespace,
      resolvedBy: 'pod-ip',
      pod: reference,
      similar: [],
    };
    return success(text.finish('call describe_pod on it.'), data, text.truncated);
  }
  const node = await findNodeByAddress(ip, context);
  if (node)
    text.add(
      `${hostText} is an address of node ${node}${pod ? ` (hostNetwork pods such as ${pod.metadata?.namespace}/${pod.metadata?.name} use it)` : ''}: not a Service or pod address.`,
    );
  else
    text.add(
      `${hostText}: no Service has this cluster IP and no pod holds this pod IP. A pod that had it may have been replaced (the client kept an old address), or the address is outside the cluster.`,
    );
  return success(
    text.finish('call list_services or list_pods.'),
    { ...base, resolvedBy: 'none', similar: [] } satisfies ResolvedHostData,
    text.truncated,
  );
}

export const resolveHostTool: ReadTool<typeof input, ResolvedHostData, 'resolve_host'> = {
  name: 'resolve_host',
  description:
    "Resolves a host a client's log names (redis, redis:6379, orders-db.data, x.y.svc.cluster.local, a ClusterIP or pod IP, a URL) the way " +
    'cluster DNS would for a pod in the given namespace, and shows what is behind it: the Service with its ports, endpoints and backend pods ' +
    '(each unhealthy pod with its problem), or the pod holding a pod IP and its Services. When no Service has the name, it says so (NXDOMAIN ' +
    'is the finding) and lists the Services that exist there. Use it when a log shows a connection refused, a timeout, or a DNS failure to a host.',
  input,
  risk: 'read',
  async run(args, context) {
    const parsed = parseHost(args.host, args.namespace);
    const text = new BudgetedText(context.outputBudgetBytes);
    switch (parsed.kind) {
      case 'invalid':
        return {
          ok: false,
          error: 'invalid-input',
          content: `invalid-input: cannot read "${args.host.replace(/\/\/[^/@]*@/, '//')}" as a host: ${parsed.reason}. Pass it as the log names it, e.g. "redis:6379" or "http://inventory:8080/path".`,
        };
      case 'external': {
        text.add(`${parsed.host} is outside the cluster: ${parsed.reason}.`);
        return success(text.finish(''), {
          host: parsed.host,
          ...(parsed.port !== undefined ? { port: parsed.port } : {}),
          resolvedBy: 'external',
          similar: [],
        } satisfies ResolvedHostData);
      }
      case 'loopback':
      case 'unserved': {
        const reason =
          parsed.kind === 'loopback'
            ? "a loopback address: the client's own pod (its own container or a sidecar), not another Service or pod"
            : parsed.reason;
        text.add(`${parsed.host}: ${reason}.`);
        return success(text.finish(''), {
          host: parsed.host,
          ...(parsed.port !== undefined ? { port: parsed.port } : {}),
          resolvedBy: 'none',
          similar: [],
        } satisfies ResolvedHostData);
      }
      case 'ip':
        return resolveIp({
          context,
          host: parsed.host,
          ip: parsed.ip,
          ...(parsed.port !== undefined ? { port: parsed.port } : {}),
        });
      case 'names':
        return resolveName({
          context,
          host: parsed.host,
          candidates: parsed.candidates,
          ...(parsed.port !== undefined ? { port: parsed.port } : {}),
        });
    }
  },
};
