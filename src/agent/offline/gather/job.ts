/**
 * A Job or CronJob in focus: a CronJob's failed (else newest) Job, the Job's status and
 * pods; a Job a CronJob made is the CronJob's failure, and when the failed Job's pods are
 * gone, the CronJob's newer run shows how it fails.
 */
import type { CronJobSummaryData } from '../../../tools/list-cron-jobs.ts';
import type { FocusOf, Gathered } from '../case.ts';
import type { Gathering } from './gathering.ts';
import { intentOfCronJob } from './intent.ts';
import { missingField } from './missing.ts';
import { followWorstPod } from './worst-pod.ts';

export function gatherForJob(focus: FocusOf<'workload'>, gathering: Gathering): Gathered {
  const { query } = gathering;
  const { namespace, name, workloadKind } = focus;
  let base: Gathered = { focus, workload: { kind: workloadKind, namespace, name } };
  let jobName = name;
  if (workloadKind === 'CronJob') {
    const cronJobs = query.data('list_cron_jobs', { namespace, name });
    query.barrier();
    const cronJob = cronJobs?.cronJobs[0];
    const intent = cronJob ? intentOfCronJob(cronJob) : undefined;
    const recent = cronJob?.recentJobs ?? [];
    const pick = recent.find((job) => job.state === 'Failed') ?? recent[0];
    const superseded = cronJob && pick ? supersessionOf(cronJob, pick.name) : undefined;
    if (superseded) return { ...base, superseded };
    // Suspended on purpose and no run of it failing: that is the answer.
    if (intent && !recent.some((job) => job.state === 'Failed')) return { ...base, intent };
    if (!pick) return { ...base, notFound: `a Job of CronJob ${namespace}/${name}` };
    // Suspended with a failed run and none running: the failure is history, read for the evidence; the suspension is the answer.
    const settled = cronJob ? settledIntent(cronJob) : undefined;
    if (settled) base = { ...base, intent: settled };
    jobName = pick.name;
  }
  const job = query.data('list_jobs', { namespace, name: jobName });
  query.barrier();
  if (!job?.details)
    return {
      ...base,
      notFound: `Job ${namespace}/${jobName}`,
      ...(jobName === name
        ? missingField({ kind: 'Job', namespace, name }, query.get('list_jobs', { namespace, name }))
        : {}),
    };
  // A Job a CronJob made is the CronJob's failure: it makes the next one the same way.
  const owner = job.jobs[0]?.owner;
  const workload =
    owner?.kind === 'CronJob' ? { kind: 'CronJob' as const, namespace, name: owner.name } : base.workload;
  let known: Gathered = {
    ...base,
    ...(workload ? { workload } : {}),
    job,
    workloadPods: job.details.pods.pods,
    workloadEvents: job.details.events,
  };
  // A failed run the CronJob has since run again successfully: the failed Job object lingers (and alerts) until it is cleaned up.
  if (owner?.kind === 'CronJob' && job.jobs[0]?.state === 'Failed') {
    const cronJob = query.data('list_cron_jobs', { namespace, name: owner.name })?.cronJobs[0];
    query.barrier();
    const superseded = cronJob ? supersessionOf(cronJob, jobName) : undefined;
    if (superseded) return { ...known, superseded };
    // Its CronJob suspended since, with nothing running: the suspension is the answer, this run's failure its evidence.
    const settled = cronJob ? settledIntent(cronJob) : undefined;
    if (settled) known = { ...known, intent: settled };
  }
  // The failed Job's pods are gone (a deadline deletes them): the CronJob's newer run fails the same way, and shows how.
  if (owner?.kind === 'CronJob' && !job.details.pods.pods.some((pod) => !pod.healthy)) {
    const newer = query
      .data('list_cron_jobs', { namespace, name: owner.name })
      ?.cronJobs[0]?.recentJobs.find((candidate) => candidate.name !== jobName && candidate.state !== 'Complete');
    query.barrier();
    const next = newer ? query.data('list_jobs', { namespace, name: newer.name }) : undefined;
    query.barrier();
    const failing = next?.details?.pods.pods.filter((pod) => !pod.healthy) ?? [];
    if (next?.details && failing.length > 0)
      return followWorstPod(
        {
          ...known,
          workloadPods: next.details.pods.pods,
          workloadEvents: [...job.details.events, ...next.details.events],
        },
        next.details.pods.pods,
        gathering,
      );
  }
  return followWorstPod(known, job.details.pods.pods, gathering);
}

/** The failed Job's supersession, when the CronJob's newest run (jobs newest first) completed after it: the CronJob works again. */
function supersessionOf(cronJob: CronJobSummaryData, failed: string): Gathered['superseded'] {
  const index = cronJob.recentJobs.findIndex((job) => job.name === failed);
  const newest = cronJob.recentJobs[0];
  if (index <= 0 || newest?.state !== 'Complete') return undefined;
  return {
    cronJob: cronJob.name,
    failed,
    by: newest.name,
    ...(cronJob.lastSuccessfulTime ? { lastSucceeded: cronJob.lastSuccessfulTime } : {}),
  };
}

/** A CronJob's recorded intent (suspended on purpose) once nothing of it runs: its failed runs are then history. */
function settledIntent(cronJob: CronJobSummaryData): Gathered['intent'] {
  const intent = intentOfCronJob(cronJob);
  return intent && !cronJob.recentJobs.some((job) => job.state === 'Running') ? intent : undefined;
}
