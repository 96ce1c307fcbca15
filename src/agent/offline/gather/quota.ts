/**
 * A ResourceQuota in focus (a quota alert): the workload whose controller reports the
 * quota (or a LimitRange) refused its pods; none, the namespace is searched.
 */
import type { FocusOf, Gathered, WorkloadKind } from '../case.ts';
import { workloadOfController } from '../pods.ts';
import type { Query } from '../query.ts';
import { isQuotaRefusal } from '../signals/index.ts';
import type { Gathering } from './gathering.ts';

/** A quota alert names the quota, not its victim: the controller that cannot create pods says who it is. */
export function gatherForQuota(focus: FocusOf<'quota'>, gathering: Gathering): Gathered {
  const { query } = gathering;
  const workload = workloadRefusedByQuota({ namespace: focus.namespace, quota: focus.name }, query);
  if (!workload) return gathering.area({ kind: 'namespace', namespace: focus.namespace });
  return gathering.workload({
    kind: 'workload',
    workloadKind: workload.workloadKind,
    namespace: focus.namespace,
    name: workload.name,
  });
}

/** The workload whose controller reports that a quota or LimitRange refused its pods, if any. */
export function workloadRefusedByQuota(
  input: { namespace: string; quota?: string },
  query: Query,
): { workloadKind: WorkloadKind; name: string } | undefined {
  const events = query.data('list_events', { namespace: input.namespace, type: 'Warning' });
  query.barrier();
  const refused = (events?.events ?? []).filter((event) => isQuotaRefusal(event.message));
  const refusal =
    (input.quota ? refused.find((event) => event.message.includes(input.quota!)) : undefined) ?? refused[0];
  return refusal ? workloadOfController(refusal.object) : undefined;
}
