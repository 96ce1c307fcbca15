/**
 * A namespace that does not exist answers a list with nothing and a get with "not found",
 * exactly like an empty namespace or a missing object. When a call in a named namespace
 * finds nothing, this says which it is: a failure that names the missing namespace and
 * the namespaces that do exist, so the model does not diagnose an empty answer.
 */
import type { ReadToolContext, ToolFailure } from './tool.ts';

/** Namespaces named in the message, at most. */
const NAMESPACES_LISTED = 30;

/**
 * A `not-found` failure when `namespace` does not exist: the API server answers not-found for
 * it, and lists namespaces without it. Undefined when it exists, or when that cannot be told
 * (no permission to read namespaces, the API server did not answer, it lists none).
 */
export async function missingNamespace(namespace: string, context: ReadToolContext): Promise<ToolFailure | undefined> {
  const fetched = await context.cluster.get('Namespace', { name: namespace }, { signal: context.signal });
  if (fetched.ok || fetched.error.kind !== 'not-found') return undefined;
  const listed = await context.cluster.list('Namespace', { maxItems: 500, signal: context.signal });
  const names = listed.ok
    ? listed.value.items.flatMap((item) => (item.metadata?.name ? [item.metadata.name] : [])).sort()
    : [];
  if (names.length === 0 || names.includes(namespace)) return undefined;
  const readable = context.allowedNamespaces
    ? names.filter((name) => context.allowedNamespaces!.includes(name))
    : names;
  const shown = readable.slice(0, NAMESPACES_LISTED).join(', ');
  const more = readable.length > NAMESPACES_LISTED ? ` and ${readable.length - NAMESPACES_LISTED} more` : '';
  const existing =
    readable.length > 0
      ? ` The cluster has namespaces ${shown}${more}.`
      : ' None of the namespaces it has may be read by this run.';
  return {
    ok: false,
    error: 'not-found',
    content: `not-found: namespace "${namespace}" does not exist.${existing} Check the namespace name: nothing can be found in one that does not exist.`,
  };
}
