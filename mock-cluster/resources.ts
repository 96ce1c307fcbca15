/**
 * The resource types the mock serves: every built-in kind the snapshot format names, the
 * groups helm and the agent touch, and any other kind learned at run time from a loaded
 * object, a create request or a CustomResourceDefinition. Discovery, routing and the store
 * all read this one registry.
 */
import type { KubeObject } from './types.ts';
import { isRecord } from './types.ts';

export interface ResourceType {
  group: string;
  version: string;
  kind: string;
  /** The URL segment: `deployments`. */
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  /** `status`, `scale`, `log`, ... */
  subresources?: string[];
  /** What discovery lists; every verb when absent. */
  verbs?: string[];
}

export function apiVersionOf(type: Pick<ResourceType, 'group' | 'version'>): string {
  return type.group === '' ? type.version : `${type.group}/${type.version}`;
}

export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** `deployments.apps`, `pods`: how the API server names a resource in messages. */
export function qualifiedResource(type: Pick<ResourceType, 'group' | 'plural'>): string {
  return type.group === '' ? type.plural : `${type.plural}.${type.group}`;
}

/** The plural the API server would give an unknown kind (what CRD authors conventionally use). */
export function guessPlural(kind: string): string {
  const lower = kind.toLowerCase();
  if (/(s|x|z|ch|sh)$/.test(lower)) return `${lower}es`;
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}

type Builtin = [
  kind: string,
  plural: string,
  namespaced: boolean,
  shortNames: string[],
  subresources: string[],
  categories?: string[],
];

const ALL = ['all'];
const BUILTINS: Record<string, Builtin[]> = {
  v1: [
    ['Pod', 'pods', true, ['po'], ['status', 'log', 'eviction', 'exec', 'portforward', 'ephemeralcontainers'], ALL],
    ['Service', 'services', true, ['svc'], ['status', 'proxy'], ALL],
    ['Endpoints', 'endpoints', true, ['ep'], []],
    ['Event', 'events', true, ['ev'], []],
    ['ConfigMap', 'configmaps', true, ['cm'], []],
    ['Secret', 'secrets', true, [], []],
    ['Namespace', 'namespaces', false, ['ns'], ['status', 'finalize']],
    ['Node', 'nodes', false, ['no'], ['status', 'proxy']],
    ['PersistentVolumeClaim', 'persistentvolumeclaims', true, ['pvc'], ['status']],
    ['PersistentVolume', 'persistentvolumes', false, ['pv'], ['status']],
    ['ResourceQuota', 'resourcequotas', true, ['quota'], ['status']],
    ['LimitRange', 'limitranges', true, ['limits'], []],
    ['ServiceAccount', 'serviceaccounts', true, ['sa'], ['token']],
    ['ReplicationController', 'replicationcontrollers', true, ['rc'], ['status', 'scale'], ALL],
    ['PodTemplate', 'podtemplates', true, [], []],
  ],
  'apps/v1': [
    ['Deployment', 'deployments', true, ['deploy'], ['status', 'scale'], ALL],
    ['ReplicaSet', 'replicasets', true, ['rs'], ['status', 'scale'], ALL],
    ['StatefulSet', 'statefulsets', true, ['sts'], ['status', 'scale'], ALL],
    ['DaemonSet', 'daemonsets', true, ['ds'], ['status'], ALL],
    ['ControllerRevision', 'controllerrevisions', true, [], []],
  ],
  'batch/v1': [
    ['Job', 'jobs', true, [], ['status'], ALL],
    ['CronJob', 'cronjobs', true, ['cj'], ['status'], ALL],
  ],
  'autoscaling/v2': [['HorizontalPodAutoscaler', 'horizontalpodautoscalers', true, ['hpa'], ['status'], ALL]],
  'networking.k8s.io/v1': [
    ['NetworkPolicy', 'networkpolicies', true, ['netpol'], []],
    ['Ingress', 'ingresses', true, ['ing'], ['status']],
    ['IngressClass', 'ingressclasses', false, [], []],
  ],
  'discovery.k8s.io/v1': [['EndpointSlice', 'endpointslices', true, [], []]],
  'policy/v1': [['PodDisruptionBudget', 'poddisruptionbudgets', true, ['pdb'], ['status']]],
  'rbac.authorization.k8s.io/v1': [
    ['Role', 'roles', true, [], []],
    ['RoleBinding', 'rolebindings', true, [], []],
    ['ClusterRole', 'clusterroles', false, [], []],
    ['ClusterRoleBinding', 'clusterrolebindings', false, [], []],
  ],
  'storage.k8s.io/v1': [
    ['StorageClass', 'storageclasses', false, ['sc'], []],
    ['CSIDriver', 'csidrivers', false, [], []],
    ['VolumeAttachment', 'volumeattachments', false, [], ['status']],
  ],
  'authentication.k8s.io/v1': [['SelfSubjectReview', 'selfsubjectreviews', false, [], []]],
  'authorization.k8s.io/v1': [
    ['SelfSubjectAccessReview', 'selfsubjectaccessreviews', false, [], []],
    ['SelfSubjectRulesReview', 'selfsubjectrulesreviews', false, [], []],
  ],
  'coordination.k8s.io/v1': [['Lease', 'leases', true, [], []]],
  'scheduling.k8s.io/v1': [['PriorityClass', 'priorityclasses', false, ['pc'], []]],
  'apiextensions.k8s.io/v1': [
    ['CustomResourceDefinition', 'customresourcedefinitions', false, ['crd', 'crds'], ['status']],
  ],
  'monitoring.coreos.com/v1': [
    ['ServiceMonitor', 'servicemonitors', true, ['smon'], []],
    ['PodMonitor', 'podmonitors', true, ['pmon'], []],
    ['PrometheusRule', 'prometheusrules', true, ['promrule'], []],
  ],
};

/** Every resource type the mock knows, by group/version/plural and by apiVersion/kind. */
export class ResourceRegistry {
  private readonly byPlural = new Map<string, ResourceType>();
  private readonly byKind = new Map<string, ResourceType>();
  /** Bumped on every registration, so discovery documents can be cached. */
  generation = 0;

  constructor() {
    for (const [apiVersion, builtins] of Object.entries(BUILTINS)) {
      const { group, version } = splitApiVersion(apiVersion);
      for (const [kind, plural, namespaced, shortNames, subresources, categories] of builtins) {
        const reviews = plural.endsWith('reviews');
        this.register({
          group,
          version,
          kind,
          plural,
          singular: kind.toLowerCase(),
          namespaced,
          shortNames,
          subresources,
          ...(categories ? { categories } : {}),
          ...(reviews ? { verbs: ['create'] } : {}),
        });
      }
    }
  }

  register(type: ResourceType): ResourceType {
    const existing = this.byPlural.get(`${type.group}/${type.version}/${type.plural}`);
    if (existing) return existing;
    this.byPlural.set(`${type.group}/${type.version}/${type.plural}`, type);
    this.byKind.set(`${apiVersionOf(type)}/${type.kind}`, type);
    this.generation += 1;
    return type;
  }

  lookup(group: string, version: string, plural: string): ResourceType | undefined {
    return this.byPlural.get(`${group}/${version}/${plural}`);
  }

  forKind(apiVersion: string, kind: string): ResourceType | undefined {
    return this.byKind.get(`${apiVersion}/${kind}`);
  }

  /** The type of an object; an unknown kind is registered on the spot (namespaced when the object has a namespace). */
  forObject(object: KubeObject): ResourceType {
    const known = this.forKind(object.apiVersion, object.kind);
    if (known) return known;
    const { group, version } = splitApiVersion(object.apiVersion);
    return this.register({
      group,
      version,
      kind: object.kind,
      plural: guessPlural(object.kind),
      singular: object.kind.toLowerCase(),
      namespaced: typeof object.metadata.namespace === 'string' && object.metadata.namespace !== '',
      subresources: [],
    });
  }

  /** Registers the served versions of a CustomResourceDefinition object. */
  registerDefinition(definition: KubeObject): void {
    const spec = definition['spec'];
    if (
      !isRecord(spec) ||
      typeof spec['group'] !== 'string' ||
      !isRecord(spec['names']) ||
      !Array.isArray(spec['versions'])
    )
      return;
    const names = spec['names'];
    if (typeof names['kind'] !== 'string' || typeof names['plural'] !== 'string') return;
    for (const version of spec['versions']) {
      if (!isRecord(version) || typeof version['name'] !== 'string' || version['served'] === false) continue;
      const subresources = isRecord(version['subresources']) ? Object.keys(version['subresources']) : [];
      this.register({
        group: spec['group'],
        version: version['name'],
        kind: names['kind'],
        plural: names['plural'],
        singular: typeof names['singular'] === 'string' ? names['singular'] : names['kind'].toLowerCase(),
        namespaced: spec['scope'] !== 'Cluster',
        shortNames: Array.isArray(names['shortNames'])
          ? names['shortNames'].filter((name): name is string => typeof name === 'string')
          : [],
        categories: Array.isArray(names['categories'])
          ? names['categories'].filter((name): name is string => typeof name === 'string')
          : [],
        subresources,
      });
    }
  }

  all(): ResourceType[] {
    return [...this.byPlural.values()];
  }

  /** Group name → its versions, in registration order (built-ins first, the preferred version first). */
  groups(): Map<string, Map<string, ResourceType[]>> {
    const groups = new Map<string, Map<string, ResourceType[]>>();
    for (const type of this.byPlural.values()) {
      let versions = groups.get(type.group);
      if (!versions) groups.set(type.group, (versions = new Map()));
      let types = versions.get(type.version);
      if (!types) versions.set(type.version, (types = []));
      types.push(type);
    }
    return groups;
  }
}

/** The key that identifies a resource's storage, whatever version it is asked for in. */
export function storageKey(type: Pick<ResourceType, 'group' | 'plural'>): string {
  return `${type.group}/${type.plural}`;
}
