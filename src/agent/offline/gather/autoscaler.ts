/**
 * A HorizontalPodAutoscaler in focus (an HPA alert): the workload it scales is followed,
 * with the autoscaler kept for the evidence.
 */
import { WORKLOAD_KINDS, type FocusOf, type Gathered, type WorkloadKind } from '../case.ts';
import type { Gathering } from './gathering.ts';
import { missingField } from './missing.ts';

/** An HPA alert names the autoscaler: its scaleTargetRef is the workload whose replicas do not come up (or are at the limit). */
export function gatherForAutoscaler(focus: FocusOf<'autoscaler'>, gathering: Gathering): Gathered {
  const { query } = gathering;
  const autoscaler = query.data('list_horizontal_pod_autoscalers', { namespace: focus.namespace, name: focus.name })
    ?.autoscalers[0];
  query.barrier();
  if (!autoscaler)
    return {
      focus,
      notFound: `HorizontalPodAutoscaler ${focus.namespace}/${focus.name}`,
      ...missingField(
        { kind: 'HorizontalPodAutoscaler', namespace: focus.namespace, name: focus.name },
        query.get('list_horizontal_pod_autoscalers', { namespace: focus.namespace, name: focus.name }),
      ),
    };
  const kind = autoscaler.target.kind;
  if (!WORKLOAD_KINDS.includes(kind as WorkloadKind))
    return {
      focus,
      autoscaler,
      notFound: `the ${kind} ${focus.namespace}/${autoscaler.target.name} that HorizontalPodAutoscaler ${focus.name} scales`,
    };
  return {
    ...gathering.workload({
      kind: 'workload',
      workloadKind: kind as WorkloadKind,
      namespace: focus.namespace,
      name: autoscaler.target.name,
    }),
    autoscaler,
  };
}
