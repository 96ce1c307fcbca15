/**
 * The `Cluster` over `@kubernetes/client-node`: the only module that touches `KubeConfig`.
 *
 * Every request gets its own timeout joined to the caller's signal. Gets and lists are read
 * as plain JSON (json-reader.ts); logs, secrets and writes go through the generated client.
 * Reads (get, list, logs, the scale read) are retried with backoff on 429, 5xx and dropped connections,
 * honouring `Retry-After`; writes are sent once. Errors come back as values. The cluster's
 * clock is read from each answer's `Date` header so ages match what the cluster sees.
 */
import { delimiter } from 'node:path';
import { AppsV1Api, CoreV1Api, KubeConfig, type ConfigurationOptions, type V1Secret } from '@kubernetes/client-node';
import type {
  CallOptions,
  Cluster,
  KindMap,
  ListOptions,
  PatchableKind,
  ReadableKind,
  SecretSummary,
} from './cluster.ts';
import { CLUSTER_SCOPED_KINDS } from './cluster.ts';
import { createJsonReader } from './json-reader.ts';
import { loadKubeconfig, type KubeconfigSource } from './kubeconfig.ts';
import { adoptModelNames, collectionPath, objectPath, pageQuery, type Page } from './kube-operations.ts';
import { createRequestRunner } from './request-runner.ts';

export interface KubeClusterOptions {
  /** A kubeconfig file, or a list of them joined by ':' as in KUBECONFIG; without it and without `inCluster`, the default lookup ($KUBECONFIG, ~/.kube/config). */
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
  if (options.inCluster || options.kubeconfigPath) return allowPlainHttp(loadKubeconfig(kubeconfigSource(options)));
  const config = new KubeConfig();
  config.loadFromDefault();
  if (options.context) config.setCurrentContext(options.context);
  return allowPlainHttp(config);
}

/** Where `options` point: the pod's service account, or the kubeconfig files (a ':'-joined list, as KUBECONFIG holds) and context. */
export function kubeconfigSource(
  options: Pick<KubeClusterOptions, 'inCluster' | 'kubeconfigPath' | 'context'>,
): KubeconfigSource {
  if (options.inCluster) return { inCluster: true };
  const kubeconfigPaths = (options.kubeconfigPath ?? '').split(delimiter).filter((path) => path.length > 0);
  return { kubeconfigPaths, ...(options.context ? { context: options.context } : {}) };
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
    clusters: config.clusters.map((cluster) =>
      cluster.server.startsWith('http:') ? { ...cluster, skipTLSVerify: true } : cluster,
    ),
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

/** A list answer as a page: its items with the models' field names, and the ListMeta's paging fields. */
function toPage<T>(kind: ReadableKind, body: unknown): Page<T> {
  const list = (body ?? {}) as {
    items?: unknown[] | null;
    metadata?: { continue?: string; remainingItemCount?: number; resourceVersion?: string };
  };
  const items = list.items ?? [];
  for (const item of items) adoptModelNames(kind, item);
  const metadata = list.metadata ?? {};
  return {
    items: items as T[],
    metadata: {
      ...(metadata.resourceVersion !== undefined ? { resourceVersion: metadata.resourceVersion } : {}),
      ...(metadata.continue ? { _continue: metadata.continue } : {}),
      ...(metadata.remainingItemCount !== undefined ? { remainingItemCount: metadata.remainingItemCount } : {}),
    },
  };
}

/** Builds a `Cluster` from a kubeconfig, a context or the in-cluster service account. */
export function createKubeCluster(options: KubeClusterOptions = {}): Cluster {
  const config = loadKubeConfig(options);
  const apis = {
    core: config.makeApiClient(CoreV1Api),
    apps: config.makeApiClient(AppsV1Api),
  };
  const readJson = createJsonReader(config);
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
  const onHeaders = (headers: Record<string, string>): void => requests.recordHeaders(headers);

  return {
    now: () => requests.now(),

    get<K extends ReadableKind>(kind: K, reference: { namespace?: string; name: string }, callOptions?: CallOptions) {
      const namespace = CLUSTER_SCOPED_KINDS.has(kind) ? '' : (reference.namespace ?? 'default');
      return call<KindMap[K]>({
        operation: `get ${describeTarget(kind, namespace, reference.name)}`,
        invoke: async (_options, signal) => {
          const object = await readJson({
            path: objectPath(kind, { namespace, name: reference.name }),
            signal,
            onHeaders,
          });
          adoptModelNames(kind, object);
          return object as KindMap[K];
        },
        signal: callOptions?.signal,
        policy: readPolicy,
      });
    },

    list<K extends ReadableKind>(kind: K, listOptions: ListOptions = {}) {
      const namespace = CLUSTER_SCOPED_KINDS.has(kind) ? undefined : listOptions.namespace;
      const path = collectionPath(kind, namespace);
      return listPages<KindMap[K]>(
        `list ${describeTarget(kind, namespace)}`,
        async (limit, continueToken, _options, signal) => {
          const query = pageQuery({
            limit,
            ...(listOptions.labelSelector ? { labelSelector: listOptions.labelSelector } : {}),
            ...(listOptions.fieldSelector ? { fieldSelector: listOptions.fieldSelector } : {}),
            ...(continueToken ? { continueToken } : {}),
          });
          return toPage<KindMap[K]>(kind, await readJson({ path, query, signal, onHeaders }));
        },
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
          apis.core.listNamespacedSecret(
            { namespace: request.namespace, limit, ...(continueToken ? { _continue: continueToken } : {}) },
            options,
          ),
        { signal: request.signal, maxItems: 1000 },
      );
      return secrets.ok ? { ok: true, value: secrets.value.items.map(summarizeSecret) } : secrets;
    },

    patch<K extends PatchableKind>(request: {
      kind: K;
      namespace: string;
      name: string;
      patchType: 'json' | 'merge' | 'strategic';
      patch: unknown;
      dryRun: boolean;
      signal?: AbortSignal;
    }) {
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
      const current = await call({
        operation: `get scale of ${target}`,
        invoke: readers[request.kind],
        signal: request.signal,
        policy: readPolicy,
      });
      if (!current.ok) return current;
      const param = {
        ...reference,
        body: { spec: { replicas: request.replicas } },
        fieldManager: 'kubewhy',
        ...(request.dryRun ? { dryRun: 'All' } : {}),
      };
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
      return {
        ok: true,
        value: {
          previousReplicas: current.value.spec?.replicas ?? 0,
          replicas: updated.value.spec?.replicas ?? request.replicas,
        },
      };
    },

    async deletePod(request) {
      const result = await call({
        operation: `${request.dryRun ? 'dry-run ' : ''}delete Pod ${request.namespace}/${request.name}`,
        invoke: (options) =>
          apis.core.deleteNamespacedPod(
            { namespace: request.namespace, name: request.name, ...(request.dryRun ? { dryRun: 'All' } : {}) },
            options,
          ),
        signal: request.signal,
        policy: writePolicy,
      });
      return result.ok ? { ok: true, value: undefined } : result;
    },
  };
}
