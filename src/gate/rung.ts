/**
 * The risk ladder's rungs and the per-namespace policy that caps them. The model never
 * sees or sets any of this: the rung comes from the request and the operator's policy.
 */
export const RUNGS = ['OBSERVE', 'ACT'] as const;
export type Rung = (typeof RUNGS)[number];

export interface LadderPolicy {
  /** Namespaces where ACT is possible; `*` means every namespace. Empty: OBSERVE everywhere. */
  actNamespaces: readonly string[];
  /** Namespaces a run may touch at all; undefined means every namespace. */
  allowedNamespaces?: readonly string[];
}

/** The lower of two rungs. */
export function lowerRung(first: Rung, second: Rung): Rung {
  return first === 'OBSERVE' || second === 'OBSERVE' ? 'OBSERVE' : 'ACT';
}

/** The highest rung policy allows in a namespace (cluster-scoped calls stay at OBSERVE). */
export function rungCapFor(policy: LadderPolicy, namespace: string | undefined): Rung {
  if (namespace === undefined) return 'OBSERVE';
  return policy.actNamespaces.includes('*') || policy.actNamespaces.includes(namespace) ? 'ACT' : 'OBSERVE';
}

/** The rung a call runs at: what the run asked for, capped by policy for the call's namespace. */
export function effectiveRung(input: { requested: Rung; policy: LadderPolicy; namespace: string | undefined }): Rung {
  return lowerRung(input.requested, rungCapFor(input.policy, input.namespace));
}

export function isNamespaceAllowed(policy: LadderPolicy, namespace: string | undefined): boolean {
  if (namespace === undefined || policy.allowedNamespaces === undefined) return true;
  return policy.allowedNamespaces.includes(namespace);
}
