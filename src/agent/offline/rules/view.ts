/**
 * The facts every rule reads, worked out once per case (see CaseView): the container in
 * trouble, its waiting state and last termination, what its log says, and the probe
 * failure the kubelet reported.
 */
import type { Case, CaseView } from '../case.ts';
import { lastTermination, troubledContainer } from '../containers.ts';
import { readLogSignals } from '../log-signals.ts';
import { findProbeFailure } from '../probe-events.ts';

export function viewCase(gathered: Case): CaseView {
  const { pod } = gathered;
  // No container in trouble, but a log was read (a ready pod behind an alerted Service): that container is the one to judge.
  const container = pod
    ? (troubledContainer(pod.containers) ??
      pod.containers.find((candidate) => !candidate.init && candidate.name === gathered.logs?.container))
    : undefined;
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
