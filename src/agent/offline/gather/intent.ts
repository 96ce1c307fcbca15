/**
 * Whether the state in focus is one a person chose (intent/deliberate-state.ts): a
 * workload at 0 replicas with a note that says why, a suspended CronJob, a paused rollout.
 * Read from what the workload tools already returned; a Service with no pod is checked
 * against the workload behind it.
 */
import type { ServiceDetailsData } from '../../../tools/describe-service.ts';
import type { WorkloadSummaryData } from '../../../tools/format/workloads.ts';
import type { CronJobSummaryData } from '../../../tools/list-cron-jobs.ts';
import type { Gathered } from '../case.ts';
import { readDeliberateState, type Deliberate } from '../intent/deliberate-state.ts';
import type { Query } from '../query.ts';
import { workloadBehind } from './workload-behind.ts';

export function intentOfWorkload(summary: WorkloadSummaryData): Deliberate | undefined {
  return readDeliberateState({
    kind: summary.kind,
    namespace: summary.namespace,
    name: summary.name,
    desired: summary.desired,
    ...(summary.paused ? { paused: true } : {}),
    ...(summary.partition ? { partition: summary.partition } : {}),
    ...(summary.updated !== undefined ? { updated: summary.updated } : {}),
    notes: summary.notes ?? {},
  });
}

export function intentOfCronJob(cronJob: CronJobSummaryData): Deliberate | undefined {
  return readDeliberateState({
    kind: 'CronJob',
    namespace: cronJob.namespace,
    name: cronJob.name,
    suspended: cronJob.suspended,
    notes: cronJob.notes ?? {},
  });
}

/** A Service that selects no pod because the workload behind it is at 0 on purpose: that workload, and why. */
export function intentBehindService(
  service: ServiceDetailsData,
  query: Query,
): Pick<Gathered, 'workload' | 'intent'> | undefined {
  if (Object.keys(service.selector).length === 0 || service.pods.total > 0) return undefined;
  const owner = workloadBehind(service, query);
  const intent = owner ? intentOfWorkload(owner) : undefined;
  if (!owner || !intent || owner.kind === 'ReplicaSet') return undefined;
  return {
    workload: { kind: owner.kind, namespace: owner.namespace, name: owner.name },
    intent: { ...intent, detail: `Service ${service.namespace}/${service.name} has no endpoints because of it` },
  };
}
