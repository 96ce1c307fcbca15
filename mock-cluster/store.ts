/**
 * The cluster's objects in memory, per resource, kept in the order etcd lists them
 * (namespace, then name), with one resourceVersion counter for the whole cluster.
 * Callers own validation and bookkeeping; the store only keeps and finds, and tells
 * watchers what changed (the last changes are kept, so a watch from a resourceVersion
 * replays what it missed, as the watch cache does).
 */
import { storageKey, type ResourceRegistry, type ResourceType } from './resources.ts';
import type { KubeObject } from './types.ts';

function objectKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One change to a stored object: what a watch sends. `resourceVersion` orders changes. */
export interface StoreChange {
  type: WatchEventType;
  resource: string;
  object: KubeObject;
  resourceVersion: number;
}

const KEPT_CHANGES = 2000;

export class ObjectStore {
  readonly registry: ResourceRegistry;
  private resourceVersion: number;
  private readonly tables = new Map<string, Map<string, KubeObject>>();
  private readonly sortedKeys = new Map<string, string[]>();
  private readonly watchers = new Set<(change: StoreChange) => void>();
  private readonly changes: StoreChange[] = [];
  private building = true;

  constructor(registry: ResourceRegistry, objects: KubeObject[]) {
    this.registry = registry;
    let highest = 0;
    for (const object of objects) {
      this.put(registry.forObject(object), object);
      highest = Math.max(highest, Number(object.metadata.resourceVersion) || 0);
    }
    this.resourceVersion = highest;
    this.building = false;
  }

  /** The latest resourceVersion handed out. */
  currentResourceVersion(): string {
    return String(this.resourceVersion);
  }

  nextResourceVersion(): string {
    this.resourceVersion += 1;
    return String(this.resourceVersion);
  }

  get(type: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.tables.get(storageKey(type))?.get(objectKey(type.namespaced ? namespace : undefined, name));
  }

  /** Objects of a resource in list order; only one namespace's when `namespace` is given. */
  list(type: ResourceType, namespace?: string): KubeObject[] {
    return this.listAfter(type, namespace, undefined);
  }

  /** Like `list`, starting after the object key `after` (a continue token's position). */
  listAfter(type: ResourceType, namespace: string | undefined, after: string | undefined): KubeObject[] {
    const key = storageKey(type);
    const table = this.tables.get(key);
    if (!table) return [];
    let keys = this.sortedKeys.get(key);
    if (!keys) {
      keys = [...table.keys()].sort((left, right) => (left < right ? -1 : left > right ? 1 : 0));
      this.sortedKeys.set(key, keys);
    }
    const prefix = type.namespaced && namespace ? `${namespace}/` : '';
    let start = prefix ? lowerBound(keys, prefix) : 0;
    if (after !== undefined) start = Math.max(start, upperBound(keys, after));
    const objects: KubeObject[] = [];
    for (let index = start; index < keys.length; index++) {
      const objectName = keys[index] ?? '';
      if (prefix && !objectName.startsWith(prefix)) break;
      const object = table.get(objectName);
      if (object) objects.push(object);
    }
    return objects;
  }

  put(type: ResourceType, object: KubeObject): void {
    const key = storageKey(type);
    let table = this.tables.get(key);
    if (!table) this.tables.set(key, (table = new Map()));
    const name = objectKey(type.namespaced ? object.metadata.namespace : undefined, object.metadata.name);
    const existed = table.has(name);
    if (!existed) this.sortedKeys.delete(key);
    table.set(name, object);
    this.announce({
      type: existed ? 'MODIFIED' : 'ADDED',
      resource: key,
      object,
      resourceVersion: Number(object.metadata.resourceVersion) || this.resourceVersion,
    });
  }

  /** Calls `listener` with every change from now on; returns the function that stops it. */
  watch(listener: (change: StoreChange) => void): () => void {
    this.watchers.add(listener);
    return () => this.watchers.delete(listener);
  }

  /** The kept changes after `resourceVersion`, oldest first; undefined when older ones were already dropped. */
  changesSince(resourceVersion: number): StoreChange[] | undefined {
    const oldest = this.changes[0];
    if (oldest && oldest.resourceVersion > resourceVersion + 1 && this.changes.length >= KEPT_CHANGES) return undefined;
    return this.changes.filter((change) => change.resourceVersion > resourceVersion);
  }

  private announce(change: StoreChange): void {
    // Objects put while the store is being built are its starting state, not changes.
    if (this.building) return;
    this.changes.push(change);
    if (this.changes.length > KEPT_CHANGES) this.changes.shift();
    for (const watcher of this.watchers) watcher(change);
  }

  remove(type: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined {
    const key = storageKey(type);
    const table = this.tables.get(key);
    const objectName = objectKey(type.namespaced ? namespace : undefined, name);
    const object = table?.get(objectName);
    if (object) {
      table?.delete(objectName);
      this.sortedKeys.delete(key);
      this.announce({ type: 'DELETED', resource: key, object, resourceVersion: this.resourceVersion + 1 });
    }
    return object;
  }

  /** Every object, of every resource. */
  *all(): Generator<{ type: ResourceType; object: KubeObject }> {
    const seen = new Set<string>();
    for (const type of this.registry.all()) {
      if (seen.has(storageKey(type))) continue;
      seen.add(storageKey(type));
      for (const object of this.tables.get(storageKey(type))?.values() ?? []) yield { type, object };
    }
  }
}

/** The key of an object within its resource: where a continue token resumes. */
export function positionOf(object: KubeObject): string {
  return objectKey(object.metadata.namespace, object.metadata.name);
}

function lowerBound(keys: string[], value: string): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((keys[middle] ?? '') < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

function upperBound(keys: string[], value: string): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((keys[middle] ?? '') <= value) low = middle + 1;
    else high = middle;
  }
  return low;
}
