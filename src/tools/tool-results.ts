/**
 * Building tool results: cluster errors turned into failures the model can act on, and
 * successes whose content fits the budget. Shared by every tool file.
 */
import type { ClusterError } from '../cluster/cluster.ts';
import type { ReadToolContext, ToolFailure, ToolResult, ToolSuccess } from './tool.ts';

const NEXT_STEPS: Record<ClusterError['kind'], string> = {
  'not-found': 'Check the name and namespace (list the kind first to see what exists).',
  forbidden: 'kubewhy lacks RBAC permission for this; say so in the diagnosis and use other evidence.',
  unavailable: 'The API server did not answer after retries; try again once, then work with what you have.',
  timeout: 'The call timed out; retry with a narrower request (a selector, a smaller tail) or move on.',
  conflict: 'The object changed meanwhile; read it again before retrying.',
  'invalid-input': 'The API server rejected the request as invalid; check the arguments.',
};

/** A failure the model can read: what failed, the server's words, what to try. */
export function failureFrom(error: ClusterError, hint?: string): ToolFailure {
  return {
    ok: false,
    error: error.kind,
    content: `${error.kind}: ${error.message}. ${hint ?? NEXT_STEPS[error.kind]}`,
  };
}

export function success<Data>(content: string, data: Data, truncated = false): ToolSuccess & { data: Data } {
  return { ok: true, content, data, truncated };
}

/**
 * The namespaces a call without `namespace` may read: every namespace (`undefined`) when the
 * run has no allowlist, the allowlist otherwise.
 */
export function resolveNamespaces(namespace: string | undefined, context: ReadToolContext): Array<string | undefined> {
  if (namespace !== undefined) return [namespace];
  return context.allowedNamespaces ? [...context.allowedNamespaces] : [undefined];
}

/** A note for results assembled from a list the server cut short. */
export function describeIncomplete(input: {
  incomplete: boolean;
  partialError?: ClusterError;
  remainingItemCount?: number;
  read: number;
}): string | undefined {
  if (input.partialError)
    return `note: only ${input.read} item(s) could be read before an error (${input.partialError.kind}: ${input.partialError.message}); counts cover those.`;
  if (input.incomplete) {
    const more = input.remainingItemCount !== undefined ? ` (${input.remainingItemCount} more on the server)` : '';
    return `note: read the first ${input.read} item(s)${more}; counts cover those. Narrow with a selector or a namespace.`;
  }
  return undefined;
}

export type { ToolResult };
