/**
 * The mismatch explainers: pairs of Kubernetes objects that must agree, one file per pair.
 * Each row compares its two sides in the facts and, when they disagree, says so in
 * sentences that name both. Rows are independent: every row is applied, none outranks
 * another, and their order here carries no meaning.
 */
import type { MismatchFacts } from './facts.ts';
import type { Explainer, Mismatch } from './types.ts';
import { IMAGE_ARCHITECTURE } from './image-architecture.ts';
import { MISSING_ENTRYPOINT } from './missing-entrypoint.ts';
import { NODE_CAPACITY } from './node-capacity.ts';
import { NODE_SELECTOR } from './node-selector.ts';
import { PROBE_PORT } from './probe-port.ts';
import { SERVICE_SELECTOR } from './service-selector.ts';
import { SERVICE_TARGET_PORT } from './service-target-port.ts';
import { TAINT_TOLERATION } from './taint-toleration.ts';
import { VOLUME_ZONE } from './volume-zone.ts';

export type { Explainer, Mismatch, MismatchExample } from './types.ts';
export type { MismatchFacts } from './facts.ts';

export const EXPLAINERS: readonly Explainer[] = [
  SERVICE_SELECTOR,
  VOLUME_ZONE,
  IMAGE_ARCHITECTURE,
  NODE_SELECTOR,
  TAINT_TOLERATION,
  NODE_CAPACITY,
  SERVICE_TARGET_PORT,
  PROBE_PORT,
  MISSING_ENTRYPOINT,
];

/** Every mismatch the facts show, one per row at most. Pure; never throws on partial facts. */
export function explainMismatches(facts: MismatchFacts): Mismatch[] {
  return EXPLAINERS.flatMap((explainer) => explainer.explain(facts) ?? []);
}
