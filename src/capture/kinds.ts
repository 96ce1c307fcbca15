/**
 * What a capture reads: the kinds the tools read, each with the apiVersion the API server
 * prints for it (list items come without one), in the order cluster.yaml lists them.
 * Secrets are read apart, as names and keys only (secrets.ts).
 */
import type { ReadableKind } from '../cluster/cluster.ts';

/** Namespaced kinds read from the captured namespace, workloads first. */
export const NAMESPACED_KINDS = [
  'Deployment',
  'ReplicaSet',
  'StatefulSet',
  'DaemonSet',
  'ControllerRevision',
  'Job',
  'CronJob',
  'Pod',
  'Service',
  'Endpoints',
  'ConfigMap',
  'PersistentVolumeClaim',
  'HorizontalPodAutoscaler',
  'NetworkPolicy',
  'Ingress',
  'ResourceQuota',
  'LimitRange',
  'Event',
] as const satisfies readonly ReadableKind[];

/** Cluster-scoped kinds read whole (bounded): what scheduling and storage diagnoses read. */
export const CLUSTER_KINDS = ['Node', 'StorageClass', 'PersistentVolume'] as const satisfies readonly ReadableKind[];

export const API_VERSIONS: Record<ReadableKind, string> = {
  Namespace: 'v1',
  Node: 'v1',
  Pod: 'v1',
  Service: 'v1',
  Endpoints: 'v1',
  Event: 'v1',
  ConfigMap: 'v1',
  PersistentVolumeClaim: 'v1',
  PersistentVolume: 'v1',
  ResourceQuota: 'v1',
  LimitRange: 'v1',
  Deployment: 'apps/v1',
  ReplicaSet: 'apps/v1',
  StatefulSet: 'apps/v1',
  DaemonSet: 'apps/v1',
  ControllerRevision: 'apps/v1',
  Job: 'batch/v1',
  CronJob: 'batch/v1',
  StorageClass: 'storage.k8s.io/v1',
  NetworkPolicy: 'networking.k8s.io/v1',
  Ingress: 'networking.k8s.io/v1',
  HorizontalPodAutoscaler: 'autoscaling/v2',
  ServiceAccount: 'v1',
  Role: 'rbac.authorization.k8s.io/v1',
  RoleBinding: 'rbac.authorization.k8s.io/v1',
  ClusterRole: 'rbac.authorization.k8s.io/v1',
  ClusterRoleBinding: 'rbac.authorization.k8s.io/v1',
};

/**
 * The cluster client renames a few fields to its models' names (`default` → `_default` in a
 * LimitRange, `from` → `_from` in a NetworkPolicy's ingress rules); a capture writes them
 * back as the API server and kubectl print them.
 */
export function restoreApiNames(kind: ReadableKind, object: Record<string, unknown>): void {
  const spec = object['spec'] as Record<string, unknown> | undefined;
  const rename = (record: Record<string, unknown>, from: string, to: string): void => {
    if (!Object.hasOwn(record, from)) return;
    record[to] = record[from];
    delete record[from];
  };
  if (kind === 'LimitRange')
    for (const limit of (spec?.['limits'] as Record<string, unknown>[] | undefined) ?? [])
      rename(limit, '_default', 'default');
  if (kind === 'NetworkPolicy')
    for (const rule of (spec?.['ingress'] as Record<string, unknown>[] | undefined) ?? [])
      rename(rule, '_from', 'from');
}
