/**
 * The `@kubernetes/client-node` calls behind each kind: one read and one list per kind,
 * namespaced or across namespaces. The adapter wraps these with timeouts, retries and
 * error mapping; this table only says which generated method serves which kind.
 */
import type {
  AppsV1Api,
  AutoscalingV2Api,
  BatchV1Api,
  ConfigurationOptions,
  CoreV1Api,
  NetworkingV1Api,
  StorageV1Api,
  V1ListMeta,
} from '@kubernetes/client-node';
import type { KindMap, ReadableKind } from './cluster.ts';

export interface KubeApis {
  core: CoreV1Api;
  apps: AppsV1Api;
  batch: BatchV1Api;
  networking: NetworkingV1Api;
  storage: StorageV1Api;
  autoscaling: AutoscalingV2Api;
}

export interface PageRequest {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  limit: number;
  _continue?: string;
}

export interface Page<T> {
  items: T[];
  metadata?: V1ListMeta;
}

interface KindOperations<T> {
  read(apis: KubeApis, reference: { namespace: string; name: string }, options: ConfigurationOptions): Promise<T>;
  list(apis: KubeApis, request: PageRequest, options: ConfigurationOptions): Promise<Page<T>>;
}

type OperationTable = { [K in ReadableKind]: KindOperations<KindMap[K]> };

/** The query every list call sends, without the namespace. */
function query(request: PageRequest): Omit<PageRequest, 'namespace'> {
  const { namespace: _namespace, ...rest } = request;
  return rest;
}

/**
 * Lists in one namespace when given one, across all otherwise.
 * The generated request types differ only in `namespace`, so one helper serves every kind.
 */
function either<T>(
  namespaced: (param: PageRequest & { namespace: string }) => Promise<Page<T>>,
  everywhere: (param: Omit<PageRequest, 'namespace'>) => Promise<Page<T>>,
  request: PageRequest,
): Promise<Page<T>> {
  return request.namespace === undefined ? everywhere(query(request)) : namespaced({ ...query(request), namespace: request.namespace });
}

export const KIND_OPERATIONS: OperationTable = {
  Pod: {
    read: (apis, reference, options) => apis.core.readNamespacedPod(reference, options),
    list: (apis, request, options) =>
      either((param) => apis.core.listNamespacedPod(param, options), (param) => apis.core.listPodForAllNamespaces(param, options), request),
  },
  Deployment: {
    read: (apis, reference, options) => apis.apps.readNamespacedDeployment(reference, options),
    list: (apis, request, options) =>
      either((param) => apis.apps.listNamespacedDeployment(param, options), (param) => apis.apps.listDeploymentForAllNamespaces(param, options), request),
  },
  ReplicaSet: {
    read: (apis, reference, options) => apis.apps.readNamespacedReplicaSet(reference, options),
    list: (apis, request, options) =>
      either((param) => apis.apps.listNamespacedReplicaSet(param, options), (param) => apis.apps.listReplicaSetForAllNamespaces(param, options), request),
  },
  StatefulSet: {
    read: (apis, reference, options) => apis.apps.readNamespacedStatefulSet(reference, options),
    list: (apis, request, options) =>
      either((param) => apis.apps.listNamespacedStatefulSet(param, options), (param) => apis.apps.listStatefulSetForAllNamespaces(param, options), request),
  },
  DaemonSet: {
    read: (apis, reference, options) => apis.apps.readNamespacedDaemonSet(reference, options),
    list: (apis, request, options) =>
      either((param) => apis.apps.listNamespacedDaemonSet(param, options), (param) => apis.apps.listDaemonSetForAllNamespaces(param, options), request),
  },
  ControllerRevision: {
    read: (apis, reference, options) => apis.apps.readNamespacedControllerRevision(reference, options),
    list: (apis, request, options) =>
      either(
        (param) => apis.apps.listNamespacedControllerRevision(param, options),
        (param) => apis.apps.listControllerRevisionForAllNamespaces(param, options),
        request,
      ),
  },
  Job: {
    read: (apis, reference, options) => apis.batch.readNamespacedJob(reference, options),
    list: (apis, request, options) =>
      either((param) => apis.batch.listNamespacedJob(param, options), (param) => apis.batch.listJobForAllNamespaces(param, options), request),
  },
  CronJob: {
    read: (apis, reference, options) => apis.batch.readNamespacedCronJob(reference, options),
    list: (apis, request, options) =>
      either((param) => apis.batch.listNamespacedCronJob(param, options), (param) => apis.batch.listCronJobForAllNamespaces(param, options), request),
  },
  Node: {
    read: (apis, reference, options) => apis.core.readNode({ name: reference.name }, options),
    list: (apis, request, options) => apis.core.listNode(query(request), options),
  },
  Namespace: {
    read: (apis, reference, options) => apis.core.readNamespace({ name: reference.name }, options),
    list: (apis, request, options) => apis.core.listNamespace(query(request), options),
  },
  Service: {
    read: (apis, reference, options) => apis.core.readNamespacedService(reference, options),
    list: (apis, request, options) =>
      either((param) => apis.core.listNamespacedService(param, options), (param) => apis.core.listServiceForAllNamespaces(param, options), request),
  },
  Endpoints: {
    read: (apis, reference, options) => apis.core.readNamespacedEndpoints(reference, options),
    list: (apis, request, options) =>
      either((param) => apis.core.listNamespacedEndpoints(param, options), (param) => apis.core.listEndpointsForAllNamespaces(param, options), request),
  },
  Event: {
    read: (apis, reference, options) => apis.core.readNamespacedEvent(reference, options),
    list: (apis, request, options) =>
      either((param) => apis.core.listNamespacedEvent(param, options), (param) => apis.core.listEventForAllNamespaces(param, options), request),
  },
  ConfigMap: {
    read: (apis, reference, options) => apis.core.readNamespacedConfigMap(reference, options),
    list: (apis, request, options) =>
      either((param) => apis.core.listNamespacedConfigMap(param, options), (param) => apis.core.listConfigMapForAllNamespaces(param, options), request),
  },
  PersistentVolumeClaim: {
    read: (apis, reference, options) => apis.core.readNamespacedPersistentVolumeClaim(reference, options),
    list: (apis, request, options) =>
      either(
        (param) => apis.core.listNamespacedPersistentVolumeClaim(param, options),
        (param) => apis.core.listPersistentVolumeClaimForAllNamespaces(param, options),
        request,
      ),
  },
  PersistentVolume: {
    read: (apis, reference, options) => apis.core.readPersistentVolume({ name: reference.name }, options),
    list: (apis, request, options) => apis.core.listPersistentVolume(query(request), options),
  },
  StorageClass: {
    read: (apis, reference, options) => apis.storage.readStorageClass({ name: reference.name }, options),
    list: (apis, request, options) => apis.storage.listStorageClass(query(request), options),
  },
  ResourceQuota: {
    read: (apis, reference, options) => apis.core.readNamespacedResourceQuota(reference, options),
    list: (apis, request, options) =>
      either((param) => apis.core.listNamespacedResourceQuota(param, options), (param) => apis.core.listResourceQuotaForAllNamespaces(param, options), request),
  },
  LimitRange: {
    read: (apis, reference, options) => apis.core.readNamespacedLimitRange(reference, options),
    list: (apis, request, options) =>
      either((param) => apis.core.listNamespacedLimitRange(param, options), (param) => apis.core.listLimitRangeForAllNamespaces(param, options), request),
  },
  NetworkPolicy: {
    read: (apis, reference, options) => apis.networking.readNamespacedNetworkPolicy(reference, options),
    list: (apis, request, options) =>
      either(
        (param) => apis.networking.listNamespacedNetworkPolicy(param, options),
        (param) => apis.networking.listNetworkPolicyForAllNamespaces(param, options),
        request,
      ),
  },
  HorizontalPodAutoscaler: {
    read: (apis, reference, options) => apis.autoscaling.readNamespacedHorizontalPodAutoscaler(reference, options),
    list: (apis, request, options) =>
      either(
        (param) => apis.autoscaling.listNamespacedHorizontalPodAutoscaler(param, options),
        (param) => apis.autoscaling.listHorizontalPodAutoscalerForAllNamespaces(param, options),
        request,
      ),
  },
};
