/**
 * A pod the alert named that is gone (replaced since): its workload, guessed from the
 * pod's name and a sibling's owner, is followed instead; none found, the pod is missing.
 */
import type { PodSummaryData } from '../../../tools/format/pod-status.ts';
import type { Gathered, Missing } from '../case.ts';
import { workloadOfPod } from '../pods.ts';
import type { Gathering, PodTarget } from './gathering.ts';
import { missingField } from './missing.ts';

const POD_NAME_SUFFIX = /^(.+?)(-[a-z0-9]{8,10})?-[a-z0-9]{5}$/;

/** The pod the alert named is gone (replaced): follow its workload, guessed from the name. */
export function podGone(target: PodTarget, known: Gathered, gathering: Gathering): Gathered {
  const { query } = gathering;
  const pods = query.data('list_pods', { namespace: target.namespace });
  query.barrier();
  const prefix = POD_NAME_SUFFIX.exec(target.name)?.[1];
  const sibling = (pods?.pods ?? []).find((pod) => prefix !== undefined && pod.name.startsWith(`${prefix}-`));
  const workload = sibling ? workloadOfPod(sibling) : undefined;
  if (!workload)
    return {
      ...known,
      notFound: `pod ${target.namespace}/${target.name}`,
      ...missingField(
        { kind: 'Pod', namespace: target.namespace, name: target.name, ...workloadsOf(target.namespace, pods?.pods) },
        query.get('describe_pod', { namespace: target.namespace, name: target.name }),
      ),
    };
  return {
    ...gathering.workload({
      kind: 'workload',
      workloadKind: workload.workloadKind,
      namespace: target.namespace,
      name: workload.name,
    }),
    replacedPod: target.name,
  };
}

/** What a missing pod's namespace runs instead: its workloads (and bare pods), by name. */
function workloadsOf(
  namespace: string,
  pods: readonly PodSummaryData[] | undefined,
): Pick<Missing, 'existing' | 'existingLabel'> {
  if (!pods) return {};
  const names = [...new Set(pods.map((pod) => workloadOfPod(pod)?.name ?? pod.name))].sort().slice(0, 10);
  return { existing: names, existingLabel: `workloads in ${namespace}` };
}
