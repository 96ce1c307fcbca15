/**
 * The facts every rule reads, worked out once per case: the pod, the container in
 * trouble, its waiting state and last termination, what its log says, and the probe
 * failure the kubelet reported. Rules read this view; they never call a tool.
 */
import type { PodDetailsData } from '../../../tools/describe-pod.ts';
import type { EventData } from '../../../tools/format/events.ts';
import type { ContainerStateData, ContainerStatusData } from '../../../tools/format/pod-status.ts';
import { lastTermination } from '../evidence.ts';
import type { Case } from '../gather.ts';
import { troubledContainer } from '../gather.ts';
import { readLogSignals, type LogReading } from '../log-signals.ts';
import { findProbeFailure } from './pod-findings.ts';

export interface CaseView {
  gathered: Case;
  pod?: PodDetailsData;
  /** The container in trouble: a failing init container first, then a waiting, crashed or unready one. */
  container?: ContainerStatusData;
  waiting?: ContainerStateData;
  termination?: ContainerStateData;
  /** What the container's log says, when it was read. */
  reading?: LogReading;
  /** The kubelet's recent probe failure on this pod, if any. */
  probe?: EventData;
}

export function viewCase(gathered: Case): CaseView {
  const { pod } = gathered;
  // No container in trouble, but a log was read (a ready pod behind an alerted Service): that container is the one to judge.
  const container = pod ? (troubledContainer(pod.containers) ?? pod.containers.find((candidate) => !candidate.init && candidate.name === gathered.logs?.container)) : undefined;
  const waiting = container?.state.state === 'waiting' ? container.state : undefined;
  const termination = container ? lastTermination(container) : undefined;
  const reading = gathered.logs ? readLogSignals([...gathered.logs.errorLines, ...gathered.logs.lines]) : undefined;
  const probe = pod ? findProbeFailure(pod.events) : undefined;
  return {
    gathered,
    ...(pod ? { pod } : {}),
    ...(container ? { container } : {}),
    ...(waiting ? { waiting } : {}),
    ...(termination ? { termination } : {}),
    ...(reading ? { reading } : {}),
    ...(probe ? { probe } : {}),
  };
}

/** `init container x of pod y` or `container x of pod y`. */
export function containerPlace(view: CaseView): string {
  const container = view.container!;
  return `${container.init ? 'init container' : 'container'} ${container.name} of pod ${view.pod?.name}`;
}
