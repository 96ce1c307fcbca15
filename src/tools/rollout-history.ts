/**
 * `rollout_history`: a workload's revisions with change-cause, images, age and readiness,
 * and what changed from each revision to the next: image, env and its secret/configmap
 * references, volumes, resources, probes, command and args. A Deployment's revisions are
 * its ReplicaSets; a StatefulSet's or DaemonSet's, its ControllerRevisions.
 */
import { z } from 'zod';
import { namespaceName, objectName } from './names.ts';
import { formatAge } from './format/age.ts';
import { BudgetedText } from './format/budget.ts';
import type { RevisionChangeData, RevisionData } from './format/rollout.ts';
import { formatDiffEntry } from './format/template-diff.ts';
import { formatContainerSpec, formatPodLevel } from './format/template-text.ts';
import { readRolloutTarget, rolloutKindInput, type RolloutKind } from './rollout-target.ts';
import { success } from './tool-results.ts';
import type { ReadTool } from './tool.ts';

export interface RolloutHistoryData {
  kind: RolloutKind;
  namespace: string;
  name: string;
  currentRevision?: number;
  /** Oldest first. */
  revisions: RevisionData[];
  /** Between consecutive revisions, oldest first. */
  changes: RevisionChangeData[];
}

const input = z.object({
  namespace: namespaceName().describe('Namespace of the workload'),
  name: objectName().describe('Name of the Deployment, StatefulSet or DaemonSet'),
  kind: rolloutKindInput,
  revision: z.number().int().min(1).optional().describe('Also show the full pod template of this revision'),
});

/** `ReplicaSet checkout-7d9f8c6b5` or `ControllerRevision orders-db-7c9d5f8b46`: where a revision is kept. */
export function revisionSource(revision: RevisionData): string {
  return revision.controllerRevision !== undefined
    ? `ControllerRevision ${revision.controllerRevision}`
    : `ReplicaSet ${revision.replicaSet ?? '?'}`;
}

/**
 * One revision; given the revision listed just before it (a newer one), an unchanged image is said
 * so rather than repeated, and likewise given the images of the template shown above it.
 */
export function formatRevisionLine(
  revision: RevisionData,
  now: Date,
  newer?: RevisionData,
  options: { imagesAbove?: string } = {},
): string {
  const age = revision.createdAt ? `${formatAge(revision.createdAt, now)} ago` : 'age ?';
  const cause = revision.changeCause ? `, change-cause: ${revision.changeCause}` : '';
  const images = revision.images.join(' ');
  const image =
    newer && newer.images.join(' ') === images
      ? `same image as revision ${newer.revision}`
      : !newer && options.imagesAbove === images
        ? 'image as above'
        : `image ${images}`;
  return `revision ${revision.revision}${revision.current ? ' (current)' : ''}: ${revisionSource(revision)}, created ${age}, ready ${revision.readyReplicas}/${revision.replicas}, ${image}${cause}`;
}

export function formatChangeLines(change: RevisionChangeData): string[] {
  const header = `revision ${change.fromRevision} -> revision ${change.toRevision}:`;
  if (change.changes.length === 0)
    return [`${header} no pod template change (a restart, a scale or an annotation only)`];
  return [header, ...change.changes.map((entry) => `  ${formatDiffEntry(entry)}`)];
}

export const rolloutHistoryTool: ReadTool<typeof input, RolloutHistoryData, 'rollout_history'> = {
  name: 'rollout_history',
  description:
    'Shows the rollout history of a Deployment, StatefulSet or DaemonSet (set kind; Deployment by default): every revision kept (its ReplicaSet ' +
    'or ControllerRevision, age, ready pods, images, change-cause) and exactly what changed between consecutive revisions (image, env vars and ' +
    'their secretKeyRef/configMapKeyRef, envFrom, volumes, resources, probes, command, args). ' +
    'Use it when a workload broke after a deploy, to find the revision that introduced the change and the one to roll back to.',
  input,
  risk: 'read',
  async run(args, context) {
    const kind = args.kind ?? 'Deployment';
    const target = await readRolloutTarget(
      { namespace: args.namespace, name: args.name, kind, tool: 'rollout_history' },
      context,
    );
    if (!target.ok) return target.failure;
    const now = context.cluster.now();
    const { revisions, changes, currentRevision } = target.history;
    const data: RolloutHistoryData = {
      kind,
      namespace: args.namespace,
      name: args.name,
      ...(currentRevision !== undefined ? { currentRevision } : {}),
      revisions,
      changes,
    };

    const text = new BudgetedText(context.outputBudgetBytes);
    text.addIfRoom(
      `Rollout history of ${kind} ${args.namespace}/${args.name}: current revision ${currentRevision ?? '?'}, ${revisions.length} revision(s) kept.`,
    );
    // Newest change first: it is the likeliest cause of a fresh incident.
    for (const change of [...changes].reverse()) for (const line of formatChangeLines(change)) text.addIfRoom(line);
    text.addIfRoom('revisions:');
    const newestFirst = [...revisions].reverse();
    newestFirst.forEach((revision, index) =>
      text.addIfRoom(`  ${formatRevisionLine(revision, now, newestFirst[index - 1])}`),
    );
    if (args.revision !== undefined) {
      const chosen = revisions.find((revision) => revision.revision === args.revision);
      if (!chosen)
        text.addIfRoom(
          `revision ${args.revision} is not kept (kept: ${revisions.map((revision) => revision.revision).join(', ') || 'none'}).`,
        );
      else {
        text.addIfRoom(`pod template of revision ${chosen.revision}:`);
        for (const container of chosen.template.containers) {
          text.addIfRoom(
            `${container.init ? 'init container' : 'container'} ${container.name}: image ${container.image}`,
          );
          for (const line of formatContainerSpec(container, { volumes: chosen.template.volumes })) text.addIfRoom(line);
        }
        for (const line of formatPodLevel(chosen.template)) text.addIfRoom(line);
      }
    }
    return success(text.finish('ask for one revision with revision=N.'), data, text.truncated);
  },
};
