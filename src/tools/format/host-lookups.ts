/**
 * The cluster reads behind `resolve_host`: the Service whose cluster IP an address is, the
 * pods whose pod IP it is, the Services that select a pod, and the node that owns an address.
 * Each reads only the namespaces the run may read and returns the first failure as is.
 */
import type { V1Pod, V1Service } from '@kubernetes/client-node';
import type { ClusterError, ClusterResult } from '../../cluster/cluster.ts';
import type { ReadToolContext } from '../tool.ts';
import { resolveNamespaces } from '../tool-results.ts';
import { matchesLabelMap } from './selectors.ts';

type Lookup<T> = { ok: true; value: T } | { ok: false; error: ClusterError };

async function listEach<T>(
  context: ReadToolContext,
  read: (namespace: string | undefined) => Promise<ClusterResult<{ items: T[] }>>,
): Promise<Lookup<T[]>> {
  const items: T[] = [];
  for (const namespace of resolveNamespaces(undefined, context)) {
    const listed = await read(namespace);
    if (!listed.ok) return listed;
    items.push(...listed.value.items);
  }
  return { ok: true, value: items };
}

export async function findServiceByClusterIp(
  ip: string,
  context: ReadToolContext,
): Promise<Lookup<V1Service | undefined>> {
  const services = await listEach(context, (namespace) =>
    context.cluster.list('Service', {
      ...(namespace !== undefined ? { namespace } : {}),
      maxItems: 5000,
      signal: context.signal,
    }),
  );
  if (!services.ok) return services;
  return {
    ok: true,
    value: services.value.find(
      (service) => service.spec?.clusterIP === ip || (service.spec?.clusterIPs ?? []).includes(ip),
    ),
  };
}

/**
 * Pods holding `ip`, the likeliest first: a pod network pod before a hostNetwork one (those
 * share their node's address), a running pod before a finished one (finished pods keep a
 * released IP).
 */
export async function findPodsByIp(ip: string, context: ReadToolContext): Promise<Lookup<V1Pod[]>> {
  const pods = await listEach(context, (namespace) =>
    context.cluster.list('Pod', {
      ...(namespace !== undefined ? { namespace } : {}),
      fieldSelector: `status.podIP=${ip}`,
      maxItems: 500,
      signal: context.signal,
    }),
  );
  if (!pods.ok) return pods;
  const rank = (pod: V1Pod): number =>
    (pod.spec?.hostNetwork ? 2 : 0) + (pod.status?.phase === 'Running' || pod.status?.phase === 'Pending' ? 0 : 1);
  const holding = pods.value.filter(
    (pod) => pod.status?.podIP === ip || (pod.status?.podIPs ?? []).some((entry) => entry.ip === ip),
  );
  return { ok: true, value: holding.sort((left, right) => rank(left) - rank(right)) };
}

/** Services in the pod's namespace whose selector matches its labels. */
export async function findServicesSelecting(pod: V1Pod, context: ReadToolContext): Promise<Lookup<V1Service[]>> {
  const namespace = pod.metadata?.namespace ?? '';
  const services = await context.cluster.list('Service', { namespace, maxItems: 2000, signal: context.signal });
  if (!services.ok) return services;
  return {
    ok: true,
    value: services.value.items.filter((service) => matchesLabelMap(service.spec?.selector, pod.metadata?.labels)),
  };
}

/** The node one of whose addresses `ip` is; undefined when none is, or nodes cannot be read. */
export async function findNodeByAddress(ip: string, context: ReadToolContext): Promise<string | undefined> {
  const nodes = await context.cluster.list('Node', { maxItems: 5000, signal: context.signal });
  if (!nodes.ok) return undefined;
  return nodes.value.items.find((node) => (node.status?.addresses ?? []).some((address) => address.address === ip))
    ?.metadata?.name;
}
