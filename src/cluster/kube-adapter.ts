/**
 * The `Cluster` over `@kubernetes/client-node`: the only module that touches `KubeConfig`.
 *
 * Every request gets its own timeout joined to the caller's signal. Reads (get, list,
 * logs, the scale read) are retried with backoff on 429, 5xx and dropped connections,
 * honouring `Retry-After`; writes are sent once. Errors come back as values. The cluster's
 * clock is read from each answer's `Date` header so ages match what the cluster sees.
 */
import { AppsV1Api, AutoscalingV2Api, BatchV1Api, CoreV1Api, KubeConfig, NetworkingV1Api, StorageV1Api, type ConfigurationOptions, type V1Secret } from '@kubernetes/client-node';
import type { CallOptions, Cluster, KindMap, ListOptions, PatchableKind, ReadableKind, SecretSummary } from './cluster.ts';
import { CLUSTER_SCOPED_KINDS } from './cluster.ts';
import { KIND_OPERATIONS, type KubeApis } from './kube-operations.ts';
import { createRequestRunner } from './request-runner.ts';

export interface KubeClusterOptions {
  /** A kubeconfig file; without it and without `inCluster`, the default lookup ($KUBECONFIG, ~/.kube/config). */
  kubeconfigPath?: string;
  /** A context of that kubeconfig; its current context otherwise. */
  context?: string;
  /** Use the pod's service account (token and CA under /var/run/secrets/kubernetes.io). */
  inCluster?: boolean;
  /** Bound of one HTTP request. Default 10 000 ms. */
  requestTimeoutMs?: number;
  /** Extra attempts for reads. Default 3. */
  retries?: number;
  /** First backoff step; doubles each retry, with jitter. Default 200 ms. */
  retryBaseDelayMs?: number;
  /** Longest single wait, `Retry-After` included. Default 5 000 ms. */
  retryMaxDelayMs?: number;
  /** `limit` of each list page. Default 500. */
  pageSize?: number;
}

const PATCH_CONTENT_TYPES = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
} as const;


function loadKubeConfig(options: KubeClusterOptions): KubeConfig {
  const config = new KubeConfig();
  if (options.inCluster) config.loadFromCluster();
  else if (options.kubeconfigPath) config.loadFromFile(options.kubeconfigPath);
  else config.loadFromDefault();
  if (options.context) config.setCurrentContext(options.context);
  return allowPlainHttp(config);
}

/**
 * client-node refuses an `http:` server unless `skipTLSVerify` is set, though plain HTTP has
 * no TLS to verify (kubectl accepts it as is). Local API servers such as the mock cluster
 * serve plain HTTP, so the flag is set for those clusters only.
 */
function allowPlainHttp(config: KubeConfig): KubeConfig {
  if (!config.clusters.some((cluster) => cluster.server.startsWith('http:') && !cluster.skipTLSVerify)) return config;
  const adjusted = new KubeConfig();
  adjusted.loadFromOptions({
    clusters: config.clusters.map((cluster) => (cluster.server.startsWith('http:') ? { ...cluster, skipTLSVerify: true } : cluster)),
    users: config.users,
    contexts: config.contexts,
    currentContext: config.getCurrentContext(),
  });
  return adjusted;
}

function describeTarget(kind: string, namespace: string | undefined, name?: string): string {
  const path = [namespace, name].filter((part) => part !== undefined && part !== '').join('/');
  return path ? `${kind} ${path}` : kind;
}

function summarizeSecret(secret: V1Secret): SecretSummary {
  // Only names leave this function: the values are dropped here, inside the cluster client.
  const keys = new Set([...Object.keys(secret.data ?? {}), ...Object.keys(secret.stringData ?? {})]);
  return {
    namespace: secret.metadata?.namespace ?? '',
    name: secret.metadata?.name ?? '',
    type: secret.type ?? 'Opaque',
    keys: [...keys].sort(),
    creationTimestamp: secret.metadata?.creationTimestamp,
  };
}

/** Builds a `Cluster` from a kubeconfig, a context or the in-cluster service account. */
export function createKubeCluster(options: KubeClusterOptions = {}): Cluster {
  const config = loadKubeConfig(options);
  const apis: KubeApis = {
    core: config.makeApiClient(CoreV1Api),
    apps: config.makeApiClient(AppsV1Api),
    batch: config.makeApiClient(BatchV1Api),
    networking: config.makeApiClient(NetworkingV1Api),
    storage: config.makeApiClient(StorageV1Api),
    autoscaling: config.makeApiClient(AutoscalingV2Api),
  };
  const requests = createRequestRunner({
    timeoutMs: options.requestTimeoutMs ?? 10_000,
    pageSize: options.pageSize ?? 500,
    readPolicy: {
      retries: options.retries ?? 3,
      baseDelayMs: options.retryBaseDelayMs ?? 200,
      maxDelayMs: options.retryMaxDelayMs ?? 5_000,
    },
  });
  const { call, listPages, readPolicy, writePolicy } = requests;

  return {
    now: () => requests.now(),

    get<K extends ReadableKind>(kind: K, reference: { namespace?: string; name: string }, callOptions?: CallOptions) {
      const namespace = CLUSTER_SCOPED_KINDS.has(kind) ? '' : (reference.namespace ?? 'default');
      const operations = KIND_OPERATIONS[kind];
      return call<KindMap[K]>({
        operation: `get ${describeTarget(kind, namespace, reference.name)}`,
        invoke: (options) => operations.read(apis, { namespace, name: reference.name }, options),
        signal: callOptions?.signal,
        policy: readPolicy,
      });
    },

    list<K extends ReadableKind>(kind: K, listOptions: ListOptions = {}) {
      const namespace = CLUSTER_SCOPED_KINDS.has(kind) ? undefined : listOptions.namespace;
      const operations = KIND_OPERATIONS[kind];
      return listPages<KindMap[K]>(
        `list ${describeTarget(kind, namespace)}`,
        (limit, continueToken, options) =>
          operations.list(
            apis,
            {
              limit,
              ...(namespace !== undefined ? { namespace } : {}),
              ...(listOptions.labelSelector ? { labelSelector: listOptions.labelSelector } : {}),
              ...(listOptions.fieldSelector ? { fieldSelector: listOptions.fieldSelector } : {}),
              ...(continueToken ? { _continue: continueToken } : {}),
            },
            options,
          ),
        listOptions,
      );
    },

    readPodLog(request) {
      const which = request.previous ? 'previous log' : 'log';
      return call({
        operation: `read ${which} of Pod ${request.namespace}/${request.name}${request.container ? ` container ${request.container}` : ''}`,
        invoke: (options) =>
          apis.core.readNamespacedPodLog(
            {
              namespace: request.namespace,
              name: request.name,
              container: request.container,
              previous: request.previous,
              tailLines: request.tailLines,
              limitBytes: request.limitBytes,
              sinceSeconds: request.sinceSeconds,
            },
            options,
          ),
        signal: request.signal,
        policy: readPolicy,
      });
    },

    async listSecrets(request) {
      if (request.name !== undefined) {
        const name = request.name;
        const secret = await call({
          operation: `get Secret ${request.namespace}/${name}`,
          invoke: (options) => apis.core.readNamespacedSecret({ namespace: request.namespace, name }, options),
          signal: request.signal,
          policy: readPolicy,
        });
        return secret.ok ? { ok: true, value: [summarizeSecret(secret.value)] } : secret;
      }
      const secrets = await listPages(
        `list Secret ${request.namespace}`,
        (limit, continueToken, options) =>
          apis.core.listNamespacedSecret({ namespace: request.namespace, limit, ...(continueToken ? { _continue: continueToken } : {}) }, options),
        { signal: request.signal, maxItems: 1000 },
      );
      return secrets.ok ? { ok: true, value: secrets.value.items.map(summarizeSecret) } : secrets;
    },

    patch<K extends PatchableKind>(request: { kind: K; namespace: string; name: string; patchType: 'json' | 'merge' | 'strategic'; patch: unknown; dryRun: boolean; signal?: AbortSignal }) {
      const param = {
        namespace: request.namespace,
        name: request.name,
        body: request.patch as object,
        fieldManager: 'kubewhy',
        ...(request.dryRun ? { dryRun: 'All' } : {}),
      };
      const invokers: { [P in PatchableKind]: (options: ConfigurationOptions) => Promise<KindMap[P]> } = {
        Deployment: (options) => apis.apps.patchNamespacedDeployment(param, options),
        StatefulSet: (options) => apis.apps.patchNamespacedStatefulSet(param, options),
        DaemonSet: (options) => apis.apps.patchNamespacedDaemonSet(param, options),
      };
      return call<KindMap[K]>({
        operation: `${request.dryRun ? 'dry-run ' : ''}patch ${describeTarget(request.kind, request.namespace, request.name)}`,
        invoke: invokers[request.kind] as (options: ConfigurationOptions) => Promise<KindMap[K]>,
        signal: request.signal,
        policy: writePolicy,
        contentType: PATCH_CONTENT_TYPES[request.patchType],
      });
    },

    async scale(request) {
      const reference = { namespace: request.namespace, name: request.name };
      const target = describeTarget(request.kind, request.namespace, request.name);
      const readers = {
        Deployment: (options: ConfigurationOptions) => apis.apps.readNamespacedDeploymentScale(reference, options),
        StatefulSet: (options: ConfigurationOptions) => apis.apps.readNamespacedStatefulSetScale(reference, options),
        ReplicaSet: (options: ConfigurationOptions) => apis.apps.readNamespacedReplicaSetScale(reference, options),
      };
      const current = await call({ operation: `get scale of ${target}`, invoke: readers[request.kind], signal: request.signal, policy: readPolicy });
      if (!current.ok) return current;
      const param = { ...reference, body: { spec: { replicas: request.replicas } }, fieldManager: 'kubewhy', ...(request.dryRun ? { dryRun: 'All' } : {}) };
      const writers = {
        Deployment: (options: ConfigurationOptions) => apis.apps.patchNamespacedDeploymentScale(param, options),
        StatefulSet: (options: ConfigurationOptions) => apis.apps.patchNamespacedStatefulSetScale(param, options),
        ReplicaSet: (options: ConfigurationOptions) => apis.apps.patchNamespacedReplicaSetScale(param, options),
      };
      const updated = await call({
        operation: `${request.dryRun ? 'dry-run ' : ''}scale ${target}`,
        invoke: writers[request.kind],
        signal: request.signal,
        policy: writePolicy,
        contentType: PATCH_CONTENT_TYPES.merge,
      });
      if (!updated.ok) return updated;
      return { ok: true, value: { previousReplicas: current.value.spec?.replicas ?? 0, replicas: updated.value.spec?.replicas ?? request.replicas } };
    },

    async deletePod(request) {
      const result = await call({
        operation: `${request.dryRun ? 'dry-run ' : ''}delete Pod ${request.namespace}/${request.name}`,
        invoke: (options) =>
          apis.core.deleteNamespacedPod({ namespace: request.namespace, name: request.name, ...(request.dryRun ? { dryRun: 'All' } : {}) }, options),
        signal: request.signal,
        policy: writePolicy,
      });
      return result.ok ? { ok: true, value: undefined } : result;
    },
  };
}
