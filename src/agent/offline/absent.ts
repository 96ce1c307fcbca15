/**
 * What was named and is not there: the object an alert or a sentence names that the
 * cluster does not have, with what the cluster does have in its place, and the honest
 * answer that makes of it (no-issue, low confidence, nothing from elsewhere blamed).
 */
import type { DiagnosisInput, NotFound } from '../diagnosis.ts';
import type { Missing } from './case.ts';
import { stem, type Candidate } from './mentions.ts';
import type { UnknownName } from './unknown-names.ts';

/** What exists instead, as a tool's not-found message lists it ("The cluster has namespaces a, b."), for the summary. */
function toolListing(message: string | undefined): string {
  const listing = message ? /\bthe cluster (?:has|lists) (.*?)(?:\.\s|;|\.?$)/i.exec(message) : null;
  return listing ? `; the cluster has ${listing[1]}` : '';
}

/** The namespace a tool's not-found message says does not exist, when the object was looked for in one. */
function missingNamespaceOf(missing: Missing): string | undefined {
  if (missing.kind === 'Namespace' || !missing.toolMessage) return undefined;
  return /namespace "([^"]+)" does not exist/.exec(missing.toolMessage)?.[1];
}

const MAX_EXISTING = 10;

/** Kinds that live outside namespaces. */
const CLUSTER_SCOPED = new Set(['Node', 'Namespace']);

/**
 * The missing object a sentence names, with what exists in its place: nodes for a node,
 * namespaces for a namespace, the workloads of the namespace (of the kind named, when one
 * was) for anything else; of every namespace, as namespace/name, when none was named. A name
 * given without a kind is a workload's.
 */
export function missingFromWords(input: {
  unknown: UnknownName;
  candidates: readonly Candidate[];
  namespaces: readonly string[];
  namespace: string | undefined;
}): Missing {
  const { unknown, candidates } = input;
  const kind = unknown.kind ?? 'Workload';
  if (kind === 'Node') {
    const nodes = candidates.filter((candidate) => candidate.focus.kind === 'node').map((candidate) => candidate.name);
    return { kind, name: unknown.name, existing: closestFirst(unknown.name, nodes), existingLabel: 'nodes' };
  }
  if (kind === 'Namespace')
    return {
      kind,
      name: unknown.name,
      existing: closestFirst(unknown.name, input.namespaces),
      existingLabel: 'namespaces',
    };
  const namespace = unknown.namespace ?? input.namespace;
  const sameKind = (candidate: Candidate): boolean => {
    if (kind === 'Workload') return candidate.focus.kind === 'workload' || candidate.focus.kind === 'pod';
    if (kind === 'Service') return candidate.focus.kind === 'service';
    if (kind === 'Pod') return candidate.focus.kind === 'pod' || candidate.focus.kind === 'workload';
    return candidate.focus.kind === 'workload' && candidate.focus.workloadKind === kind;
  };
  const label = kind === 'Workload' || kind === 'Pod' ? 'workloads' : `${kind}s`;
  const ofKind = candidates.filter(sameKind);
  if (namespace === undefined) {
    const names = ofKind.map((candidate) =>
      candidate.namespace ? `${candidate.namespace}/${candidate.name}` : candidate.name,
    );
    return { kind, name: unknown.name, existing: closestFirst(unknown.name, names), existingLabel: label };
  }
  const names = ofKind.filter((candidate) => candidate.namespace === namespace).map((candidate) => candidate.name);
  return {
    kind,
    namespace,
    name: unknown.name,
    existing: closestFirst(unknown.name, names),
    existingLabel: `${label} in ${namespace}`,
  };
}

/** Names sharing a word with `name` first ("invoice-worker" for "billing-worker"), then the rest in order; at most MAX_EXISTING. */
function closestFirst(name: string, names: readonly string[]): string[] {
  const words = new Set(
    name
      .toLowerCase()
      .split(/[-./]/)
      .filter((word) => word.length >= 3)
      .map(stem),
  );
  const shared = (candidate: string): number =>
    candidate
      .toLowerCase()
      .split(/[-./]/)
      .filter((word) => words.has(stem(word))).length;
  return [...new Set(names)]
    .sort((left, right) => shared(right) - shared(left) || left.localeCompare(right))
    .slice(0, MAX_EXISTING);
}

/**
 * `node "worker-3"`, `Deployment "cart" in namespace staging`, `"billing-worker" in namespace
 * finance` (no kind given), `Deployment "cart"` (no namespace given).
 */
export function describeMissing(missing: NotFound): string {
  const what =
    missing.kind === 'Workload'
      ? `"${missing.name}"`
      : `${missing.kind === 'Node' || missing.kind === 'Namespace' ? missing.kind.toLowerCase() : missing.kind} "${missing.name}"`;
  return missing.namespace && !CLUSTER_SCOPED.has(missing.kind) ? `${what} in namespace ${missing.namespace}` : what;
}

/**
 * The culprit a missing object stands for: the object as named (a name without a kind taken
 * for a Deployment, the commonest workload); none for a namespaced object named in no
 * namespace, which cannot be named in full.
 */
export function culpritOfMissing(missing: NotFound): DiagnosisInput['culprit'] {
  const kind = missing.kind === 'Workload' ? 'Deployment' : missing.kind;
  if (CLUSTER_SCOPED.has(missing.kind)) return { kind, name: missing.name };
  return missing.namespace ? { kind, namespace: missing.namespace, name: missing.name } : undefined;
}

/**
 * The answer when what was named is not there: says exactly what was not found and what
 * exists instead, blames nothing else, and claims low confidence.
 */
export function diagnoseMissing(missing: Missing): DiagnosisInput {
  const what = describeMissing(missing);
  const existing =
    missing.existing === undefined
      ? toolListing(missing.toolMessage)
      : missing.existing.length > 0
        ? `; the cluster has ${missing.existingLabel ?? 'these'}: ${missing.existing.join(', ')}`
        : `; the cluster has no ${missing.existingLabel ?? 'such objects'}`;
  const notFound: NotFound = {
    kind: missing.kind,
    ...(missing.namespace && !CLUSTER_SCOPED.has(missing.kind) ? { namespace: missing.namespace } : {}),
    name: missing.name,
  };
  const namespace = missingNamespaceOf(missing);
  const culprit = culpritOfMissing(missing);
  return {
    category: 'no-issue',
    ...(culprit ? { culprit } : {}),
    summary: `${what} was not found${missing.namespace || CLUSTER_SCOPED.has(missing.kind) ? '' : ' in any namespace'}${namespace ? ` (namespace "${namespace}" does not exist)` : ''}${existing}. Nothing was diagnosed in its place: check the name and the namespace (it may have been renamed or deleted, or be in another cluster).`,
    evidence: [
      `not found: ${what} does not exist in the cluster`,
      ...(missing.toolMessage ? [missing.toolMessage.slice(0, 1000)] : []),
    ],
    confidence: 'low',
    notFound: namespace ? [notFound, { kind: 'Namespace', name: namespace }] : [notFound],
  };
}
