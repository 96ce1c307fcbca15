/**
 * The Deployment or StatefulSet whose pods a Service's selector would match (its own
 * selector agrees with the Service's on every key they share): the workload a Service with
 * no pod is waiting for.
 */
import type { ServiceDetailsData } from '../../../tools/describe-service.ts';
import type { WorkloadSummaryData } from '../../../tools/format/workloads.ts';
import type { Query } from '../query.ts';

export function workloadBehind(service: ServiceDetailsData, query: Query): WorkloadSummaryData | undefined {
  const deployments = query.data('list_deployments', { namespace: service.namespace });
  const statefulSets = query.data('list_stateful_sets', { namespace: service.namespace });
  query.barrier();
  const wanted = Object.entries(service.selector);
  return [...(deployments?.items ?? []), ...(statefulSets?.items ?? [])].find((workload) => {
    if (workload.kind === 'ReplicaSet') return false;
    const own = new Map(workload.selector.split(',').map((pair) => pair.split('=') as [string, string]));
    const shared = wanted.filter(([key]) => own.has(key));
    return shared.length > 0 && shared.every(([key, value]) => own.get(key) === value);
  });
}
