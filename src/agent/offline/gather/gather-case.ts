/**
 * The engine's investigation procedure: from the trigger to a focus (locate-focus.ts), then
 * the investigator of that kind of focus, which follows the trail to the failing pod and
 * its workload and reads the facts a diagnosis needs. Every fact comes from a tool call;
 * independent calls are asked for together so they run in one turn.
 */
import type { Trigger } from '../../trigger.ts';
import { describeMissing } from '../absent.ts';
import type { Case, Focus, FocusOf, Gathered } from '../case.ts';
import type { Query } from '../query.ts';
import { countFailingWorkloads, gatherForArea } from './area.ts';
import { gatherForAutoscaler } from './autoscaler.ts';
import { gatherForClaim } from './claim.ts';
import type { Gathering } from './gathering.ts';
import { locateFocus } from './locate-focus.ts';
import { gatherForNode } from './node.ts';
import { gatherForPod } from './pod.ts';
import { gatherForQuota } from './quota.ts';
import { gatherForService } from './service.ts';
import { gatherForWorkload } from './workload.ts';

export function gatherCase(trigger: Trigger, query: Query): Case {
  const focus = locateFocus(trigger, query);
  return { ...gatherForFocus(focus, createGathering(query)), clusterNow: query.clusterNow() };
}

/** The gathering steps bound to one query: what the investigators hand over to, and what the chain gathers a backend with. */
export function createGathering(query: Query): Gathering {
  const gathering: Gathering = {
    query,
    pod: (target, known, options) => gatherForPod(target, known, gathering, options),
    workload: (focus) => gatherForWorkload(focus, gathering),
    node: (focus) => gatherForNode(focus, gathering),
    service: (focus) => gatherForService(focus, gathering),
    area: (focus) => gatherForArea(focus, gathering),
  };
  return gathering;
}

type Investigator<Kind extends Focus['kind']> = (focus: FocusOf<Kind>, gathering: Gathering) => Gathered;

/** Where the investigation starts, by the kind of focus. */
const INVESTIGATORS: { [Kind in Focus['kind']]: Investigator<Kind> } = {
  pod: (focus, gathering) => gathering.pod(focus, { focus }),
  workload: (focus, gathering) => gathering.workload(focus),
  node: (focus, gathering) => gathering.node(focus),
  service: (focus, gathering) => gathering.service(focus),
  pvc: gatherForClaim,
  quota: gatherForQuota,
  autoscaler: gatherForAutoscaler,
  absent: gatherForAbsent,
  namespace: gatherForReportedArea,
  cluster: gatherForReportedArea,
};

function gatherForFocus(focus: Focus, gathering: Gathering): Gathered {
  const investigate = INVESTIGATORS[focus.kind] as Investigator<Focus['kind']>;
  return investigate(focus, gathering);
}

/** The inventory the sentence was matched against has no such object: that is the answer. */
function gatherForAbsent(focus: FocusOf<'absent'>): Gathered {
  return { focus, notFound: describeMissing(focus.missing), missing: focus.missing };
}

/** A namespace or the cluster reported on: the words that matched nothing stay with the case, whatever it leads to (a pod, a node). */
function gatherForReportedArea(focus: FocusOf<'namespace' | 'cluster'>, gathering: Gathering): Gathered {
  return {
    ...gathering.area(focus),
    failingWorkloads: countFailingWorkloads(focus, gathering.query),
    ...(focus.unmatched !== undefined
      ? { unmatched: { words: focus.unmatched, ...(focus.kind === 'namespace' ? { namespace: focus.namespace } : {}) } }
      : {}),
  };
}
