/**
 * Rule `job-superseded`: a CronJob's Job failed, and the CronJob's newest run completed
 * after it. The failure is history: KubeJobFailed keeps firing only because the failed Job
 * object is still there (kube-state-metrics reports it until it is deleted, or until
 * ttlSecondsAfterFinished or failedJobsHistoryLimit removes it).
 */
import type { CaseView, Finding } from '../case.ts';

export function supersededFinding(view: CaseView): Finding | undefined {
  const superseded = view.gathered.superseded;
  if (!superseded) return undefined;
  const namespace = view.gathered.workload?.namespace ?? '';
  const when = superseded.lastSucceeded ? `; its last success was at ${superseded.lastSucceeded}` : '';
  return {
    category: 'no-issue',
    cause: `Job ${superseded.failed} failed, but CronJob ${namespace}/${superseded.cronJob} has run again since and its newest Job ${superseded.by} completed: the failure is history`,
    evidence: [
      `CronJob ${namespace}/${superseded.cronJob}: newest Job ${superseded.by} is Complete, after the failed Job ${superseded.failed}${when}`,
      `the failed Job ${namespace}/${superseded.failed} stays until it is deleted (or ttlSecondsAfterFinished / failedJobsHistoryLimit removes it), and KubeJobFailed fires for as long as it exists: delete it to clear the alert`,
    ],
    confidence: 'high',
  };
}
