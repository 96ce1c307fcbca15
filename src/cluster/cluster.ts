/**
 * The narrow interface every tool uses to reach Kubernetes.
 *
 * Objects are the API's own shapes (the `@kubernetes/client-node` models; timestamps may be
 * `Date` or RFC 3339 strings, so readers go through `toDate`). Nothing here throws for a
 * failure the caller can act on: every call resolves to a `ClusterResult`, with client errors
 * mapped to a few kinds. A Secret's values never cross this interface: `listSecrets` gives
 * names, types and keys only.
 */
import type {
  CoreV1Event,
  V1ConfigMap,
  V1ControllerRevision,
  V1CronJob,
  V1DaemonSet,
  V1Deployment,
  V1Endpoints,
  V1Job,
  V1LimitRange,
  V1Namespace,
  V1Ingress,
  V1NetworkPolicy,
  V1Node,
  V1PersistentVolume,
  V1PersistentVolumeClaim,
  V1Pod,
  V1ReplicaSet,
  V1ResourceQuota,
  V1Role,
  V1RoleBinding,
  V1ClusterRole,
  V1ClusterRoleBinding,
  V1Service,
  V1ServiceAccount,
  V1StatefulSet,
  V1StorageClass,
  V2HorizontalPodAutoscaler,
} from '@kubernetes/client-node';

/** The kinds `get` and `list` understand, and the object type each returns. Secret is absent on purpose. */
export interface KindMap {
  Pod: V1Pod;
  Deployment: V1Deployment;
  ReplicaSet: V1ReplicaSet;
  StatefulSet: V1StatefulSet;
  DaemonSet: V1DaemonSet;
  ControllerRevision: V1ControllerRevision;
  Job: V1Job;
  CronJob: V1CronJob;
  Node: V1Node;
  Namespace: V1Namespace;
  Service: V1Service;
  Endpoints: V1Endpoints;
  Event: CoreV1Event;
  ConfigMap: V1ConfigMap;
  PersistentVolumeClaim: V1PersistentVolumeClaim;
  PersistentVolume: V1PersistentVolume;
  StorageClass: V1StorageClass;
  ResourceQuota: V1ResourceQuota;
  LimitRange: V1LimitRange;
  NetworkPolicy: V1NetworkPolicy;
  Ingress: V1Ingress;
  HorizontalPodAutoscaler: V2HorizontalPodAutoscaler;
  ServiceAccount: V1ServiceAccount;
  Role: V1Role;
  RoleBinding: V1RoleBinding;
  ClusterRole: V1ClusterRole;
  ClusterRoleBinding: V1ClusterRoleBinding;
}

export type ReadableKind = keyof KindMap;

/** Kinds that live outside namespaces: `namespace` is ignored for them. */
export const CLUSTER_SCOPED_KINDS: ReadonlySet<ReadableKind> = new Set<ReadableKind>([
  'Node',
  'Namespace',
  'PersistentVolume',
  'StorageClass',
  'ClusterRole',
  'ClusterRoleBinding',
]);

/** Workloads the write calls accept. */
export type PatchableKind = 'Deployment' | 'StatefulSet' | 'DaemonSet';
export type ScalableKind = 'Deployment' | 'StatefulSet' | 'ReplicaSet';

/** What went wrong, in terms a tool can explain. `invalid-input` covers 400 and 422 answers. */
export type ClusterErrorKind = 'not-found' | 'forbidden' | 'unavailable' | 'timeout' | 'conflict' | 'invalid-input';

export interface ClusterError {
  kind: ClusterErrorKind;
  /** The API server's message (its Status `message`) or the transport error, one line. */
  message: string;
  /** The HTTP status, when there was an answer. */
  status?: number;
}

export type ClusterResult<T> = { ok: true; value: T } | { ok: false; error: ClusterError };

/** Every call takes the run's signal; the adapter adds its own per-request timeout. */
export interface CallOptions {
  signal?: AbortSignal;
}

export interface ObjectReference {
  /** Omitted for cluster-scoped kinds. */
  namespace?: string;
  name: string;
}

export interface ListOptions extends CallOptions {
  /** Omitted: every namespace (or a cluster-scoped kind). */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Stop after this many items (pages are fetched with `limit` and `continue`). Default 5000. */
  maxItems?: number;
}

export interface ListResult<T> {
  items: T[];
  /** True when the server holds more items than were read (`maxItems` reached, or a later page failed). */
  incomplete: boolean;
  /** The server's count of items left unread, when it gave one. */
  remainingItemCount?: number;
  /** A page after the first failed: `items` are what was read before it. */
  partialError?: ClusterError;
}

export interface PodLogRequest extends CallOptions {
  namespace: string;
  name: string;
  container?: string;
  /** The last terminated container instead of the running one. */
  previous?: boolean;
  tailLines?: number;
  limitBytes?: number;
  sinceSeconds?: number;
}

/** A Secret as the cluster client lets it out: never a value. */
export interface SecretSummary {
  namespace: string;
  name: string;
  type: string;
  keys: string[];
  creationTimestamp?: Date | string;
}

export interface PatchRequest<K extends PatchableKind> extends CallOptions {
  kind: K;
  namespace: string;
  name: string;
  /** `json`: an RFC 6902 operation list; `merge`: RFC 7386; `strategic`: Kubernetes strategic merge. */
  patchType: 'json' | 'merge' | 'strategic';
  patch: unknown;
  /** Server-side dry run (`dryRun=All`): validated and admitted, never persisted. */
  dryRun: boolean;
}

export interface ScaleRequest extends CallOptions {
  kind: ScalableKind;
  namespace: string;
  name: string;
  replicas: number;
  dryRun: boolean;
}

export interface DeletePodRequest extends CallOptions {
  namespace: string;
  name: string;
  dryRun: boolean;
}

/**
 * What observing the cluster takes: reads only. A read tool's context holds this and nothing
 * more, so a read tool that tries to change the cluster does not compile.
 */
export interface ReadCluster {
  /** The cluster's clock: the last API answer's `Date`, carried forward; the local clock before any answer. */
  now(): Date;
  get<K extends ReadableKind>(
    kind: K,
    reference: ObjectReference,
    options?: CallOptions,
  ): Promise<ClusterResult<KindMap[K]>>;
  list<K extends ReadableKind>(kind: K, options?: ListOptions): Promise<ClusterResult<ListResult<KindMap[K]>>>;
  /** The container log as text; `previous` of a container that never terminated is `not-found`. */
  readPodLog(request: PodLogRequest): Promise<ClusterResult<string>>;
  /** Secrets by name, type and keys. With `name`: that one secret, or `not-found`. */
  listSecrets(options: CallOptions & { namespace: string; name?: string }): Promise<ClusterResult<SecretSummary[]>>;
}

/** The calls that change the cluster: only write tools reach them, and only with an approved action. */
export interface WriteCluster {
  patch<K extends PatchableKind>(request: PatchRequest<K>): Promise<ClusterResult<KindMap[K]>>;
  /** Sets `spec.replicas` through the scale subresource; answers the replicas before and after. */
  scale(request: ScaleRequest): Promise<ClusterResult<{ previousReplicas: number; replicas: number }>>;
  deletePod(request: DeletePodRequest): Promise<ClusterResult<void>>;
}

/** The whole interface, as the adapter implements it. */
export interface Cluster extends ReadCluster, WriteCluster {}

/**
 * A view of a cluster that holds only the read calls, each passed through to `cluster` at
 * call time. What a read tool is handed, so that even a cast cannot reach a write.
 */
export function readOnlyView(cluster: ReadCluster): ReadCluster {
  return {
    now: () => cluster.now(),
    get: (kind, reference, options) => cluster.get(kind, reference, options),
    list: (kind, options) => cluster.list(kind, options),
    readPodLog: (request) => cluster.readPodLog(request),
    listSecrets: (options) => cluster.listSecrets(options),
  };
}

/** Reads an API timestamp whichever form the client gave it. */
export function toDate(value: Date | string | undefined | null): Date | undefined {
  if (value === undefined || value === null) return undefined;
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
