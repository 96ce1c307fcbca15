/**
 * Create, update (PUT), patch (all four types), delete and the `status` and `scale`
 * subresources, applied to the store as the API server would: names and namespaces checked,
 * uid/creationTimestamp/generation/resourceVersion kept or bumped, optimistic concurrency on
 * resourceVersion, `dryRun=All` computed in full but never stored, owners' dependents
 * deleted with them, and the controllers' reactions (rollout-controller.ts,
 * controller-revisions.ts) run before the object is stored.
 */
import { randomUUID } from 'node:crypto';
import { applyDefaults } from './defaults.ts';
import { parse as parseYaml } from 'yaml';
import { ApiError, alreadyExists, badRequest, conflict, invalid, notFound, unsupportedMediaType } from './api-error.ts';
import { keepsControllerRevisions, reconcileControllerRevisions } from './controller-revisions.ts';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch, PatchError } from './patch.ts';
import { apiVersionOf, type ResourceType } from './resources.ts';
import { reconcileReplicaSetPods } from './replica-controller.ts';
import { reconcileDeployment, replaceDeletedPod } from './rollout-controller.ts';
import { formatLabelSelector } from './selectors.ts';
import { randomSuffix, save, timestamp, type ClusterState } from './state.ts';
import type { JsonRecord, KubeObject } from './types.ts';
import { deepClone, isRecord, jsonEqual, readPath, withoutNulls } from './types.ts';
import { validateObject, validateReplicas } from './validation.ts';

export interface WriteOptions {
  dryRun: boolean;
}

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

const PATCH_TYPES: Record<string, PatchType> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
  'application/apply-patch+cbor': 'apply',
};

export function patchTypeOf(contentType: string | undefined): PatchType {
  const mediaType = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const type = PATCH_TYPES[mediaType];
  if (!type) throw unsupportedMediaType(mediaType);
  return type;
}

function namespaceType(state: ClusterState): ResourceType {
  const type = state.registry.forKind('v1', 'Namespace');
  if (!type) throw new Error('the registry has no Namespace type');
  return type;
}

function asObject(body: unknown): KubeObject {
  if (!isRecord(body)) throw badRequest('the body of the request must be a JSON object');
  if (!isRecord(body['metadata'])) body['metadata'] = {};
  return body as KubeObject;
}

function checkNamespaceAndName(
  type: ResourceType,
  object: KubeObject,
  namespace: string | undefined,
  name: string | undefined,
): void {
  if (type.namespaced) {
    if (object.metadata.namespace && object.metadata.namespace !== namespace)
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    object.metadata.namespace = namespace;
  } else {
    delete object.metadata.namespace;
  }
  if (name !== undefined && object.metadata.name !== name)
    throw badRequest(
      `the name of the object (${String(object.metadata.name)}) does not match the name on the URL (${name})`,
    );
}

function hasStatusSubresource(type: ResourceType): boolean {
  return type.subresources?.includes('status') ?? false;
}

/** Runs the controllers on a workload or CRD about to be stored, then stores it. */
function commit(
  state: ClusterState,
  type: ResourceType,
  object: KubeObject,
  previous: KubeObject | undefined,
): KubeObject {
  if (object.kind === 'Deployment' && type.group === 'apps') reconcileDeployment(state, object, previous);
  if (
    object.kind === 'ReplicaSet' &&
    type.group === 'apps' &&
    previous &&
    readPath(object, 'spec.replicas') !== readPath(previous, 'spec.replicas')
  )
    reconcileReplicaSetPods(state, object);
  if (keepsControllerRevisions(object)) reconcileControllerRevisions(state, object, previous);
  if (object.kind === 'CustomResourceDefinition') state.registry.registerDefinition(object);
  return save(state, type, object);
}

export function createObject(
  state: ClusterState,
  type: ResourceType,
  namespace: string | undefined,
  body: unknown,
  options: WriteOptions,
): KubeObject {
  const object = asObject(withoutNulls(deepClone(body)));
  if (object.kind && object.kind !== type.kind)
    throw badRequest(`the kind of the object (${object.kind}) does not match the resource (${type.plural})`);
  object.apiVersion = apiVersionOf(type);
  object.kind = type.kind;
  if (!object.metadata.name && object.metadata.generateName)
    object.metadata.name = `${object.metadata.generateName}${randomSuffix()}`;
  if (!object.metadata.name)
    throw invalid(type, '', [{ field: 'metadata.name', message: 'Required value: name or generateName is required' }]);
  checkNamespaceAndName(type, object, namespace, undefined);
  if (type.namespaced && !state.store.get(namespaceType(state), undefined, namespace ?? ''))
    throw notFound({ group: '', plural: 'namespaces' }, namespace ?? '');
  if (state.store.get(type, namespace, object.metadata.name)) throw alreadyExists(type, object.metadata.name);
  const causes = validateObject(type, object);
  if (causes.length > 0) throw invalid(type, object.metadata.name, causes);
  object.metadata.uid = randomUUID();
  object.metadata.creationTimestamp = timestamp(state.now());
  object.metadata.generation = 1;
  delete object.metadata.resourceVersion;
  delete object.metadata.deletionTimestamp;
  applyDefaults(type, object, true);
  if (options.dryRun) return object;
  return commit(state, type, object, undefined);
}

/** Replaces a stored object with `next` (what PUT and PATCH computed), keeping what clients cannot change. */
function replaceObject(
  state: ClusterState,
  type: ResourceType,
  existing: KubeObject,
  next: KubeObject,
  options: WriteOptions & { subresource?: string },
): KubeObject {
  const requestedVersion = next.metadata.resourceVersion;
  if (requestedVersion && requestedVersion !== existing.metadata.resourceVersion)
    throw conflict(type, existing.metadata.name);
  let result: KubeObject;
  next = withoutNulls(next);
  if (options.subresource === 'status') {
    result = { ...deepClone(existing), status: deepClone(next['status']) };
  } else {
    result = next;
    if (hasStatusSubresource(type)) result['status'] = deepClone(existing['status']);
  }
  result.apiVersion = apiVersionOf(type);
  result.kind = type.kind;
  result.metadata = {
    ...result.metadata,
    name: existing.metadata.name,
    uid: existing.metadata.uid,
    creationTimestamp: existing.metadata.creationTimestamp,
  };
  if (type.namespaced) result.metadata.namespace = existing.metadata.namespace;
  else delete result.metadata.namespace;
  applyDefaults(type, result, false);
  const generation = existing.metadata.generation ?? 1;
  result.metadata.generation = jsonEqual(result['spec'], existing['spec']) ? generation : generation + 1;
  const causes = validateObject(type, result);
  if (causes.length > 0) throw invalid(type, existing.metadata.name, causes);
  if (options.dryRun) return result;
  return commit(state, type, result, existing);
}

function requireExisting(
  state: ClusterState,
  type: ResourceType,
  namespace: string | undefined,
  name: string,
): KubeObject {
  const existing = state.store.get(type, namespace, name);
  if (!existing) throw notFound(type, name);
  return existing;
}

export function updateObject(
  state: ClusterState,
  type: ResourceType,
  target: { namespace: string | undefined; name: string; subresource?: string },
  body: unknown,
  options: WriteOptions,
): KubeObject {
  const existing = requireExisting(state, type, target.namespace, target.name);
  const next = asObject(deepClone(body));
  checkNamespaceAndName(type, next, target.namespace, target.name);
  return replaceObject(state, type, existing, next, {
    ...options,
    ...(target.subresource ? { subresource: target.subresource } : {}),
  });
}

function applyPatch(patchType: PatchType, original: KubeObject, patch: unknown): unknown {
  try {
    switch (patchType) {
      case 'json':
        return applyJsonPatch(original, patch);
      case 'merge':
        return applyMergePatch(original, patch);
      default:
        return applyStrategicMergePatch(original, patch);
    }
  } catch (error) {
    if (error instanceof PatchError) throw new ApiError({ code: 422, reason: 'Invalid', message: error.message });
    throw error;
  }
}

/** Decodes a PATCH body: YAML for apply patches, JSON otherwise. */
export function decodePatchBody(patchType: PatchType, raw: string): unknown {
  try {
    return patchType === 'apply' ? parseYaml(raw) : JSON.parse(raw);
  } catch (error) {
    throw badRequest(`error decoding patch: ${(error as Error).message}`);
  }
}

export function patchObject(
  state: ClusterState,
  type: ResourceType,
  target: { namespace: string | undefined; name: string; subresource?: string },
  patchType: PatchType,
  patch: unknown,
  options: WriteOptions,
): KubeObject {
  const existing = state.store.get(type, target.namespace, target.name);
  if (!existing && patchType === 'apply') {
    const object = asObject(deepClone(patch));
    checkNamespaceAndName(type, object, target.namespace, target.name);
    return createObject(state, type, target.namespace, object, options);
  }
  if (!existing) throw notFound(type, target.name);
  const patched = asObject(applyPatch(patchType, deepClone(existing), patch));
  // A patch that names a resourceVersion asks for optimistic concurrency; one that does not applies to the latest.
  if (
    patched.metadata.resourceVersion !== existing.metadata.resourceVersion &&
    patched.metadata.resourceVersion !== undefined
  )
    throw conflict(type, existing.metadata.name);
  return replaceObject(state, type, existing, patched, {
    ...options,
    ...(target.subresource ? { subresource: target.subresource } : {}),
  });
}

/** The autoscaling/v1 Scale of a scalable object. */
export function scaleOf(object: KubeObject): JsonRecord {
  const { name, namespace, uid, resourceVersion, creationTimestamp } = object.metadata;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name, ...(namespace ? { namespace } : {}), uid, resourceVersion, creationTimestamp },
    spec: { replicas: Number(readPath(object, 'spec.replicas') ?? 1) },
    status: {
      replicas: Number(readPath(object, 'status.replicas') ?? 0),
      selector: formatLabelSelector(readPath(object, 'spec.selector')),
    },
  };
}

/** PUT or PATCH of `scale`: the change to spec.replicas is applied to the object itself. */
export function writeScale(
  state: ClusterState,
  type: ResourceType,
  target: { namespace: string | undefined; name: string },
  change: { patchType?: PatchType; body: unknown },
  options: WriteOptions,
): JsonRecord {
  const existing = requireExisting(state, type, target.namespace, target.name);
  const current = scaleOf(existing);
  const next = change.patchType
    ? (applyPatch(
        change.patchType === 'apply' ? 'merge' : change.patchType,
        current as KubeObject,
        change.body,
      ) as JsonRecord)
    : asObject(deepClone(change.body));
  const requestedVersion = readPath(next, 'metadata.resourceVersion');
  if (requestedVersion && requestedVersion !== existing.metadata.resourceVersion) throw conflict(type, target.name);
  const replicas = readPath(next, 'spec.replicas');
  const cause = validateReplicas(replicas, 'spec.replicas');
  if (cause) throw invalid({ group: 'autoscaling', kind: 'Scale' }, target.name, [cause]);
  const updated = deepClone(existing);
  updated['spec'] = { ...(isRecord(updated['spec']) ? updated['spec'] : {}), replicas };
  delete updated.metadata.resourceVersion;
  return scaleOf(replaceObject(state, type, existing, updated, options));
}

export interface DeleteOptions extends WriteOptions {
  propagationPolicy?: string;
  preconditions?: { uid?: string; resourceVersion?: string };
}

function deleteDependents(state: ClusterState, owner: KubeObject): void {
  const dependents = [...state.store.all()].filter(({ object }) =>
    object.metadata.ownerReferences?.some((reference) => reference.uid === owner.metadata.uid),
  );
  for (const { type, object } of dependents) removeWithConsequences(state, type, object, 'Background');
}

function removeWithConsequences(
  state: ClusterState,
  type: ResourceType,
  object: KubeObject,
  propagationPolicy: string | undefined,
): void {
  state.store.remove(type, object.metadata.namespace, object.metadata.name);
  state.store.nextResourceVersion();
  if (type.kind === 'Namespace' && type.group === '') {
    for (const { type: contentType, object: content } of [...state.store.all()]) {
      if (contentType.namespaced && content.metadata.namespace === object.metadata.name)
        state.store.remove(contentType, content.metadata.namespace, content.metadata.name);
    }
  }
  if (propagationPolicy !== 'Orphan') deleteDependents(state, object);
  if (type.kind === 'Pod' && type.group === '') replaceDeletedPod(state, object);
}

/** Deletes an object (and, unless orphaned, its dependents). Pods answer with the pod, other kinds with a Success Status. */
export function deleteObject(
  state: ClusterState,
  type: ResourceType,
  target: { namespace: string | undefined; name: string },
  options: DeleteOptions,
): JsonRecord {
  const existing = requireExisting(state, type, target.namespace, target.name);
  const { uid, resourceVersion } = options.preconditions ?? {};
  if (
    (uid && uid !== existing.metadata.uid) ||
    (resourceVersion && resourceVersion !== existing.metadata.resourceVersion)
  )
    throw conflict(type, target.name);
  if (!options.dryRun) removeWithConsequences(state, type, existing, options.propagationPolicy);
  if (type.kind === 'Pod' && type.group === '')
    return {
      ...existing,
      metadata: { ...existing.metadata, deletionTimestamp: timestamp(state.now()), deletionGracePeriodSeconds: 0 },
    };
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: {
      name: target.name,
      ...(type.group ? { group: type.group } : {}),
      kind: type.plural,
      uid: existing.metadata.uid,
    },
  };
}
