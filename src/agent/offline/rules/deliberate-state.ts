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
  // A suspended CronJob starts nothing more: its failed runs are history; a run still going is not.
  if (gathered.intent.row === SUSPENDED_CRONJOB)
    return !(gathered.workloadPods ?? []).some((pod) => !pod.healthy && pod.phase !== 'Failed');
  // A pod of it that fails is a failure, however deliberate the rest.
  return !(gathered.workloadPods ?? []).some((pod) => !pod.healthy) && (!view.pod || view.container === undefined);
}

export function deliberateFinding(view: CaseView): Finding {
  const intent = view.gathered.intent!;
  return {
    category: 'no-issue',
    cause: `${intent.state}${intent.note ? ` (${intent.note})` : ''}, so nothing is broken${intent.detail ? `: ${intent.detail.charAt(0).toLowerCase()}${intent.detail.slice(1)}` : ''}`,
    evidence: [
      intent.note ? `${intent.state}: ${intent.note}` : intent.state,
      ...(intent.detail ? [intent.detail] : []),
      ...earlierRun(view),
    ],
    confidence: intent.note ? 'high' : 'medium',
  };
}

const SUSPENDED_CRONJOB = 'suspended-cronjob';

/** A suspended CronJob's failed run, read for what it was: the Job, and what its log said. */
function earlierRun(view: CaseView): string[] {
  const job = view.gathered.job?.jobs[0];
  if (view.gathered.intent?.row !== SUSPENDED_CRONJOB || job?.state !== 'Failed') return [];
  const said = view.reading?.evidence[0];
  return [
    `its Job ${job.name} failed earlier${said ? `; its log: ${said.trim().slice(0, 300)}` : ''}; no new Job starts while it is suspended`,
  ];
}
