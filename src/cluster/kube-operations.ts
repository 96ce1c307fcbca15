/**
 * Where each readable kind lives in the Kubernetes REST API: its group/version prefix,
 * its plural, and whether it is namespaced. The adapter builds every get and list path
 * from this table and reads the answer as plain JSON.
 */
import type { V1ListMeta } from '@kubernetes/client-node';
import type { ReadableKind } from './cluster.ts';
import { CLUSTER_SCOPED_KINDS } from './cluster.ts';

export interface PageRequest {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  limit: number;
  continueToken?: string;
}

export interface Page<T> {
  items: T[];
  metadata?: V1ListMeta;
}

interface KindPath {
  /** `/api/v1` for the core group, `/apis/<group>/<version>` otherwise. */
  prefix: string;
  plural: string;
}

const CORE = '/api/v1';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';

export const KIND_PATHS: { [K in ReadableKind]: KindPath } = {
  Pod: { prefix: CORE, plural: 'pods' },
  Deployment: { prefix: '/apis/apps/v1', plural: 'deployments' },
  ReplicaSet: { prefix: '/apis/apps/v1', plural: 'replicasets' },
  StatefulSet: { prefix: '/apis/apps/v1', plural: 'statefulsets' },
  DaemonSet: { prefix: '/apis/apps/v1', plural: 'daemonsets' },
  ControllerRevision: { prefix: '/apis/apps/v1', plural: 'controllerrevisions' },
  Job: { prefix: '/apis/batch/v1', plural: 'jobs' },
  CronJob: { prefix: '/apis/batch/v1', plural: 'cronjobs' },
  Node: { prefix: CORE, plural: 'nodes' },
  Namespace: { prefix: CORE, plural: 'namespaces' },
  Service: { prefix: CORE, plural: 'services' },
  Endpoints: { prefix: CORE, plural: 'endpoints' },
  Event: { prefix: CORE, plural: 'events' },
  ConfigMap: { prefix: CORE, plural: 'configmaps' },
  PersistentVolumeClaim: { prefix: CORE, plural: 'persistentvolumeclaims' },
  PersistentVolume: { prefix: CORE, plural: 'persistentvolumes' },
  StorageClass: { prefix: '/apis/storage.k8s.io/v1', plural: 'storageclasses' },
  ResourceQuota: { prefix: CORE, plural: 'resourcequotas' },
  LimitRange: { prefix: CORE, plural: 'limitranges' },
  NetworkPolicy: { prefix: '/apis/networking.k8s.io/v1', plural: 'networkpolicies' },
  Ingress: { prefix: '/apis/networking.k8s.io/v1', plural: 'ingresses' },
  HorizontalPodAutoscaler: { prefix: '/apis/autoscaling/v2', plural: 'horizontalpodautoscalers' },
  ServiceAccount: { prefix: CORE, plural: 'serviceaccounts' },
  Role: { prefix: RBAC, plural: 'roles' },
  RoleBinding: { prefix: RBAC, plural: 'rolebindings' },
  ClusterRole: { prefix: RBAC, plural: 'clusterroles' },
  ClusterRoleBinding: { prefix: RBAC, plural: 'clusterrolebindings' },
};

/** The collection path of `kind`: in one namespace when given one (and the kind is namespaced), across all otherwise. */
export function collectionPath(kind: ReadableKind, namespace: string | undefined): string {
  const { prefix, plural } = KIND_PATHS[kind];
  if (CLUSTER_SCOPED_KINDS.has(kind) || namespace === undefined) return `${prefix}/${plural}`;
  return `${prefix}/namespaces/${encodeURIComponent(namespace)}/${plural}`;
}

/** The path of one object. */
export function objectPath(kind: ReadableKind, reference: { namespace: string; name: string }): string {
  const namespace = CLUSTER_SCOPED_KINDS.has(kind) ? undefined : reference.namespace;
  return `${collectionPath(kind, namespace)}/${encodeURIComponent(reference.name)}`;
}

/** The query of a list page. */
export function pageQuery(request: PageRequest): Record<string, string> {
  return {
    limit: String(request.limit),
    ...(request.labelSelector ? { labelSelector: request.labelSelector } : {}),
    ...(request.fieldSelector ? { fieldSelector: request.fieldSelector } : {}),
    ...(request.continueToken ? { continue: request.continueToken } : {}),
  };
}

/**
 * The client-node models rename three JSON fields of the kinds above (reserved words):
 * `continue` of ListMeta, `default` of a LimitRange item, `from` of a NetworkPolicy ingress
 * rule. Objects read as plain JSON get the model's names, so tools read one shape.
 */
export function adoptModelNames(kind: ReadableKind, object: unknown): void {
  if (typeof object !== 'object' || object === null) return;
  const spec = (object as { spec?: Record<string, unknown> }).spec;
  if (kind === 'LimitRange') {
    for (const limit of (spec?.['limits'] as Record<string, unknown>[] | undefined) ?? [])
      rename(limit, 'default', '_default');
  }
  if (kind === 'NetworkPolicy') {
    for (const rule of (spec?.['ingress'] as Record<string, unknown>[] | undefined) ?? [])
      rename(rule, 'from', '_from');
  }
}

function rename(record: Record<string, unknown>, from: string, to: string): void {
  if (!Object.hasOwn(record, from)) return;
  record[to] = record[from];
  delete record[from];
}
