/**
 * Rule `deliberate-state`: the workload in focus (or behind the Service in focus) is where
 * a person put it: at 0 replicas with a note that says why, a CronJob suspended, a rollout
 * paused. No pod of it fails, so nothing is broken: the answer is `no-issue`, the workload
 * named and its note quoted.
 */
import type { CaseView, Finding } from '../case.ts';

export function isDeliberate(view: CaseView): boolean {
  const { gathered } = view;
  if (!gathered.intent) return false;
  // A pod of it that fails is a failure, however deliberate the rest.
  return !(gathered.workloadPods ?? []).some((pod) => !pod.healthy) && (!view.pod || view.container === undefined);
}

export function deliberateFinding(view: CaseView): Finding {
  const intent = view.gathered.intent!;
  return {
    category: 'no-issue',
    cause: `${intent.state}${intent.note ? ` (${intent.note})` : ''}, so nothing is broken${intent.detail ? `: ${intent.detail.charAt(0).toLowerCase()}${intent.detail.slice(1)}` : ''}`,
    evidence: [intent.note ? `${intent.state}: ${intent.note}` : intent.state, ...(intent.detail ? [intent.detail] : [])],
    confidence: intent.note ? 'high' : 'medium',
  };
}
