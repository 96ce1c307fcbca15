/**
 * How a sentence names things: a name in full ("checkout-api", "checkout api") beats all of
 * its words, which beat some of them; words match by their stem. The inventory's named
 * things are candidates, and the one the words name best is picked.
 */
import { expandAbbreviations } from './abbreviations.ts';
import type { Focus } from './case.ts';
import { shortensName, withinOneEdit } from './edit-distance.ts';
import { statesReported, type FailingState } from './report-words.ts';

/** Names shorter than this are too short to call a one-letter difference a typo. */
const TYPO_MIN_LENGTH = 8;

/** Name parts too common to identify anything alone ("default-pool", "prod-cluster"). */
export const GENERIC_PARTS = new Set([
  'default',
  'pool',
  'node',
  'nodes',
  'prod',
  'production',
  'staging',
  'dev',
  'main',
  'system',
  'the',
  'app',
  'service',
  'server',
]);

/** A named thing the inventory knows, which a sentence may mention. */
export interface Candidate {
  focus: Focus;
  name: string;
  namespace?: string;
  unhealthy: boolean;
  /** How it fails, where known: a report's symptom words favour the candidate whose state shows them. */
  states?: ReadonlySet<FailingState>;
}

/**
 * How strongly a sentence names `name`: the whole name ("checkout-api", or "checkout api")
 * beats all of its words ("nightly ... report" for nightly-report), which beats some of them.
 */
export function mentionScore(name: string, text: string): number {
  const lower = text.toLowerCase();
  // "zk" names zookeeper: a short form counts as the words it stands for.
  const words = new Set([
    ...lower.split(/[^a-z0-9]+/).filter((word) => word.length > 0),
    ...expandAbbreviations(lower),
  ]);
  const escaped = escapeRegExp(name.toLowerCase());
  if (new RegExp(`(^|[^a-z0-9-])${escaped}([^a-z0-9-]|$)`).test(lower)) return 100 + name.length;
  const spaced = escaped.replace(/-/g, '[ _-]');
  if (new RegExp(`(^|[^a-z0-9])${spaced}([^a-z0-9]|$)`).test(lower)) return 90 + name.length;
  // The whole name mistyped by one letter ("settlment-api"): named, if less surely than spelled right.
  const lowerName = name.toLowerCase();
  if (
    lowerName.length >= TYPO_MIN_LENGTH &&
    lower.split(/[^a-z0-9-]+/).some((token) => withinOneEdit(token, lowerName))
  )
    return 80 + name.length;
  // Every word of the name cut short ("orig-api" for origination-api).
  if (lower.split(/[^a-z0-9-]+/).some((token) => shortensName(token, lowerName))) return 70 + name.length;
  const parts = lowerName
    .split('-')
    .filter((part) => part.length >= 3 && !/^\d+$/.test(part) && !GENERIC_PARTS.has(part));
  if (parts.length === 0) return 0;
  // Words match by their stem: "prices" names pricing-api, "payments" names payment-gateway.
  const stems = new Set([...words].map(stem));
  const matched = parts.filter((part) => words.has(part) || stems.has(stem(part))).length;
  if (matched === parts.length) return 50 + matched * 5;
  return matched > 0 ? (20 * matched) / parts.length : 0;
}

/** A word's stem for matching: the common English endings removed (pricing, prices, price -> pric). */
export function stem(word: string): string {
  for (const ending of ['ing', 'ers', 'er', 'ed', 'es', 's', 'e']) {
    if (word.length - ending.length >= 4 && word.endsWith(ending)) return word.slice(0, -ending.length);
  }
  return word;
}

/** mentionScore of a name every word of which the sentence holds. */
export const ALL_WORDS = 50;

/** A failing candidate whose state shows what the report says ("crashlooping", "502s") is what it means, over one whose state does not. */
const SYMPTOM_FITS = 12;

/** Whether a failing candidate's state shows a symptom the report gives; undefined when either is unknown. */
function fitsSymptoms(candidate: Candidate, reported: ReadonlySet<FailingState>): boolean | undefined {
  if (!candidate.unhealthy || !candidate.states || candidate.states.size === 0 || reported.size === 0) return undefined;
  return [...candidate.states].some((state) => reported.has(state));
}

/** The candidate the sentence names best; unhealthy ones, those whose state fits the symptom, and those in a named namespace win ties. */
export function pickMentioned(
  candidates: readonly Candidate[],
  text: string,
  namespaces: readonly string[],
): Candidate | undefined {
  const reported = statesReported(text);
  const namedNamespaces = namespaces.filter((namespace) => mentionScore(namespace, text) >= 90);
  // Words that name a namespace say where, not what: "in the shop namespace" names no node called shop-pool.
  const withoutNamespaces = namedNamespaces.reduce(
    (remaining, namespace) => remaining.replace(new RegExp(`\\b${escapeRegExp(namespace)}\\b`, 'gi'), ' '),
    text,
  );
  let best: { candidate: Candidate; score: number } | undefined;
  let bestUnhealthy: { candidate: Candidate; score: number; whole: number } | undefined;
  for (const candidate of candidates) {
    const whole = mentionScore(candidate.name, text);
    const fits = fitsSymptoms(candidate, reported);
    // A partial match (some words of the name) counts only outside the namespace words, unless the candidate shows the symptom reported.
    let score = whole >= 90 || fits ? whole : mentionScore(candidate.name, withoutNamespaces);
    if (score === 0) continue;
    if (fits === true) score += SYMPTOM_FITS;
    if (fits === false) score -= SYMPTOM_FITS;
    // A namespace named outright narrows the search: a healthy partial namesake elsewhere is not what was meant.
    if (
      score < 50 &&
      !candidate.unhealthy &&
      namedNamespaces.length > 0 &&
      candidate.namespace &&
      !namedNamespaces.includes(candidate.namespace)
    )
      continue;
    if (candidate.namespace && namedNamespaces.includes(candidate.namespace)) score += 15;
    if (candidate.unhealthy) score += 8;
    if (!best || score > best.score) best = { candidate, score };
    if (candidate.unhealthy && (!bestUnhealthy || score > bestUnhealthy.score))
      bestUnhealthy = { candidate, score, whole: Math.max(whole, mentionScore(candidate.name, withoutNamespaces)) };
  }
  // Words of a report name what fails: a failing namesake outranks a healthy partial match, and a healthy
  // one named in full when every word of the failing one's name is there too ("zk warnings, kafka still up?").
  if (best && !best.candidate.unhealthy && bestUnhealthy && (best.score < 90 || bestUnhealthy.whole >= ALL_WORDS))
    return bestUnhealthy.candidate;
  // A word that names a namespace where nothing fails may still be a word of what fails elsewhere ("pricing deploy keeps dying": pricing-engine, not the healthy pricing namespace).
  if ((!best || (!best.candidate.unhealthy && best.score < 90)) && !bestUnhealthy && namedNamespaces.length > 0) {
    const failingThere = candidates.some(
      (candidate) => candidate.unhealthy && candidate.namespace && namedNamespaces.includes(candidate.namespace),
    );
    const loose = failingThere
      ? undefined
      : candidates
          .filter((candidate) => candidate.unhealthy)
          .map((candidate) => ({ candidate, score: mentionScore(candidate.name, text) }))
          .filter((entry) => entry.score > 0)
          .sort((left, right) => right.score - left.score)[0];
    if (loose) return loose.candidate;
  }
  return best?.candidate;
}

/** `text` as a literal inside a regular expression. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Namespaces the sentence names outright. */
export function mentionedNamespaces(namespaces: readonly string[], text: string): string[] {
  return namespaces.filter((namespace) => mentionScore(namespace, text) >= 90);
}
