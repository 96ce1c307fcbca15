/** `list_pods`: the pods of a namespace (or the allowed ones), trouble first, with counts by status. */
import { z } from 'zod';
import { namespaceName } from './names.ts';
import type { V1Pod } from '@kubernetes/client-node';
import { formatAge } from './format/age.ts';
import { BudgetedText } from './format/budget.ts';
import { formatContainerState, summarizePod, type PodSummaryData } from './format/pod-status.ts';
import { describeIncomplete, failureFrom, resolveNamespaces, success } from './tool-results.ts';
import { missingNamespace } from './missing-namespace.ts';
import type { ReadTool } from './tool.ts';

/** Pods kept in `data` beyond which only counts remain (trouble first, so no unhealthy pod is dropped before a healthy one). */
const DATA_POD_LIMIT = 300;

export interface ListPodsData {
  namespaces: string[] | 'all';
  total: number;
  unhealthy: number;
  /** STATUS column value → pods. */
  countsByStatus: Record<string, number>;
  /** Unhealthy first, then restarted, then healthy; at most 300. */
  pods: PodSummaryData[];
  /** Pods counted but not in `pods`. */
  omitted: number;
  /** The server held more pods than were read. */
  incomplete: boolean;
}

const input = z.object({
  namespace: namespaceName().optional().describe('Namespace to list; omitted: every namespace this run may read'),
  labelSelector: z.string().optional().describe('Label selector, e.g. "app=checkout-api" or "tier in (web,api)"'),
  fieldSelector: z
    .string()
    .optional()
    .describe('Field selector, e.g. "status.phase!=Running" or "spec.nodeName=node-2"'),
  onlyUnhealthy: z
    .boolean()
    .default(false)
    .describe('List only pods that are not running and ready (counts still cover all)'),
});

/** Orders trouble first: not healthy, then healthy with restarts, then the rest; within each, more restarts first, then the newest. */
function rank(pod: PodSummaryData): number {
  if (!pod.healthy) return 0;
  return pod.restarts > 0 ? 1 : 2;
}

/** Running, every container ready, never restarted, nothing to report. */
function isQuiet(pod: PodSummaryData): boolean {
  return pod.healthy && pod.restarts === 0 && pod.status === 'Running' && !pod.problem && !pod.lastTermination;
}

function groupByNamespace(pods: readonly PodSummaryData[]): Map<string, PodSummaryData[]> {
  const groups = new Map<string, PodSummaryData[]>();
  for (const pod of pods) groups.set(pod.namespace, [...(groups.get(pod.namespace) ?? []), pod]);
  return groups;
}

function formatPodLine(pod: PodSummaryData, now: Date, withNamespace: boolean): string {
  const name = withNamespace ? `${pod.namespace}/${pod.name}` : pod.name;
  const parts = [
    name,
    pod.status,
    `ready ${pod.ready}`,
    `restarts ${pod.restarts}`,
    `age ${pod.ageSeconds !== undefined ? formatAge(new Date(now.getTime() - pod.ageSeconds * 1000), now) : '?'}`,
  ];
  if (pod.node) parts.push(`node ${pod.node}`);
  if (pod.evicted) parts.push(`evicted: ${pod.evicted.slice(0, 160)}`);
  else if (pod.problem)
    parts.push(
      `${pod.problem.last ? 'last ' : ''}${pod.problem.container} ${formatContainerState(pod.problem.state, now, { messageLimit: 120 })}`,
    );
  return parts.join('  ');
}

export const listPodsTool: ReadTool<typeof input, ListPodsData, 'list_pods'> = {
  name: 'list_pods',
  description:
    'Lists pods with STATUS (as kubectl prints it), ready containers, restarts, age, node and the telling container state ' +
    '(waiting reason, or last termination such as OOMKilled with exit code). Unhealthy pods come first, with counts by status. ' +
    'Start here to find which pods are failing; then use describe_pod and get_pod_logs on one of them.',
  input,
  risk: 'read',
  async run(args, context) {
    const namespaces = resolveNamespaces(args.namespace, context);
    const pods: V1Pod[] = [];
    const notes: string[] = [];
    let incomplete = false;
    for (const namespace of namespaces) {
      const listed = await context.cluster.list('Pod', {
        ...(namespace !== undefined ? { namespace } : {}),
        ...(args.labelSelector ? { labelSelector: args.labelSelector } : {}),
        ...(args.fieldSelector ? { fieldSelector: args.fieldSelector } : {}),
        maxItems: 20_000,
        signal: context.signal,
      });
      if (!listed.ok) return failureFrom(listed.error);
      pods.push(...listed.value.items);
      incomplete ||= listed.value.incomplete;
      const note = describeIncomplete({ ...listed.value, read: listed.value.items.length });
      if (note) notes.push(note);
    }
    // Nothing in a named namespace: an empty namespace, or one that does not exist.
    if (args.namespace !== undefined && pods.length === 0) {
      const missing = await missingNamespace(args.namespace, context);
      if (missing) return missing;
    }
    const now = context.cluster.now();
    const summaries = pods
      .map((pod) => summarizePod(pod, now))
      .sort(
        (left, right) =>
          rank(left) - rank(right) ||
          right.restarts - left.restarts ||
          (left.ageSeconds ?? 0) - (right.ageSeconds ?? 0) ||
          left.name.localeCompare(right.name),
      );
    const countsByStatus: Record<string, number> = {};
    for (const pod of summaries) countsByStatus[pod.status] = (countsByStatus[pod.status] ?? 0) + 1;
    const unhealthy = summaries.filter((pod) => !pod.healthy).length;
    const scope = args.namespace ?? (namespaces[0] === undefined ? 'all namespaces' : namespaces.join(', '));
    const selectors = [
      args.labelSelector && `labels ${args.labelSelector}`,
      args.fieldSelector && `fields ${args.fieldSelector}`,
    ]
      .filter(Boolean)
      .join(', ');
    const counts = Object.entries(countsByStatus)
      .sort(([, left], [, right]) => right - left)
      .map(([status, count]) => `${status} ${count}`)
      .join(', ');

    const text = new BudgetedText(context.outputBudgetBytes);
    text.add(
      `${summaries.length} pod(s) in ${scope}${selectors ? ` (${selectors})` : ''}: ${unhealthy} unhealthy. By status: ${counts || 'none'}.`,
    );
    for (const note of notes) text.add(note);
    const shown = args.onlyUnhealthy ? summaries.filter((pod) => !pod.healthy) : summaries;
    // A pod that runs ready and never restarted has nothing to tell but its name: those are listed by name only, per namespace.
    const telling = shown.filter((pod) => !isQuiet(pod));
    const quiet = groupByNamespace(shown.filter(isQuiet));
    const ordered = [...telling, ...[...quiet.values()].flat()];
    let written = 0;
    for (const pod of telling) {
      if (!text.add(formatPodLine(pod, now, args.namespace === undefined))) break;
      written += 1;
    }
    if (
      written === telling.length &&
      quiet.size > 0 &&
      text.add(`running and ready, no restarts (${ordered.length - telling.length}):`)
    ) {
      for (const [namespace, pods] of quiet) {
        const names = pods.map((pod) => pod.name).join(', ');
        if (!text.add(args.namespace === undefined ? `  ${namespace}: ${names}` : `  ${names}`)) break;
        written += pods.length;
      }
    }
    const leftOut = ordered.slice(written);
    const leftOutUnhealthy = leftOut.filter((pod) => !pod.healthy).length;
    const content = text.finish(
      `${leftOut.length} pod(s) not listed (${leftOutUnhealthy} unhealthy); narrow with namespace, labelSelector, fieldSelector (e.g. "status.phase!=Running") or onlyUnhealthy=true.`,
    );
    const data: ListPodsData = {
      namespaces: namespaces[0] === undefined ? 'all' : (namespaces as string[]),
      total: summaries.length,
      unhealthy,
      countsByStatus,
      pods: shown.slice(0, DATA_POD_LIMIT),
      omitted: summaries.length - Math.min(shown.length, DATA_POD_LIMIT),
      incomplete,
    };
    return success(content, data, text.truncated);
  },
};
