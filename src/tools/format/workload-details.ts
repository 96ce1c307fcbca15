/**
 * One workload's details as the list tools add them when asked for a name: its pod
 * template, the pods its selector matches, and its own events, read together.
 */
import type { V1PodSpec } from '@kubernetes/client-node';
import type { ReadCluster } from '../../cluster/cluster.ts';
import type { BudgetedText } from './budget.ts';
import { foldEvents, formatEvent, formatRoutineEvents, isRoutineEvent, type EventData } from './events.ts';
import { formatPodGroup, readPodGroup, type PodGroupData } from './pod-group.ts';
import { summarizePodSpec, type PodTemplateData } from './pod-template.ts';
import { formatContainerSpec, formatPodLevel } from './template-text.ts';

export interface WorkloadDetailsData {
  template: PodTemplateData;
  pods: PodGroupData;
  events: EventData[];
}

export async function readWorkloadDetails(input: {
  cluster: ReadCluster;
  namespace: string;
  name: string;
  podSpec: V1PodSpec | undefined;
  selector: string;
  now: Date;
  signal: AbortSignal;
}): Promise<{ details: WorkloadDetailsData; pods: Awaited<ReturnType<typeof readPodGroup>> }> {
  const template = summarizePodSpec(input.podSpec);
  const [pods, eventList] = await Promise.all([
    readPodGroup({
      cluster: input.cluster,
      namespace: input.namespace,
      labelSelector: input.selector,
      signal: input.signal,
    }),
    input.cluster.list('Event', {
      namespace: input.namespace,
      fieldSelector: `involvedObject.name=${input.name}`,
      maxItems: 500,
      signal: input.signal,
    }),
  ]);
  const events = eventList.ok
    ? foldEvents(
        eventList.value.items.filter((event) => event.involvedObject.name === input.name),
        input.now,
      )
    : [];
  const { items: _items, ...podGroup } = pods;
  return { details: { template, pods: podGroup, events }, pods };
}

/** The pods, then each container's spec, the pod-level fields and the newest events. */
export function writeWorkloadDetails(
  text: BudgetedText,
  read: Awaited<ReturnType<typeof readWorkloadDetails>>,
  now: Date,
): void {
  const { template, events } = read.details;
  for (const line of formatPodGroup(read.pods, now)) text.addIfRoom(line);
  for (const container of template.containers) {
    text.addIfRoom(`${container.init ? 'init container' : 'container'} ${container.name}: image ${container.image}`);
    for (const line of formatContainerSpec(container, { volumes: template.volumes })) text.addIfRoom(line);
  }
  for (const line of formatPodLevel(template)) text.addIfRoom(line);
  if (events.length) {
    text.addIfRoom(`events (${events.length}, newest first):`);
    // Pod creation and the like, counted in one line; everything else in full.
    for (const event of events.filter((item) => !isRoutineEvent(item)).slice(0, 15))
      text.addIfRoom(`  ${formatEvent(event, now, { withObject: false })}`);
    const routine = formatRoutineEvents(events.filter(isRoutineEvent), now);
    if (routine) text.addIfRoom(`  ${routine}`);
  }
}
