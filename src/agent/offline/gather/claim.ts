/**
 * A PersistentVolumeClaim in focus (a volume alert): the pod that mounts it is followed.
 */
import type { FocusOf, Gathered } from '../case.ts';
import { pickWorstPod } from '../pods.ts';
import type { Gathering } from './gathering.ts';

export function gatherForClaim(focus: FocusOf<'pvc'>, gathering: Gathering): Gathered {
  const { query } = gathering;
  const pods = query.data('list_pods', { namespace: focus.namespace });
  query.barrier();
  // StatefulSet claims are named <template>-<pod>: find the pod that mounts this one.
  const user =
    (pods?.pods ?? []).find((pod) => focus.name.endsWith(`-${pod.name}`)) ??
    pickWorstPod((pods?.pods ?? []).filter((pod) => pod.phase === 'Pending'));
  if (!user) return { focus, notFound: `a pod using claim ${focus.namespace}/${focus.name}` };
  return gathering.pod({ namespace: user.namespace, name: user.name }, { focus });
}
