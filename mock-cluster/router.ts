/**
 * Turns a request path into what it addresses: a discovery document, or a resource
 * (group, version, plural, namespace, name, subresource), the way the API server's
 * request-info resolver does, including the legacy `/watch/` prefix.
 */
import type { ResourceRegistry } from './resources.ts';

export type Route =
  | { route: 'root' }
  | { route: 'version' }
  | { route: 'health' }
  | { route: 'openapi'; path: string }
  | { route: 'api-versions' }
  | { route: 'group-list' }
  | { route: 'group'; group: string }
  | { route: 'resource-list'; group: string; version: string }
  | {
      route: 'resource';
      group: string;
      version: string;
      plural: string;
      namespace?: string;
      name?: string;
      subresource?: string;
      watchPath: boolean;
    }
  | { route: 'mock'; path: string }
  | { route: 'unknown' };

const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

function resourceRoute(registry: ResourceRegistry, group: string, version: string, rest: string[]): Route {
  const watchPath = rest[0] === 'watch';
  const parts = watchPath ? rest.slice(1) : rest;
  const base = { route: 'resource' as const, group, version, watchPath };
  const namespaced =
    parts[0] === 'namespaces' &&
    parts.length >= 3 &&
    !(
      group === '' &&
      parts.length === 3 &&
      NAMESPACE_SUBRESOURCES.has(parts[2] ?? '') &&
      !registry.lookup(group, version, parts[2] ?? '')
    );
  if (namespaced) {
    const [, namespace, plural = '', name, subresource, ...extra] = parts;
    if (extra.length > 0) return { route: 'unknown' };
    return {
      ...base,
      plural,
      ...(namespace !== undefined ? { namespace } : {}),
      ...(name !== undefined ? { name } : {}),
      ...(subresource !== undefined ? { subresource } : {}),
    };
  }
  const [plural = '', name, subresource, ...extra] = parts;
  if (extra.length > 0 || plural === '') return { route: 'unknown' };
  return {
    ...base,
    plural,
    ...(name !== undefined ? { name } : {}),
    ...(subresource !== undefined ? { subresource } : {}),
  };
}

export function resolveRoute(registry: ResourceRegistry, pathname: string): Route {
  let segments: string[];
  try {
    segments = pathname
      .split('/')
      .filter((segment) => segment !== '')
      .map(decodeURIComponent);
  } catch {
    return { route: 'unknown' };
  }
  const [first, second, third, ...rest] = segments;
  switch (first) {
    case undefined:
      return { route: 'root' };
    case '_mock':
      return { route: 'mock', path: segments.slice(1).join('/') };
    case 'version':
      return segments.length === 1 ? { route: 'version' } : { route: 'unknown' };
    case 'healthz':
    case 'livez':
    case 'readyz':
      return { route: 'health' };
    case 'openapi':
      return { route: 'openapi', path: segments.slice(1).join('/') };
    case 'api':
      if (second === undefined) return { route: 'api-versions' };
      if (second !== 'v1') return { route: 'unknown' };
      if (third === undefined) return { route: 'resource-list', group: '', version: 'v1' };
      return resourceRoute(registry, '', 'v1', [third, ...rest]);
    case 'apis':
      if (second === undefined) return { route: 'group-list' };
      if (third === undefined) return { route: 'group', group: second };
      if (rest.length === 0) return { route: 'resource-list', group: second, version: third };
      return resourceRoute(registry, second, third, rest);
    default:
      return { route: 'unknown' };
  }
}
