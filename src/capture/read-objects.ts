/**
 * Reads what the tools read about one namespace through the cluster client: every kind of
 * kinds.ts in the namespace, the Namespace itself, the nodes, storage classes and the
 * volumes the namespace can bind, and the events about nodes. Events older than `sinceMs`
 * are left out. A kind the client may not list (forbidden, not served) is skipped and said
 * in `warnings`; the capture goes on without it.
 */
import type { ClusterResult, ListResult, ReadCluster, ReadableKind } from '../cluster/cluster.ts';
import type { CapturedObject } from './captured-object.ts';
import { readPath } from './captured-object.ts';
import { API_VERSIONS, CLUSTER_KINDS, NAMESPACED_KINDS, restoreApiNames } from './kinds.ts';

export interface ReadLimits {
  /** Most items read of one kind. */
  maxItems: number;
}

export const DEFAULT_READ_LIMITS: ReadLimits = { maxItems: 2000 };

export interface ReadObjectsResult {
  objects: CapturedObject[];
  warnings: string[];
}

/** The time an event last happened, in ms since the epoch (NaN when it carries none). */
export function eventTime(event: CapturedObject): number {
  const candidates = [
    readPath(event, 'lastTimestamp'),
    readPath(event, 'series.lastObservedTime'),
    readPath(event, 'eventTime'),
    readPath(event, 'firstTimestamp'),
    readPath(event, 'metadata.creationTimestamp'),
  ];
  const found = candidates.find((value) => typeof value === 'string' && value !== '');
  return typeof found === 'string' ? Date.parse(found) : Number.NaN;
}

/** `namespaceObject`: the Namespace as the caller read it (capture.ts checks it exists first). */
export async function readObjects(input: {
  cluster: ReadCluster;
  namespace: string;
  namespaceObject?: unknown;
  now: number;
  sinceMs: number;
  limits?: ReadLimits;
}): Promise<ReadObjectsResult> {
  const { cluster, namespace } = input;
  const maxItems = (input.limits ?? DEFAULT_READ_LIMITS).maxItems;
  const warnings: string[] = [];
  const listed = async (
    kind: ReadableKind,
    options: { namespace?: string; fieldSelector?: string } = {},
  ): Promise<CapturedObject[]> => {
    const result = (await cluster.list(kind, { ...options, maxItems })) as ClusterResult<ListResult<unknown>>;
    if (!result.ok) {
      warnings.push(`${kind}: not captured (${result.error.kind}: ${result.error.message})`);
      return [];
    }
    if (result.value.incomplete) warnings.push(`${kind}: only the first ${result.value.items.length} were captured`);
    return result.value.items.map((item) => complete(kind, item));
  };

  const objects: CapturedObject[] = input.namespaceObject ? [complete('Namespace', input.namespaceObject)] : [];
  const [nodes, storageClasses, volumes] = await Promise.all(CLUSTER_KINDS.map((kind) => listed(kind)));
  objects.push(...(nodes ?? []), ...(storageClasses ?? []));
  // The volumes this namespace holds or could bind: claimed by it, or free.
  objects.push(
    ...(volumes ?? []).filter((volume) => {
      const claimedBy = readPath(volume, 'spec.claimRef.namespace');
      return claimedBy === undefined || claimedBy === namespace;
    }),
  );
  const namespaced = await Promise.all(NAMESPACED_KINDS.map((kind) => listed(kind, { namespace })));
  const earliest = input.now - input.sinceMs;
  const recent = (event: CapturedObject): boolean => !(eventTime(event) < earliest);
  for (const [index, kind] of NAMESPACED_KINDS.entries()) {
    const items = namespaced[index] ?? [];
    objects.push(...(kind === 'Event' ? items.filter(recent) : items));
  }
  // Node events live in `default` (or wherever the kubelet wrote them): those about any node.
  const nodeEvents = await listed('Event', { fieldSelector: 'involvedObject.kind=Node' });
  const seen = new Set(
    objects
      .filter((object) => object.kind === 'Event')
      .map((event) => `${event.metadata.namespace}/${event.metadata.name}`),
  );
  objects.push(
    ...nodeEvents.filter((event) => recent(event) && !seen.has(`${event.metadata.namespace}/${event.metadata.name}`)),
  );
  return { objects, warnings };
}

function complete(kind: ReadableKind, item: unknown): CapturedObject {
  const object = { apiVersion: API_VERSIONS[kind], kind, ...(item as Record<string, unknown>) } as CapturedObject;
  object.apiVersion = API_VERSIONS[kind];
  object.kind = kind;
  restoreApiNames(kind, object);
  return object;
}
