/**
 * Completes a snapshot's objects with what a live API server would have set: `uid` (stable
 * per scenario and object), `resourceVersion`, `creationTimestamp`, the namespace of
 * namespaced objects, Namespaces that objects use but the snapshot does not list, the
 * uids that owner references and events' involvedObject leave out, and the ControllerRevision
 * every StatefulSet and DaemonSet has (controller-revisions.ts), and Deployment generations
 * no lower than their rollout history allows (generations.ts).
 */
import { createHash } from 'node:crypto';
import { addMissingControllerRevisions } from './controller-revisions.ts';
import { raiseDeploymentGenerations } from './generations.ts';
import { ResourceRegistry } from './resources.ts';
import { timestamp } from './state.ts';
import type { KubeObject } from './types.ts';
import { isRecord } from './types.ts';

const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/** A stable uid, so runs and audit logs of one scenario compare across restarts. */
export function stableUid(seed: string): string {
  const hex = createHash('sha1').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${((parseInt(hex.slice(16, 18), 16) & 0x3f) | 0x80).toString(16)}${hex.slice(18, 20)}-${hex.slice(20, 32)}`;
}

function identity(kind: string, namespace: string | undefined, name: string): string {
  return `${kind}/${namespace ?? ''}/${name}`;
}

/** Fills in what the API server would have set; mutates `objects` (and appends implicit namespaces). */
export function completeObjects(objects: KubeObject[], context: { scenario: string; now: number }): void {
  const registry = new ResourceRegistry();
  const defaultTime = timestamp(context.now - 3600_000);
  for (const object of objects) {
    const type = registry.forObject(object);
    if (type.namespaced) object.metadata.namespace ||= 'default';
    else delete object.metadata.namespace;
  }
  adoptOwnerUids(objects);
  for (const object of objects) {
    object.metadata.uid ||= stableUid(
      `${context.scenario}/${object.apiVersion}/${identity(object.kind, object.metadata.namespace, object.metadata.name)}`,
    );
    object.metadata.creationTimestamp ||= impliedCreationTime(object) ?? defaultTime;
    if (typeof object.metadata.creationTimestamp !== 'string')
      object.metadata.creationTimestamp = new Date(object.metadata.creationTimestamp as unknown as Date).toISOString();
  }
  addImplicitNamespaces(objects, context);
  const byIdentity = new Map(
    objects.map((object) => [identity(object.kind, object.metadata.namespace, object.metadata.name), object]),
  );
  for (const object of objects) {
    for (const owner of object.metadata.ownerReferences ?? []) {
      const target =
        byIdentity.get(identity(owner.kind, object.metadata.namespace, owner.name)) ??
        byIdentity.get(identity(owner.kind, undefined, owner.name));
      if (target && !owner.uid) owner.uid = target.metadata.uid ?? '';
      if (target && !owner.apiVersion) owner.apiVersion = target.apiVersion;
    }
    if (object.kind === 'Event') completeEventReference(object, byIdentity);
  }
  raiseDeploymentGenerations(objects);
  addMissingControllerRevisions(objects, { uidFor: (identity) => stableUid(`${context.scenario}/${identity}`) });
  assignResourceVersions(objects);
}

/** An owner listed without a uid takes the uid its dependents already name. */
function adoptOwnerUids(objects: KubeObject[]): void {
  const named = new Map<string, string>();
  for (const object of objects) {
    for (const owner of object.metadata.ownerReferences ?? []) {
      if (owner.uid) named.set(identity(owner.kind, object.metadata.namespace, owner.name), owner.uid);
    }
  }
  for (const object of objects) {
    if (object.metadata.uid) continue;
    const uid = named.get(identity(object.kind, object.metadata.namespace, object.metadata.name));
    if (uid) object.metadata.uid = uid;
  }
}

function impliedCreationTime(object: KubeObject): string | undefined {
  const candidates = object.kind === 'Event' ? ['firstTimestamp', 'eventTime', 'lastTimestamp'] : [];
  for (const field of candidates) {
    const value = object[field];
    if (typeof value === 'string' && value) return value;
    if (value instanceof Date) return value.toISOString();
  }
  const status = object['status'];
  if (isRecord(status) && typeof status['startTime'] === 'string') return status['startTime'];
  return undefined;
}

function completeEventReference(event: KubeObject, byIdentity: Map<string, KubeObject>): void {
  const involved = event['involvedObject'];
  if (!isRecord(involved) || typeof involved['kind'] !== 'string' || typeof involved['name'] !== 'string') return;
  const target =
    byIdentity.get(
      identity(
        involved['kind'],
        typeof involved['namespace'] === 'string' ? involved['namespace'] : event.metadata.namespace,
        involved['name'],
      ),
    ) ?? byIdentity.get(identity(involved['kind'], undefined, involved['name']));
  if (!target) return;
  if (target.metadata.namespace && !involved['namespace']) involved['namespace'] = target.metadata.namespace;
  if (!involved['uid']) involved['uid'] = target.metadata.uid;
  if (!involved['apiVersion']) involved['apiVersion'] = target.apiVersion;
}

function addImplicitNamespaces(objects: KubeObject[], context: { scenario: string; now: number }): void {
  const listed = new Set(objects.filter((object) => object.kind === 'Namespace').map((object) => object.metadata.name));
  const used = new Set(SYSTEM_NAMESPACES);
  let oldest = context.now - 3600_000;
  for (const object of objects) {
    if (object.metadata.namespace) used.add(object.metadata.namespace);
    const created = Date.parse(object.metadata.creationTimestamp ?? '');
    if (created < oldest) oldest = created;
  }
  for (const name of used) {
    if (listed.has(name)) continue;
    objects.push({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name,
        uid: stableUid(`${context.scenario}/v1/Namespace//${name}`),
        creationTimestamp: timestamp(oldest),
        labels: { 'kubernetes.io/metadata.name': name },
      },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    });
  }
}

function assignResourceVersions(objects: KubeObject[]): void {
  let next = 1000;
  for (const object of objects) {
    const given = Number(object.metadata.resourceVersion);
    if (Number.isInteger(given) && given >= next) next = given + 1;
  }
  for (const object of objects) {
    if (!object.metadata.resourceVersion) object.metadata.resourceVersion = String(next++);
    else object.metadata.resourceVersion = String(object.metadata.resourceVersion);
  }
}
