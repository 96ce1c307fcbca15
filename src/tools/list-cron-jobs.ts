/** `list_cron_jobs`: CronJobs with schedule, suspension, last schedule and success, and their recent Jobs. */
import { z } from 'zod';
import { namespaceName, objectName } from './names.ts';
import { formatAge, toIso } from './format/age.ts';
import { BudgetedText } from './format/budget.ts';
import { failureFrom, resolveNamespaces, success } from './tool-results.ts';
import { formatNotes, readNotes } from './format/notes.ts';
import type { ReadTool } from './tool.ts';

export interface CronJobSummaryData {
  namespace: string;
  name: string;
  schedule: string;
  suspended: boolean;
  /** Annotations a person wrote (why it is suspended, a change ticket), redacted. */
  notes?: Record<string, string>;
  active: number;
  lastScheduleTime?: string;
  lastSuccessfulTime?: string;
  concurrencyPolicy: string;
  images: string[];
  /** Jobs it owns, newest first: name and state. */
  recentJobs: Array<{ name: string; state: string; failed: number; succeeded: number }>;
  /** spec.failedJobsHistoryLimit (Kubernetes' default 1): how many failed Jobs stay, each alerting (KubeJobFailed) while it does. */
  failedJobsHistoryLimit: number;
}

export interface CronJobsData {
  total: number;
  cronJobs: CronJobSummaryData[];
}

const input = z.object({
  namespace: namespaceName().optional().describe('Namespace; omitted: every namespace this run may read'),
  name: objectName().optional().describe('One CronJob by name'),
});

export const listCronJobsTool: ReadTool<typeof input, CronJobsData, 'list_cron_jobs'> = {
  name: 'list_cron_jobs',
  description:
    'Lists CronJobs with schedule, whether suspended, active Jobs, when they last ran and last succeeded, and the state of their recent Jobs. ' +
    'Use list_jobs with a Job name for why a run failed.',
  input,
  risk: 'read',
  async run(args, context) {
    const summaries: CronJobSummaryData[] = [];
    for (const namespace of resolveNamespaces(args.namespace, context)) {
      const scope = namespace !== undefined ? { namespace } : {};
      const [cronJobs, jobs] = await Promise.all([
        context.cluster.list('CronJob', { ...scope, maxItems: 1000, signal: context.signal }),
        context.cluster.list('Job', { ...scope, maxItems: 5000, signal: context.signal }),
      ]);
      if (!cronJobs.ok) return failureFrom(cronJobs.error);
      const jobItems = jobs.ok ? jobs.value.items : [];
      for (const cronJob of cronJobs.value.items) {
        if (args.name !== undefined && cronJob.metadata?.name !== args.name) continue;
        const owned = jobItems
          .filter(
            (job) =>
              job.metadata?.namespace === cronJob.metadata?.namespace &&
              job.metadata?.ownerReferences?.some(
                (reference) => reference.kind === 'CronJob' && reference.name === cronJob.metadata?.name,
              ),
          )
          .sort((left, right) =>
            (toIso(right.metadata?.creationTimestamp) ?? '').localeCompare(
              toIso(left.metadata?.creationTimestamp) ?? '',
            ),
          )
          .slice(0, 5)
          .map((job) => {
            const holds = (type: string): boolean =>
              (job.status?.conditions ?? []).some(
                (condition) => condition.type === type && condition.status === 'True',
              );
            return {
              name: job.metadata?.name ?? '',
              state: holds('Failed') ? 'Failed' : holds('Complete') ? 'Complete' : 'Running',
              failed: job.status?.failed ?? 0,
              succeeded: job.status?.succeeded ?? 0,
            };
          });
        const lastScheduleTime = toIso(cronJob.status?.lastScheduleTime);
        const lastSuccessfulTime = toIso(cronJob.status?.lastSuccessfulTime);
        const notes = readNotes(cronJob.metadata);
        summaries.push({
          namespace: cronJob.metadata?.namespace ?? '',
          name: cronJob.metadata?.name ?? '',
          schedule: cronJob.spec?.schedule ?? '',
          suspended: cronJob.spec?.suspend ?? false,
          ...(notes ? { notes } : {}),
          active: cronJob.status?.active?.length ?? 0,
          ...(lastScheduleTime ? { lastScheduleTime } : {}),
          ...(lastSuccessfulTime ? { lastSuccessfulTime } : {}),
          concurrencyPolicy: cronJob.spec?.concurrencyPolicy ?? 'Allow',
          images: (cronJob.spec?.jobTemplate?.spec?.template?.spec?.containers ?? []).map(
            (container) => container.image ?? '',
          ),
          recentJobs: owned,
          failedJobsHistoryLimit: cronJob.spec?.failedJobsHistoryLimit ?? 1,
        });
      }
    }
    if (args.name !== undefined && summaries.length === 0)
      return {
        ok: false,
        error: 'not-found',
        content: `not-found: no CronJob named "${args.name}". Call list_cron_jobs without name.`,
      };
    const now = context.cluster.now();
    const text = new BudgetedText(context.outputBudgetBytes);
    text.add(`${summaries.length} CronJob(s).`);
    for (const cronJob of summaries) {
      const lastScheduled = cronJob.lastScheduleTime ? `${formatAge(cronJob.lastScheduleTime, now)} ago` : 'never';
      const lastSuccess = cronJob.lastSuccessfulTime ? `${formatAge(cronJob.lastSuccessfulTime, now)} ago` : 'never';
      const jobs = cronJob.recentJobs.map((job) => `${job.name} ${job.state}`).join(', ');
      // A failed Job stays (and alerts) until it is deleted or pushed out by newer failures: say how many are kept.
      const kept = cronJob.recentJobs.some((job) => job.state === 'Failed')
        ? ` (failedJobsHistoryLimit ${cronJob.failedJobsHistoryLimit}: failed Jobs stay until deleted or replaced by newer failures)`
        : '';
      const line = `${cronJob.namespace}/${cronJob.name}: schedule "${cronJob.schedule}"${cronJob.suspended ? [', SUSPENDED', ...formatNotes(cronJob.notes)].join(', ') : ''}, active ${cronJob.active}, last scheduled ${lastScheduled}, last succeeded ${lastSuccess}, concurrency ${cronJob.concurrencyPolicy}, image ${cronJob.images.join(' ')}${jobs ? `\n  recent jobs: ${jobs}${kept}` : ''}`;
      if (!text.add(line)) break;
    }
    return success(
      text.finish('narrow with namespace or name.'),
      { total: summaries.length, cronJobs: summaries.slice(0, 200) } satisfies CronJobsData,
      text.truncated,
    );
  },
};
