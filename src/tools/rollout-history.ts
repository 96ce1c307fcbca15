/**
 * `rollout_history`: a Deployment's revisions (ReplicaSets) with change-cause, images,
 * age and readiness, and what changed from each revision to the next: image, env and
 * its secret/configmap references, volumes, resources, probes, command and args.
 */
import { z } from 'zod';
import { formatAge } from './format/age.ts';
import { BudgetedText } from './format/budget.ts';
import { readRolloutHistory, type RevisionChangeData, type RevisionData } from './format/rollout.ts';
import { formatDiffEntry } from './format/template-diff.ts';
import { formatContainerSpec, formatPodLevel } from './format/template-text.ts';
import { failureFrom, success } from './tool-results.ts';
import type { Tool } from './tool.ts';

export interface RolloutHistoryData {
  kind: 'Deployment';
  namespace: string;
  name: string;
  currentRevision?: number;
  /** Oldest first. */
  revisions: RevisionData[];
  /** Between consecutive revisions, oldest first. */
  changes: RevisionChangeData[];
}

const input = z.object({
  namespace: z.string().min(1).describe('Namespace of the Deployment'),
  name: z.string().min(1).describe('Deployment name'),
  revision: z.number().int().min(1).optional().describe('Also show the full pod template of this revision'),
});

export function formatRevisionLine(revision: RevisionData, now: Date): string {
  const age = revision.createdAt ? `${formatAge(revision.createdAt, now)} ago` : 'age ?';
  const cause = revision.changeCause ? `, change-cause: ${revision.changeCause}` : '';
  return `revision ${revision.revision}${revision.current ? ' (current)' : ''}: ReplicaSet ${revision.replicaSet}, created ${age}, ready ${revision.readyReplicas}/${revision.replicas}, image ${revision.images.join(' ')}${cause}`;
}

export function formatChangeLines(change: RevisionChangeData): string[] {
  const header = `revision ${change.fromRevision} -> revision ${change.toRevision}:`;
  if (change.changes.length === 0) return [`${header} no pod template change (a restart, a scale or an annotation only)`];
  return [header, ...change.changes.map((entry) => `  ${formatDiffEntry(entry)}`)];
}

export const rolloutHistoryTool: Tool<typeof input> = {
  name: 'rollout_history',
  description:
    'Shows a Deployment\'s rollout history: every revision kept (its ReplicaSet, age, ready pods, images, change-cause) and exactly what ' +
    'changed between consecutive revisions (image, env vars and their secretKeyRef/configMapKeyRef, envFrom, volumes, resources, probes, command, args). ' +
    'Use it when a workload broke after a deploy, to find the revision that introduced the change and the one to roll back to.',
  input,
  risk: 'read',
  async run(args, context) {
    const deployment = await context.cluster.get('Deployment', { namespace: args.namespace, name: args.name }, { signal: context.signal });
    if (!deployment.ok) return failureFrom(deployment.error, deployment.error.kind === 'not-found' ? `Use list_deployments in "${args.namespace}" to see which exist; StatefulSets and DaemonSets have no ReplicaSet history here.` : undefined);
    const history = await readRolloutHistory({ cluster: context.cluster, deployment: deployment.value, signal: context.signal });
    if (!history.ok) return failureFrom(history.error);
    const now = context.cluster.now();
    const { revisions, changes, currentRevision } = history.value;
    const data: RolloutHistoryData = { kind: 'Deployment', namespace: args.namespace, name: args.name, ...(currentRevision !== undefined ? { currentRevision } : {}), revisions, changes };

    const text = new BudgetedText(context.outputBudgetBytes);
    text.addIfRoom(`Rollout history of Deployment ${args.namespace}/${args.name}: current revision ${currentRevision ?? '?'}, ${revisions.length} revision(s) kept.`);
    // Newest change first: it is the likeliest cause of a fresh incident.
    for (const change of [...changes].reverse()) for (const line of formatChangeLines(change)) text.addIfRoom(line);
    text.addIfRoom('revisions:');
    for (const revision of [...revisions].reverse()) text.addIfRoom(`  ${formatRevisionLine(revision, now)}`);
    if (args.revision !== undefined) {
      const chosen = revisions.find((revision) => revision.revision === args.revision);
      if (!chosen) text.addIfRoom(`revision ${args.revision} is not kept (kept: ${revisions.map((revision) => revision.revision).join(', ') || 'none'}).`);
      else {
        text.addIfRoom(`pod template of revision ${chosen.revision}:`);
        for (const container of chosen.template.containers) {
          text.addIfRoom(`${container.init ? 'init container' : 'container'} ${container.name}: image ${container.image}`);
          for (const line of formatContainerSpec(container, { volumes: chosen.template.volumes })) text.addIfRoom(line);
        }
        for (const line of formatPodLevel(chosen.template)) text.addIfRoom(line);
      }
    }
    return success(text.finish('ask for one revision with revision=N.'), data, text.truncated);
  },
};
