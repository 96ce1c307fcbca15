/**
 * The shared shape of `list_replica_sets`, `list_stateful_sets`, `list_daemon_sets` and
 * `list_deployments`: workloads of one kind, unhealthy first, with their bad conditions;
 * with `name`, that workload's template, pods and events as well.
 */
import { z } from 'zod';
import { namespaceName, objectName } from './names.ts';
import type { V1DaemonSet, V1Deployment, V1ReplicaSet, V1StatefulSet } from '@kubernetes/client-node';
import { BudgetedText } from './format/budget.ts';
import { readWorkloadDetails, writeWorkloadDetails, type WorkloadDetailsData } from './format/workload-details.ts';
import { formatWorkloadLine, summarizeWorkload, type WorkloadSummaryData } from './format/workloads.ts';
import { describeIncomplete, failureFrom, resolveNamespaces, success } from './tool-results.ts';
import { missingNamespace } from './missing-namespace.ts';
import type { ReadTool } from './tool.ts';

export interface WorkloadListData {
  kind: WorkloadSummaryData['kind'];
  total: number;
  unhealthy: number;
  /** Unhealthy first, at most 200. */
  items: WorkloadSummaryData[];
  /** With `name`: the one workload's template, pods and events. */
  details?: WorkloadDetailsData;
}

const workloadInput = z.object({
  namespace: namespaceName().optional().describe('Namespace; omitted: every namespace this run may read'),
  name: objectName()
    .optional()
    .describe('One workload by name: adds its pod template, its pods and its events (needs namespace)'),
  labelSelector: z.string().optional().describe('Label selector on the workloads, e.g. "app=web"'),
});

type WorkloadInput = typeof workloadInput;
type Workload = V1Deployment | V1StatefulSet | V1DaemonSet | V1ReplicaSet;

export function createWorkloadListTool<Name extends string>(definition: {
  kind: WorkloadSummaryData['kind'];
  name: Name;
  description: string;
}): ReadTool<WorkloadInput, WorkloadListData, Name> {
  const { kind } = definition;
  return {
    name: definition.name,
    description: definition.description,
    input: workloadInput,
    risk: 'read',
    async run(args, context) {
      if (args.name !== undefined && args.namespace === undefined) {
        return {
          ok: false,
          error: 'invalid-input',
          content: `invalid-input: name needs namespace; call ${definition.name} with both.`,
        };
      }
      const items: Workload[] = [];
      const notes: string[] = [];
      for (const namespace of resolveNamespaces(args.namespace, context)) {
        const listed = await context.cluster.list(kind, {
          ...(namespace !== undefined ? { namespace } : {}),
          ...(args.labelSelector ? { labelSelector: args.labelSelector } : {}),
          ...(args.name ? { fieldSelector: `metadata.name=${args.name}` } : {}),
          maxItems: 2000,
          signal: context.signal,
        });
        if (!listed.ok) return failureFrom(listed.error);
        items.push(
          ...(listed.value.items as Workload[]).filter(
            (item) => args.name === undefined || item.metadata?.name === args.name,
          ),
        );
        const note = describeIncomplete({ ...listed.value, read: listed.value.items.length });
        if (note) notes.push(note);
      }
      // Nothing in a named namespace: an empty namespace, or one that does not exist.
      if (args.namespace !== undefined && items.length === 0) {
        const missing = await missingNamespace(args.namespace, context);
        if (missing) return missing;
      }
      const now = context.cluster.now();
      const summaries = items
        .map((item) => summarizeWorkload(kind, item, now))
        .sort(
          (left, right) =>
            Number(left.healthy) - Number(right.healthy) ||
            left.namespace.localeCompare(right.namespace) ||
            left.name.localeCompare(right.name),
        );
      if (args.name !== undefined && summaries.length === 0) {
        return {
          ok: false,
          error: 'not-found',
          content: `not-found: no ${kind} named "${args.name}" in namespace "${args.namespace}". Call ${definition.name} without name to see which exist.`,
        };
      }
      const unhealthy = summaries.filter((summary) => !summary.healthy).length;
      const data: WorkloadListData = { kind, total: summaries.length, unhealthy, items: summaries.slice(0, 200) };
      const text = new BudgetedText(context.outputBudgetBytes);
      text.add(
        `${summaries.length} ${kind}(s) in ${args.namespace ?? 'the readable namespaces'}: ${unhealthy} not fully ready or with failing conditions.`,
      );
      for (const note of notes) text.add(note);
      // Listing many, a workload that is fully ready has nothing to tell but its name: those are named per namespace.
      const listingMany = args.name === undefined;
      // One at 0 replicas (or paused) with a person's note about why has that to tell.
      const quiet = listingMany
        ? summaries.filter(
            (summary) => summary.healthy && !(summary.notes && (summary.desired === 0 || summary.paused)),
          )
        : [];
      let complete = true;
      for (const summary of summaries) {
        if (quiet.includes(summary)) continue;
        if (!text.add(formatWorkloadLine(summary, now, { withNamespace: args.namespace === undefined }))) {
          complete = false;
          break;
        }
      }
      if (complete && quiet.length > 0 && text.add(`fully ready (${quiet.length}):`)) {
        for (const [namespace, names] of namesByNamespace(quiet))
          if (!text.add(args.namespace === undefined ? `  ${namespace}: ${names.join(', ')}` : `  ${names.join(', ')}`))
            break;
      }

      const only = items[0];
      if (args.name !== undefined && args.namespace !== undefined && only) {
        const read = await readWorkloadDetails({
          cluster: context.cluster,
          namespace: args.namespace,
          name: args.name,
          podSpec: only.spec?.template?.spec,
          selector: summaries[0]?.selector ?? '',
          now,
          signal: context.signal,
        });
        data.details = read.details;
        writeWorkloadDetails(text, read, now);
      }
      return success(text.finish('narrow with namespace, name or labelSelector.'), data, text.truncated);
    },
  };
}

function namesByNamespace(summaries: readonly WorkloadSummaryData[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const summary of summaries)
    groups.set(summary.namespace, [...(groups.get(summary.namespace) ?? []), summary.name]);
  return groups;
}
