/**
 * Rule `pod-completed`: a pod that ran to completion (phase Succeeded) is done.
 */
import type { CaseView, Finding } from '../case.ts';
import { logEvidence } from '../evidence.ts';

/** A pod that ran to completion: whatever fired while it was pending or running, it is done now. */
export function completedFinding(view: CaseView): Finding {
  const pod = view.pod!;
  const exits = pod.containers
    .filter((container) => !container.init && container.state.state === 'terminated')
    .map(
      (container) =>
        `container ${container.name} ${container.state.reason ?? 'terminated'} with exit code ${container.state.exitCode ?? '?'}`,
    );
  const finished = view.gathered.job?.jobs.find((job) => job.state === 'Complete');
  return {
    category: 'no-issue',
    cause: `pod ${pod.name} has Completed (phase Succeeded): its work is done and nothing is failing now`,
    evidence: [
      `pod ${pod.name} is ${pod.status}, phase Succeeded${exits.length ? `; ${exits.join('; ')}` : ''}`,
      ...(finished
        ? [
            `Job ${finished.namespace}/${finished.name} is Complete (${finished.succeeded}/${finished.completions} succeeded)`,
          ]
        : []),
      ...logEvidence(view.gathered).slice(0, 1),
    ],
    confidence: 'high',
  };
}
