/**
 * Which objects of a background cluster must go when it is merged into a scenario, so the
 * scenario reads exactly as it was written:
 * - an object the scenario also has (same kind, namespace and name): the scenario's wins;
 * - a background workload whose pods a scenario Service or workload would select, and a
 *   background Service or workload that would select a scenario pod (same namespace);
 * - and then everything that hangs off a dropped object: owned objects (pods of a dropped
 *   ReplicaSet, Jobs of a dropped CronJob), a Service's Endpoints and EndpointSlices, the
 *   endpoints that list a dropped pod (and so their Service), the events about a dropped
 *   object, pods on a dropped Node, the PersistentVolume bound to a dropped claim,
 *   an autoscaler whose target is gone, the logs of a dropped pod.
 */
import { labelSelectorFromObject, type LabelSelector } from './selectors.ts';
import type { KubeObject } from './types.ts';
import { isRecord, readPath } from './types.ts';

const WORKLOAD_KINDS = new Set([
  'Deployment',
  'ReplicaSet',
  'StatefulSet',
  'DaemonSet',
  'Job',
  'ReplicationController',
]);

export function identityOf(kind: string, namespace: string | undefined, name: string): string {
  return `${kind}/${namespace ?? ''}/${name}`;
}

function identity(object: KubeObject): string {
  return identityOf(object.kind, object.metadata.namespace, object.metadata.name);
}

/** The pods an object selects, as a predicate; undefined when it selects none. */
function podSelector(object: KubeObject): LabelSelector | undefined {
  if (object.kind === 'Service') {
    const selector = readPath(object, 'spec.selector');
    return isRecord(selector) && Object.keys(selector).length > 0
      ? labelSelectorFromObject({ matchLabels: selector })
      : undefined;
  }
  if (!WORKLOAD_KINDS.has(object.kind)) return undefined;
  const selector = readPath(object, 'spec.selector');
  if (!isRecord(selector)) return undefined;
  if (object.kind === 'ReplicationController')
    return Object.keys(selector).length > 0 ? labelSelectorFromObject({ matchLabels: selector }) : undefined;
  return Object.keys(selector).length > 0 ? labelSelectorFromObject(selector) : undefined;
}

/** The object's top-level controller (a pod's Deployment, a Job's CronJob), or itself. */
function rootOf(object: KubeObject, byIdentity: Map<string, KubeObject>): KubeObject {
  let current = object;
  for (let depth = 0; depth < 8; depth++) {
    const owner =
      current.metadata.ownerReferences?.find((reference) => reference.controller) ??
      current.metadata.ownerReferences?.[0];
    const next = owner
      ? (byIdentity.get(identityOf(owner.kind, current.metadata.namespace, owner.name)) ??
        byIdentity.get(identityOf(owner.kind, undefined, owner.name)))
      : undefined;
    if (!next) return current;
    current = next;
  }
  return current;
}

function selectorConflicts(
  scenario: readonly KubeObject[],
  background: readonly KubeObject[],
  byIdentity: Map<string, KubeObject>,
): KubeObject[] {
  const conflicts: KubeObject[] = [];
  const scenarioNamespaces = new Set(
    scenario
      .filter((object) => object.kind !== 'Namespace')
      .map((object) => object.metadata.namespace)
      .filter((namespace) => namespace !== undefined),
  );
  const inShared = (object: KubeObject): boolean =>
    object.metadata.namespace !== undefined && scenarioNamespaces.has(object.metadata.namespace);
  const scenarioSelectors = scenario.filter(inShared).flatMap((object) => {
    const selector = podSelector(object);
    return selector ? [{ namespace: object.metadata.namespace, selector }] : [];
  });
  const scenarioPods = scenario.filter((object) => object.kind === 'Pod' && inShared(object));
  for (const object of background.filter(inShared)) {
    if (
      object.kind === 'Pod' &&
      scenarioSelectors.some(
        ({ namespace, selector }) => namespace === object.metadata.namespace && selector(object.metadata.labels),
      )
    ) {
      conflicts.push(rootOf(object, byIdentity));
    }
    const selector = podSelector(object);
    if (
      selector &&
      scenarioPods.some((pod) => pod.metadata.namespace === object.metadata.namespace && selector(pod.metadata.labels))
    )
      conflicts.push(rootOf(object, byIdentity));
  }
  return conflicts;
}

/** The pods an Endpoints or EndpointSlice lists. */
function endpointPods(object: KubeObject): string[] {
  const targets: unknown[] = [];
  const subsets = object['subsets'];
  for (const subset of Array.isArray(subsets) ? subsets : []) {
    if (!isRecord(subset)) continue;
    for (const field of ['addresses', 'notReadyAddresses']) {
      const addresses = subset[field];
      if (Array.isArray(addresses))
        targets.push(...addresses.map((address: unknown) => (isRecord(address) ? address['targetRef'] : undefined)));
    }
  }
  const endpoints = object['endpoints'];
  if (Array.isArray(endpoints))
    targets.push(...endpoints.map((endpoint: unknown) => (isRecord(endpoint) ? endpoint['targetRef'] : undefined)));
  return targets.flatMap((target) =>
    isRecord(target) && target['kind'] === 'Pod' && typeof target['name'] === 'string'
      ? [identityOf('Pod', object.metadata.namespace, target['name'])]
      : [],
  );
}

/** The identities of the objects this one depends on: when any of them is dropped, so is it. */
function dependencies(object: KubeObject): string[] {
  const namespace = object.metadata.namespace;
  const found = (object.metadata.ownerReferences ?? []).flatMap((owner) => [
    identityOf(owner.kind, namespace, owner.name),
    identityOf(owner.kind, undefined, owner.name),
  ]);
  const involved = object['involvedObject'] ?? object['regarding'];
  if (isRecord(involved) && typeof involved['kind'] === 'string' && typeof involved['name'] === 'string') {
    found.push(
      identityOf(
        involved['kind'],
        typeof involved['namespace'] === 'string' ? involved['namespace'] : undefined,
        involved['name'],
      ),
    );
  }
  // A Service and its endpoints stand or fall together, and endpoints with the pods they list:
  // a background Service left pointing at pods that are gone would read as a broken Service.
  if (object.kind === 'Service') found.push(identityOf('Endpoints', namespace, object.metadata.name));
  if (object.kind === 'Endpoints')
    found.push(identityOf('Service', namespace, object.metadata.name), ...endpointPods(object));
  const serviceName = object.metadata.labels?.['kubernetes.io/service-name'];
  if (object.kind === 'EndpointSlice' && serviceName)
    found.push(identityOf('Service', namespace, serviceName), ...endpointPods(object));
  const nodeName = readPath(object, 'spec.nodeName');
  if (object.kind === 'Pod' && typeof nodeName === 'string') found.push(identityOf('Node', undefined, nodeName));
  const claim = readPath(object, 'spec.claimRef');
  if (object.kind === 'PersistentVolume' && isRecord(claim) && typeof claim['name'] === 'string') {
    found.push(
      identityOf(
        'PersistentVolumeClaim',
        typeof claim['namespace'] === 'string' ? claim['namespace'] : undefined,
        claim['name'],
      ),
    );
  }
  const target = readPath(object, 'spec.scaleTargetRef');
  if (
    object.kind === 'HorizontalPodAutoscaler' &&
    isRecord(target) &&
    typeof target['kind'] === 'string' &&
    typeof target['name'] === 'string'
  ) {
    found.push(identityOf(target['kind'], namespace, target['name']));
  }
  return found;
}

/** The background objects to leave out of the merge, by identity (`Kind/namespace/name`). */
export function backgroundObjectsToDrop(
  scenario: readonly KubeObject[],
  background: readonly KubeObject[],
): Set<string> {
  const taken = new Set(scenario.map(identity));
  const byIdentity = new Map(background.map((object) => [identity(object), object]));
  const dropped = new Set(background.map(identity).filter((key) => taken.has(key)));
  for (const conflict of selectorConflicts(scenario, background, byIdentity)) dropped.add(identity(conflict));
  // Dependents of dependents: repeat until nothing more falls.
  for (let changed = true; changed;) {
    changed = false;
    for (const object of background) {
      const key = identity(object);
      if (dropped.has(key) || !dependencies(object).some((dependency) => dropped.has(dependency))) continue;
      dropped.add(key);
      changed = true;
    }
  }
  return dropped;
}
