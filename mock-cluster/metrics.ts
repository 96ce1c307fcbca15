/**
 * `/metrics`: the cluster's objects as kube-state-metrics would export them, so a real
 * Prometheus can scrape the mock cluster and evaluate the alert rules SREs run
 * (kubernetes-mixin). Values are read from the current objects on every scrape, so writes
 * (scale, rollout undo) show at the next one. Served beside the API, outside fault
 * injection and the request log: in a cluster the exporter is its own process, not the API
 * server.
 */
import type { ServerResponse } from 'node:http';
import { AUTOSCALER_METRICS, collectAutoscalerMetrics } from './metrics-autoscalers.ts';
import { EXPOSITION_CONTENT_TYPE, formatExposition, type MetricSample } from './metrics-format.ts';
import { collectNodeMetrics, NODE_METRICS } from './metrics-nodes.ts';
import { collectPodMetrics, POD_METRICS } from './metrics-pods.ts';
import { collectServiceMetrics, SERVICE_METRICS } from './metrics-services.ts';
import { collectStorageMetrics, STORAGE_METRICS } from './metrics-storage.ts';
import { collectQuotaMetrics, QUOTA_METRICS } from './metrics-quotas.ts';
import { collectDisruptionMetrics, DISRUPTION_METRICS } from './metrics-disruption.ts';
import { collectWorkloadMetrics, WORKLOAD_METRICS } from './metrics-workloads.ts';
import type { ClusterState } from './state.ts';
import type { KubeObject } from './types.ts';

const DEFINITIONS = {
  ...POD_METRICS,
  ...WORKLOAD_METRICS,
  ...NODE_METRICS,
  ...STORAGE_METRICS,
  ...SERVICE_METRICS,
  ...QUOTA_METRICS,
  ...AUTOSCALER_METRICS,
  ...DISRUPTION_METRICS,
};

/** Every family's samples for the objects `list` returns by apiVersion and kind. */
export function collectClusterMetrics(
  list: (apiVersion: string, kind: string) => readonly KubeObject[],
  clockOffsetMs = 0,
): MetricSample[] {
  return [
    ...collectPodMetrics(list('v1', 'Pod')),
    ...collectWorkloadMetrics(
      {
        deployments: list('apps/v1', 'Deployment'),
        replicaSets: list('apps/v1', 'ReplicaSet'),
        statefulSets: list('apps/v1', 'StatefulSet'),
        daemonSets: list('apps/v1', 'DaemonSet'),
        jobs: list('batch/v1', 'Job'),
        cronJobs: list('batch/v1', 'CronJob'),
      },
      clockOffsetMs,
    ),
    ...collectNodeMetrics({ nodes: list('v1', 'Node'), namespaces: list('v1', 'Namespace') }),
    ...collectStorageMetrics({ claims: list('v1', 'PersistentVolumeClaim'), volumes: list('v1', 'PersistentVolume') }),
    ...collectServiceMetrics({ services: list('v1', 'Service'), endpoints: list('v1', 'Endpoints') }),
    ...collectQuotaMetrics(list('v1', 'ResourceQuota')),
    ...collectAutoscalerMetrics(list('autoscaling/v2', 'HorizontalPodAutoscaler')),
    ...collectDisruptionMetrics(list('policy/v1', 'PodDisruptionBudget')),
  ];
}

/** The exposition text for the cluster's current objects. */
export function renderMetrics(state: Pick<ClusterState, 'registry' | 'store' | 'now'>): string {
  const list = (apiVersion: string, kind: string): readonly KubeObject[] => {
    const type = state.registry.forKind(apiVersion, kind);
    return type ? state.store.list(type) : [];
  };
  // Timestamps move to real time, keeping their age on the scenario's clock.
  return formatExposition(DEFINITIONS, collectClusterMetrics(list, Date.now() - state.now()));
}

/** Answers a scrape: 200 with the exposition, or 405 for anything but GET and HEAD. */
export function serveMetrics(input: {
  state: Pick<ClusterState, 'registry' | 'store' | 'now'>;
  method: string | undefined;
  response: ServerResponse;
}): void {
  const { state, method, response } = input;
  if (method !== 'GET' && method !== 'HEAD') {
    response.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain' });
    response.end('use GET\n');
    return;
  }
  const body = renderMetrics(state);
  response.writeHead(200, { 'Content-Type': EXPOSITION_CONTENT_TYPE, 'Content-Length': Buffer.byteLength(body) });
  response.end(method === 'HEAD' ? undefined : body);
}
