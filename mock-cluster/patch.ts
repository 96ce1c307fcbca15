/**
 * The patch types the API server accepts: JSON patch (RFC 6902), JSON merge patch
 * (RFC 7386) and strategic merge patch (lists of containers, env, volumes, ports, ... merged
 * by their key; `$patch`, `$retainKeys`, `$setElementOrder` and `$deleteFromPrimitiveList`
 * directives). A patch that cannot apply throws `PatchError`.
 */
import type { JsonRecord } from './types.ts';
import { deepClone, isRecord, jsonEqual } from './types.ts';

export class PatchError extends Error {}

function decodePointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw new PatchError(`invalid JSON pointer "${path}"`);
  return path
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function arrayIndex(token: string, length: number, forInsert: boolean): number {
  if (token === '-' && forInsert) return length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new PatchError(`invalid array index "${token}"`);
  const index = Number(token);
  if (index > length || (!forInsert && index === length)) throw new PatchError(`array index ${index} out of bounds`);
  return index;
}

function parentOf(document: unknown, tokens: string[], path: string): { parent: unknown; last: string } {
  let current = document;
  for (const token of tokens.slice(0, -1)) {
    if (Array.isArray(current)) current = current[arrayIndex(token, current.length, false)];
    else if (isRecord(current) && token in current) current = current[token];
    else throw new PatchError(`doc is missing path: "${path}"`);
  }
  return { parent: current, last: tokens[tokens.length - 1] ?? '' };
}

function getAt(document: unknown, path: string): unknown {
  let current = document;
  for (const token of decodePointer(path)) {
    if (Array.isArray(current)) current = current[arrayIndex(token, current.length, false)];
    else if (isRecord(current) && token in current) current = current[token];
    else throw new PatchError(`doc is missing path: "${path}"`);
  }
  return current;
}

function removeAt(document: unknown, path: string): unknown {
  const { parent, last } = parentOf(document, decodePointer(path), path);
  if (Array.isArray(parent)) return parent.splice(arrayIndex(last, parent.length, false), 1)[0];
  if (isRecord(parent) && last in parent) {
    const value = parent[last];
    delete parent[last];
    return value;
  }
  throw new PatchError(`unable to remove nonexistent key: ${last}: missing value`);
}

function addAt(document: unknown, path: string, value: unknown, replace: boolean): unknown {
  const tokens = decodePointer(path);
  if (tokens.length === 0) return value;
  const { parent, last } = parentOf(document, tokens, path);
  if (Array.isArray(parent)) {
    const index = arrayIndex(last, parent.length, !replace);
    parent.splice(index, replace ? 1 : 0, value);
  } else if (isRecord(parent)) {
    if (replace && !(last in parent))
      throw new PatchError(`replace operation does not apply: doc is missing key: ${path}: missing value`);
    parent[last] = value;
  } else {
    throw new PatchError(`doc is missing path: "${path}"`);
  }
  return document;
}

export function applyJsonPatch(document: JsonRecord, operations: unknown): JsonRecord {
  if (!Array.isArray(operations)) throw new PatchError('a JSON patch must be an array of operations');
  let result: unknown = deepClone(document);
  for (const operation of operations) {
    if (!isRecord(operation) || typeof operation['op'] !== 'string' || typeof operation['path'] !== 'string')
      throw new PatchError('each JSON patch operation needs "op" and "path"');
    const path = operation['path'];
    switch (operation['op']) {
      case 'add':
        result = addAt(result, path, deepClone(operation['value']), false);
        break;
      case 'replace':
        result = addAt(result, path, deepClone(operation['value']), true);
        break;
      case 'remove':
        removeAt(result, path);
        break;
      case 'move': {
        const value = removeAt(result, String(operation['from']));
        result = addAt(result, path, value, false);
        break;
      }
      case 'copy':
        result = addAt(result, path, deepClone(getAt(result, String(operation['from']))), false);
        break;
      case 'test':
        if (!jsonEqual(getAt(result, path), operation['value'])) throw new PatchError(`testing value ${path} failed`);
        break;
      default:
        throw new PatchError(`Unexpected kind: ${String(operation['op'])}`);
    }
  }
  if (!isRecord(result)) throw new PatchError('the patched document is not an object');
  return result;
}

export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return deepClone(patch);
  const result: JsonRecord = isRecord(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key], value);
  }
  return result;
}

/** List fields merged element by element, and the key that identifies an element. */
const MERGE_KEYS: Record<string, string> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  env: 'name',
  volumes: 'name',
  volumeMounts: 'mountPath',
  volumeDevices: 'devicePath',
  imagePullSecrets: 'name',
  conditions: 'type',
  ownerReferences: 'uid',
  hostAliases: 'ip',
  readinessGates: 'conditionType',
  resourceClaims: 'name',
  topologySpreadConstraints: 'topologyKey',
};
/** Lists of strings merged as sets. */
const MERGED_PRIMITIVE_LISTS = new Set(['finalizers']);

function mergeKeyFor(field: string, items: unknown[]): string | undefined {
  if (field === 'ports')
    return items.some((item) => isRecord(item) && 'containerPort' in item) ? 'containerPort' : 'port';
  return MERGE_KEYS[field];
}

function mergeList(original: unknown[], patch: unknown[], mergeKey: string, order: unknown[] | undefined): unknown[] {
  if (patch.some((item) => isRecord(item) && item['$patch'] === 'replace')) {
    return patch.filter((item) => !(isRecord(item) && item['$patch'] === 'replace'));
  }
  const result = original.map((item) => deepClone(item));
  for (const item of patch) {
    if (!isRecord(item)) {
      result.push(item);
      continue;
    }
    const index = result.findIndex((existing) => isRecord(existing) && jsonEqual(existing[mergeKey], item[mergeKey]));
    if (item['$patch'] === 'delete') {
      if (index >= 0) result.splice(index, 1);
    } else if (index >= 0) {
      result[index] = applyStrategicMergePatch(result[index], item);
    } else {
      result.push(applyStrategicMergePatch({}, item));
    }
  }
  if (!order) return result;
  const position = (item: unknown): number => {
    const at = order.findIndex(
      (entry) => isRecord(entry) && isRecord(item) && jsonEqual(entry[mergeKey], item[mergeKey]),
    );
    return at < 0 ? order.length : at;
  };
  return result
    .map((item, index) => ({ item, index }))
    .sort((left, right) => position(left.item) - position(right.item) || left.index - right.index)
    .map(({ item }) => item);
}

export function applyStrategicMergePatch(original: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return deepClone(patch);
  if (patch['$patch'] === 'replace') {
    const { $patch: _directive, ...rest } = patch;
    return deepClone(rest);
  }
  if (patch['$patch'] === 'delete') return undefined;
  const result: JsonRecord = isRecord(original) ? { ...original } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$patch' || key === '$retainKeys' || key.startsWith('$setElementOrder/')) continue;
    if (key.startsWith('$deleteFromPrimitiveList/')) {
      const field = key.slice('$deleteFromPrimitiveList/'.length);
      const current = result[field];
      if (Array.isArray(current) && Array.isArray(value))
        result[field] = current.filter((entry) => !value.includes(entry));
      continue;
    }
    if (value === null) {
      delete result[key];
    } else if (Array.isArray(value)) {
      const current = result[key];
      const mergeKey = mergeKeyFor(key, [...value, ...(Array.isArray(current) ? current : [])]);
      const order = patch[`$setElementOrder/${key}`];
      if (mergeKey && Array.isArray(current))
        result[key] = mergeList(current, value, mergeKey, Array.isArray(order) ? order : undefined);
      else if (MERGED_PRIMITIVE_LISTS.has(key) && Array.isArray(current))
        result[key] = [...new Set([...current, ...value])];
      else
        result[key] = value
          .filter((item) => !(isRecord(item) && item['$patch'] === 'replace'))
          .map((item) => (isRecord(item) ? applyStrategicMergePatch({}, item) : item));
    } else if (isRecord(value)) {
      const merged = applyStrategicMergePatch(result[key], value);
      if (merged === undefined) delete result[key];
      else result[key] = merged;
    } else {
      result[key] = value;
    }
  }
  const retain = patch['$retainKeys'];
  if (Array.isArray(retain)) {
    for (const key of Object.keys(result)) if (!retain.includes(key)) delete result[key];
  }
  return result;
}
