/** `list_jobs`: Jobs with completions, failures and failure conditions; with name, template, pods and events. */
import { z } from 'zod';
import { namespaceName, objectName } from './names.ts';
import type { V1Job } from '@kubernetes/client-node';
import { ageSeconds, formatAge, formatDuration } from './format/age.ts';
import { BudgetedText } from './format/budget.ts';
import { oneLine } from './format/pod-status.ts';
import { formatLabelSelector } from './format/selectors.ts';
import { readWorkloadDetails, writeWorkloadDetails, type WorkloadDetailsData } from './format/workload-details.ts';
import { failureFrom, resolveNamespaces, success } from './tool-results.ts';
import type { ReadTool } from './tool.ts';

export interface JobSummaryData {
  namespace: string;
  name: string;
  completions: number;
  succeeded: number;
  failed: number;
  active: number;
  backoffLimit: number;
  /** `spec.activeDeadlineSeconds`: how long the Job may run, all its pods together. */
  activeDeadlineSeconds?: number;
  /** `Complete`, `Failed`, `Running`, `Suspended`. */
  state: string;
  conditions: Array<{ type: string; status: string; reason?: string; message?: string }>;
  owner?: { kind: string; name: string };
  ageSeconds?: number;
  durationSeconds?: number;
  images: string[];
}

export interface JobsData {
  total: number;
  failed: number;
  /** Failed first, then running, then complete; at most 200. */
  jobs: JobSummaryData[];
  details?: WorkloadDetailsData;
}

const input = z.object({
  namespace: namespaceName().optional().describe('Namespace; omitted: every namespace this run may read'),
  name: objectName()
    .optional()
    .describe('One Job by name: adds its pod template, its pods and its events (needs namespace)'),
  labelSelector: z.string().optional().describe('Label selector on the Jobs'),
});

function summarizeJob(job: V1Job, now: Date): JobSummaryData {
  const conditions = (job.status?.conditions ?? []).map((condition) => ({
    type: condition.type,
    status: condition.status,
    ...(condition.reason ? { reason: condition.reason } : {}),
    ...(condition.message ? { message: condition.message } : {}),
  }));
  const holds = (type: string): boolean =>
    conditions.some((condition) => condition.type === type && condition.status === 'True');
  const state = holds('Failed')
    ? 'Failed'
    : holds('Complete')
      ? 'Complete'
      : job.spec?.suspend
        ? 'Suspended'
        : 'Running';
  const owner = job.metadata?.ownerReferences?.find((reference) => reference.controller);
  const start = job.status?.startTime ? new Date(job.status.startTime).getTime() : undefined;
  const failedAt = job.status?.conditions?.find(
    (condition) => condition.type === 'Failed' && condition.status === 'True',
  )?.lastTransitionTime;
  const finished = job.status?.completionTime ?? failedAt;
  const end = finished ? new Date(finished).getTime() : undefined;
  const age = ageSeconds(job.metadata?.creationTimestamp, now);
  return {
    namespace: job.metadata?.namespace ?? '',
    name: job.metadata?.name ?? '',
    completions: job.spec?.completions ?? 1,
    succeeded: job.status?.succeeded ?? 0,
    failed: job.status?.failed ?? 0,
    active: job.status?.active ?? 0,
    backoffLimit: job.spec?.backoffLimit ?? 6,
    ...(job.spec?.activeDeadlineSeconds !== undefined ? { activeDeadlineSeconds: job.spec.activeDeadlineSeconds } : {}),
    state,
    conditions,
    ...(owner ? { owner: { kind: owner.kind, name: owner.name } } : {}),
    ...(age !== undefined ? { ageSeconds: age } : {}),
    ...(start !== undefined ? { durationSeconds: Math.round(((end ?? now.getTime()) - start) / 1000) } : {}),
    images: (job.spec?.template?.spec?.containers ?? []).map((container) => container.image ?? ''),
  };
}

const STATE_ORDER: Record<string, number> = { Failed: 0, Running: 1, Suspended: 2, Complete: 3 };

export function formatJobLine(job: JobSummaryData, now: Date, withNamespace: boolean): string {
  const age = job.ageSeconds !== undefined ? formatAge(new Date(now.getTime() - job.ageSeconds * 1000), now) : '?';
  const duration = job.durationSeconds !== undefined ? `, ran ${formatDuration(job.durationSeconds * 1000)}` : '';
  const owner = job.owner ? `, from ${job.owner.kind} ${job.owner.name}` : '';
  const failing = job.conditions.filter((condition) => condition.status === 'True' && condition.type === 'Failed');
  const why = failing
    .map((condition) => `\n  Failed ${condition.reason ?? ''}: ${oneLine(condition.message ?? '', 300)}`)
    .join('');
  return `${withNamespace ? `${job.namespace}/` : ''}${job.name}: ${job.state}, succeeded ${job.succeeded}/${job.completions}, failed ${job.failed} (backoffLimit ${job.backoffLimit}${job.activeDeadlineSeconds !== undefined ? `, activeDeadlineSeconds ${job.activeDeadlineSeconds}` : ''}), active ${job.active}, age ${age}${duration}${owner}, image ${job.images.join(' ')}${why}`;
}

export const listJobsTool: ReadTool<typeof input, JobsData, 'list_jobs'> = {
  name: 'list_jobs',
  description:
    'Lists Jobs with their state (Failed, Running, Complete), succeeded/completions, failed pods against backoffLimit, the CronJob that ' +
    'created them, and why they failed (BackoffLimitExceeded, DeadlineExceeded). Failed first. With name: its pod template, pods and events.',
  input,
  risk: 'read',
  async run(args, context) {
    if (args.name !== undefined && args.namespace === undefined)
      return { ok: false, error: 'invalid-input', content: 'invalid-input: name needs namespace.' };
    const jobs: V1Job[] = [];
    for (const namespace of resolveNamespaces(args.namespace, context)) {
      const listed = await context.cluster.list('Job', {
        ...(namespace !== undefined ? { namespace } : {}),
        ...(args.labelSelector ? { labelSelector: args.labelSelector } : {}),
        maxItems: 2000,
        signal: context.signal,
      });
      if (!listed.ok) return failureFrom(listed.error);
      jobs.push(...listed.value.items.filter((job) => args.name === undefined || job.metadata?.name === args.name));
    }
    if (args.name !== undefined && jobs.length === 0)
      return {
        ok: false,
        error: 'not-found',
        content: `not-found: no Job named "${args.name}" in "${args.namespace}". Call list_jobs without name, or list_cron_jobs.`,
      };
    const now = context.cluster.now();
    const summaries = jobs
      .map((job) => summarizeJob(job, now))
      .sort(
        (left, right) =>
          (STATE_ORDER[left.state] ?? 9) - (STATE_ORDER[right.state] ?? 9) ||
          (left.ageSeconds ?? 0) - (right.ageSeconds ?? 0),
      );
    const data: JobsData = {
      total: summaries.length,
      failed: summaries.filter((job) => job.state === 'Failed').length,
      jobs: summaries.slice(0, 200),
    };
    const text = new BudgetedText(context.outputBudgetBytes);
    text.add(`${summaries.length} Job(s) in ${args.namespace ?? 'the readable namespaces'}: ${data.failed} failed.`);
    for (const job of summaries) if (!text.add(formatJobLine(job, now, args.namespace === undefined))) break;
    const only = jobs[0];
    if (args.name !== undefined && args.namespace !== undefined && only) {
      const selector = formatLabelSelector(only.spec?.selector) || `job-name=${args.name}`;
      const read = await readWorkloadDetails({
        cluster: context.cluster,
        namespace: args.namespace,
        name: args.name,
        podSpec: only.spec?.template?.spec,
        selector,
        now,
        signal: context.signal,
      });
      data.details = read.details;
      writeWorkloadDetails(text, read, now);
    }
    return success(text.finish('narrow with namespace, name or labelSelector.'), data, text.truncated);
  },
};
