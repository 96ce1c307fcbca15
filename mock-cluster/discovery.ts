/**
 * Discovery, in both formats clients use: the aggregated `apidiscovery.k8s.io/v2` (and
 * v2beta1) document kubectl and helm ask for first, and the legacy APIVersions /
 * APIGroupList / APIGroup / APIResourceList they fall back to. Both come from the registry,
 * so a kind learned at run time (a CRD, an unknown apiVersion) is discoverable at once.
 */
import { parseAccept } from './accept.ts';
import { apiVersionOf, type ResourceRegistry, type ResourceType } from './resources.ts';
import type { JsonRecord } from './types.ts';

export const KUBERNETES_VERSION = {
  major: '1',
  minor: '33',
  gitVersion: 'v1.33.0',
  gitCommit: '60a317eadfcb839692a5ab6f6b6a7c3f2ab2ec9e',
  gitTreeState: 'clean',
  buildDate: '2025-04-23T13:09:08Z',
  goVersion: 'go1.24.2',
  compiler: 'gc',
  platform: 'linux/amd64',
};

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

interface SubresourceInfo {
  kind: string;
  group?: string;
  version?: string;
  verbs: string[];
}

function subresourceInfo(type: ResourceType, subresource: string): SubresourceInfo {
  switch (subresource) {
    case 'scale':
      return { kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'] };
    case 'status':
      return { kind: type.kind, verbs: ['get', 'patch', 'update'] };
    case 'log':
      return { kind: 'Pod', verbs: ['get'] };
    case 'eviction':
      return { kind: 'Eviction', group: 'policy', version: 'v1', verbs: ['create'] };
    case 'exec':
      return { kind: 'PodExecOptions', verbs: ['create', 'get'] };
    case 'portforward':
      return { kind: 'PodPortForwardOptions', verbs: ['create', 'get'] };
    case 'ephemeralcontainers':
      return { kind: 'Pod', verbs: ['get', 'patch', 'update'] };
    case 'proxy':
      return {
        kind: type.kind === 'Node' ? 'NodeProxyOptions' : 'ServiceProxyOptions',
        verbs: ['create', 'delete', 'get', 'patch', 'update'],
      };
    case 'finalize':
      return { kind: 'Namespace', verbs: ['update'] };
    case 'token':
      return { kind: 'TokenRequest', group: 'authentication.k8s.io', version: 'v1', verbs: ['create'] };
    default:
      return { kind: type.kind, verbs: ['get'] };
  }
}

/** Groups in the order discovery lists them: core, then built-ins, then learned groups. */
function orderedGroups(registry: ResourceRegistry): [string, Map<string, ResourceType[]>][] {
  return [...registry.groups().entries()];
}

function aggregatedResource(type: ResourceType): JsonRecord {
  return {
    resource: type.plural,
    responseKind: { group: type.group, version: type.version, kind: type.kind },
    scope: type.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: type.singular,
    verbs: type.verbs ?? VERBS,
    ...(type.shortNames?.length ? { shortNames: type.shortNames } : {}),
    ...(type.categories?.length ? { categories: type.categories } : {}),
    ...(type.subresources?.length
      ? {
          subresources: type.subresources.map((subresource) => {
            const info = subresourceInfo(type, subresource);
            return {
              subresource,
              responseKind: { group: info.group ?? type.group, version: info.version ?? type.version, kind: info.kind },
              verbs: info.verbs,
            };
          }),
        }
      : {}),
  };
}

/** The aggregated discovery document of `/api` (core only) or `/apis` (every named group). */
export function aggregatedDiscovery(registry: ResourceRegistry, scope: 'api' | 'apis', apiVersion: string): JsonRecord {
  const items = orderedGroups(registry)
    .filter(([group]) => (scope === 'api' ? group === '' : group !== ''))
    .map(([group, versions]) => ({
      metadata: { ...(group ? { name: group } : {}), creationTimestamp: null },
      versions: [...versions.entries()].map(([version, types]) => ({
        version,
        resources: types.map(aggregatedResource),
        freshness: 'Current',
      })),
    }));
  return { kind: 'APIGroupDiscoveryList', apiVersion, metadata: {}, items };
}

export function apiVersions(serverAddress: string): JsonRecord {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupDocument(group: string, versions: Map<string, ResourceType[]>): JsonRecord {
  const list = [...versions.keys()].map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { name: group, versions: list, preferredVersion: list[0] };
}

export function apiGroupList(registry: ResourceRegistry): JsonRecord {
  const groups = orderedGroups(registry)
    .filter(([group]) => group !== '')
    .map(([group, versions]) => groupDocument(group, versions));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

export function apiGroup(registry: ResourceRegistry, group: string): JsonRecord | undefined {
  const versions = registry.groups().get(group);
  return group && versions ? { kind: 'APIGroup', apiVersion: 'v1', ...groupDocument(group, versions) } : undefined;
}

export function apiResourceList(registry: ResourceRegistry, group: string, version: string): JsonRecord | undefined {
  const types = registry.groups().get(group)?.get(version);
  if (!types) return undefined;
  const resources: JsonRecord[] = [];
  for (const type of types) {
    resources.push({
      name: type.plural,
      singularName: type.singular,
      namespaced: type.namespaced,
      kind: type.kind,
      verbs: type.verbs ?? VERBS,
      ...(type.shortNames?.length ? { shortNames: type.shortNames } : {}),
      ...(type.categories?.length ? { categories: type.categories } : {}),
    });
    for (const subresource of type.subresources ?? []) {
      const info = subresourceInfo(type, subresource);
      resources.push({
        name: `${type.plural}/${subresource}`,
        singularName: '',
        namespaced: type.namespaced,
        ...(info.group !== undefined ? { group: info.group, version: info.version } : {}),
        kind: info.kind,
        verbs: info.verbs,
      });
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: apiVersionOf({ group, version }), resources };
}

/** Which aggregated discovery version the Accept header asks for, if any. */
export function acceptedAggregatedVersion(accept: string | undefined): string | undefined {
  for (const { parameters } of parseAccept(accept)) {
    if (parameters.get('g') === 'apidiscovery.k8s.io' && parameters.get('as') === 'APIGroupDiscoveryList') {
      const version = parameters.get('v');
      if (version === 'v2' || version === 'v2beta1') return `apidiscovery.k8s.io/${version}`;
    }
  }
  return undefined;
}
