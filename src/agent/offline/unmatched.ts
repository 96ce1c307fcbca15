/**
 * Words that named nothing the cluster has ("x", "everything is fine, just checking"): what
 * fails may still be reported, but the answer says the words matched nothing and claims less.
 */
import type { DiagnosisInput } from '../diagnosis.ts';
import { GENERIC_PARTS } from './mentions.ts';

type Confidence = DiagnosisInput['confidence'];

/** The sentence that says the words matched nothing, quoting them (shortened). */
export function describeUnmatched(words: string): string {
  const quoted = words.trim().length > 80 ? `${words.trim().slice(0, 77)}...` : words.trim();
  return `The words "${quoted}" name no workload, pod, Service, node or namespace in the cluster.`;
}

/**
 * Confidence when the words named nothing: the evidence may be strong, but whether it answers
 * the question is not known. The only failing workload is likely what was meant (medium at
 * most); the worst of several is a guess (low).
 */
export function confidenceWithoutMatch(confidence: Confidence, failingWorkloads: number): Confidence {
  if (failingWorkloads > 1) return 'low';
  return confidence === 'high' ? 'medium' : confidence;
}

/**
 * Whether a word of the text is a short or long form of a word of some name ("rabbit" for
 * rabbitmq, "postgresql" for postgres): words that point somewhere, though too loosely to pick a lead by.
 */
export function nearlyNamed(text: string, names: readonly string[]): boolean {
  const words = text
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter((word) => word.length >= 4);
  const parts = names
    .flatMap((name) => name.toLowerCase().split(/[^a-z]+/))
    .filter((part) => part.length >= 4 && !GENERIC_PARTS.has(part));
  return words.some((word) => parts.some((part) => part.startsWith(word) || word.startsWith(part)));
}
