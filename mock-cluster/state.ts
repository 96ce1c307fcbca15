/**
 * What every request handler and controller of the mock shares: the registry, the store,
 * the scenario's logs and the cluster's clock, plus the small helpers that keep writes
 * looking like the API server's (resourceVersion bumps, RFC 3339 times, name suffixes).
 */
import { randomInt } from 'node:crypto';
import type { ResourceRegistry, ResourceType } from './resources.ts';
import type { ObjectStore } from './store.ts';
import type { KubeObject, ScenarioLog } from './types.ts';

export interface ClusterState {
  registry: ResourceRegistry;
  store: ObjectStore;
  logs: ScenarioLog[];
  /** The cluster's clock, in epoch milliseconds: the real clock, the scenario being served shifted to it (served-clock.ts). */
  now(): number;
  /** What was added to every time of the scenario. */
  clockShiftMs: number;
}

/** Stores `object` with the next resourceVersion. */
export function save(state: ClusterState, type: ResourceType, object: KubeObject): KubeObject {
  object.metadata.resourceVersion = state.store.nextResourceVersion();
  state.store.put(type, object);
  return object;
}

/** RFC 3339 with second precision, as metav1.Time serialises. */
export function timestamp(milliseconds: number): string {
  return new Date(Math.floor(milliseconds / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** The random suffix generateName and controllers use (`utilrand.String`). */
export function randomSuffix(length = 5): string {
  let suffix = '';
  for (let index = 0; index < length; index++) suffix += SAFE_ALPHABET[randomInt(SAFE_ALPHABET.length)];
  return suffix;
}

/** `rand.SafeEncodeString` of a number: how pod-template-hash values look. */
export function safeEncode(value: number): string {
  return [...String(value)].map((character) => SAFE_ALPHABET[character.charCodeAt(0) % SAFE_ALPHABET.length]).join('');
}
