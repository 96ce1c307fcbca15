/**
 * The shape of the mismatch explainer table: each row compares two Kubernetes objects
 * that must agree, and when they do not, says so in sentences that name both sides.
 */
import type { MismatchFacts } from './facts.ts';

export interface Mismatch {
  /** The id of the row that found it. */
  readonly id: string;
  /** Sentences for the person on call; the first names both sides, the last says what to change. */
  readonly evidence: readonly string[];
  /** `expected`: what the asking object wants (selector, targetPort, request); `actual`: what the other side has. */
  readonly sides: { readonly expected: string; readonly actual: string };
}

export interface MismatchExample {
  readonly facts: MismatchFacts;
  /** Each must match the evidence (its sentences joined by newlines). */
  readonly says: readonly RegExp[];
}

export interface Explainer {
  /** kebab-case, unique in the table. */
  readonly id: string;
  /** The two sides, as "Service selector ↔ pod labels". */
  readonly compares: string;
  /** What a mismatch means for the workload, in an operator's words. */
  readonly means: string;
  /** Where each side is read in the API. */
  readonly source: string;
  /** Pure: the same facts give the same answer. Undefined when the sides agree or one is unknown. */
  readonly explain: (facts: MismatchFacts) => Mismatch | undefined;
  readonly examples: { readonly match: readonly MismatchExample[]; readonly noMatch: readonly MismatchFacts[] };
}
