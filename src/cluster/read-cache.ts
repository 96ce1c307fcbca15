/**
 * A per-run read cache in front of a `Cluster`: within one agent run, each object, list,
 * log and secret listing is fetched from the API server once, however many tools ask
 * for it. Calls made while the same read is in flight share its answer.
 *
 * What it promises:
 * - The key is everything that changes the answer: the kind, namespace and name, the
 *   label and field selectors of a list, and the container, `previous`, `tailLines`,
 *   `limitBytes` and `sinceSeconds` of a log. A list read whole answers the same list
 *   with any `maxItems` (cut to it, and marked incomplete when cut); a list that was
 *   itself cut answers only a `maxItems` no larger than its own.
 * - An object a list returned answers a later `get` of that object: the list and the get
 *   are the same representation, read in the same run.
 * - Only successes are kept: a failed read (timeout, throttling, forbidden...) is asked
 *   again next time.
 * - A write (patch, scale, delete, dry runs included) empties the cache before it is sent
 *   and again when it is answered, so no read made before or during a write is served
 *   after it.
 * - It lives as long as the value `createRunReadCache` returns: one run creates one, and
 *   it is never shared between runs.
 * - Callers get a fresh `items` array per list; the objects themselves are shared and
 *   must be read, not changed.
 */
import type {
  Cluster,
  ClusterResult,
  KindMap,
  ListOptions,
  ListResult,
  ObjectReference,
  PodLogRequest,
  ReadableKind,
} from './cluster.ts';
import { CLUSTER_SCOPED_KINDS } from './cluster.ts';

/** How many reads the cache answered and how many it passed on: for tests and benchmarks. */
export interface ReadCacheStats {
  hits: number;
  misses: number;
}

export interface RunReadCache extends Cluster {
  stats(): ReadCacheStats;
}

function namespaceKey(kind: ReadableKind, namespace: string | undefined, fallback: string): string {
  return CLUSTER_SCOPED_KINDS.has(kind) ? '' : (namespace ?? fallback);
}

/** `maxItems` as the adapter applies it when none is given. */
const DEFAULT_MAX_ITEMS = 5000;

interface ListEntry {
  maxItems: number;
  result: Promise<ClusterResult<ListResult<unknown>>>;
}

function objectKey(kind: ReadableKind, namespace: string, name: string): string {
  return JSON.stringify(['get', kind, namespace, name]);
}

/** A list answered from a wider one: cut to `maxItems`, marked incomplete when cut (with the count left out, when the wider one was whole). */
function cutTo<T>(value: ListResult<T>, maxItems: number): ListResult<T> {
  if (value.items.length <= maxItems) return { ...value, items: [...value.items] };
  const left = value.items.length - maxItems;
  return {
    items: value.items.slice(0, maxItems),
    incomplete: true,
    ...(value.incomplete ? {} : { remainingItemCount: left }),
  };
}

/** Wraps `cluster` for one run: reads are answered once, writes pass through and empty the cache. */
export function createRunReadCache(cluster: Cluster): RunReadCache {
  const entries = new Map<string, Promise<ClusterResult<unknown>>>();
  const lists = new Map<string, ListEntry>();
  const stats: ReadCacheStats = { hits: 0, misses: 0 };
  // Bumped by every write: an answer that arrives after a write is not remembered.
  let generation = 0;

  function remember<T>(key: string, read: () => Promise<ClusterResult<T>>): Promise<ClusterResult<T>> {
    const cached = entries.get(key) as Promise<ClusterResult<T>> | undefined;
    if (cached) {
      stats.hits += 1;
      return cached;
    }
    stats.misses += 1;
    const pending = read().then((result) => {
      // A failure is not remembered; nor is an answer that a write has overtaken (the entry is gone).
      if (!result.ok && entries.get(key) === pending) entries.delete(key);
      return result;
    });
    entries.set(key, pending);
    return pending;
  }

  function rememberObjects(kind: ReadableKind, items: readonly unknown[], readDuring: number): void {
    if (readDuring !== generation) return;
    for (const item of items) {
      const metadata = (item as { metadata?: { namespace?: string; name?: string } }).metadata;
      if (!metadata?.name) continue;
      const key = objectKey(kind, namespaceKey(kind, metadata.namespace, 'default'), metadata.name);
      if (!entries.has(key)) entries.set(key, Promise.resolve({ ok: true, value: item }));
    }
  }

  function readList<K extends ReadableKind>(
    kind: K,
    options: ListOptions,
  ): Promise<ClusterResult<ListResult<unknown>>> {
    const key = JSON.stringify([
      'list',
      kind,
      namespaceKey(kind, options.namespace, '*'),
      options.labelSelector ?? '',
      options.fieldSelector ?? '',
    ]);
    const maxItems = options.maxItems ?? DEFAULT_MAX_ITEMS;
    const cached = lists.get(key);
    if (cached && cached.maxItems >= maxItems) {
      stats.hits += 1;
      return cached.result;
    }
    stats.misses += 1;
    const readDuring = generation;
    const result: Promise<ClusterResult<ListResult<unknown>>> = cluster.list(kind, options).then((answer) => {
      if (!answer.ok) {
        if (lists.get(key)?.result === result) lists.delete(key);
        return answer;
      }
      // Read whole: it answers any maxItems.
      if (!answer.value.incomplete && lists.get(key)?.result === result)
        lists.set(key, { maxItems: Number.POSITIVE_INFINITY, result });
      rememberObjects(kind, answer.value.items, readDuring);
      return answer;
    });
    lists.set(key, { maxItems, result });
    return result;
  }

  async function write<T>(send: () => Promise<T>): Promise<T> {
    generation += 1;
    entries.clear();
    lists.clear();
    try {
      return await send();
    } finally {
      generation += 1;
      entries.clear();
      lists.clear();
    }
  }

  return {
    now: () => cluster.now(),

    get(kind, reference: ObjectReference, options) {
      const key = objectKey(kind, namespaceKey(kind, reference.namespace, 'default'), reference.name);
      return remember(key, () => cluster.get(kind, reference, options));
    },

    async list<K extends ReadableKind>(kind: K, options: ListOptions = {}) {
      const result = await readList(kind, options);
      if (!result.ok) return result;
      return {
        ok: true as const,
        value: cutTo(result.value as ListResult<KindMap[K]>, options.maxItems ?? DEFAULT_MAX_ITEMS),
      };
    },

    readPodLog(request: PodLogRequest) {
      const key = JSON.stringify([
        'log',
        request.namespace,
        request.name,
        request.container ?? '',
        request.previous ?? false,
        request.tailLines ?? null,
        request.limitBytes ?? null,
        request.sinceSeconds ?? null,
      ]);
      return remember(key, () => cluster.readPodLog(request));
    },

    async listSecrets(options) {
      const key = JSON.stringify(['secrets', options.namespace, options.name ?? null]);
      const result = await remember(key, () => cluster.listSecrets(options));
      return result.ok ? { ok: true as const, value: [...result.value] } : result;
    },

    patch: (request) => write(() => cluster.patch(request)),
    scale: (request) => write(() => cluster.scale(request)),
    deletePod: (request) => write(() => cluster.deletePod(request)),

    stats: () => ({ ...stats }),
  };
}
