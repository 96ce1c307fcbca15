/**
 * `rollout_undo` (risk write): what `kubectl rollout undo` does for a Deployment, StatefulSet
 * or DaemonSet: puts the pod template of an earlier revision (the previous one by default)
 * back, which the controller rolls out as a new revision. A Deployment gets the template of
 * the target ReplicaSet; a StatefulSet or DaemonSet gets the target ControllerRevision's
 * `data`, the strategic merge patch kubectl sends.
 */
import { z } from 'zod';
import { namespaceName, objectName } from './names.ts';
import type { ClusterResult } from '../cluster/cluster.ts';
import type { RevisionData } from './format/rollout.ts';
import { diffPodTemplates, formatDiffEntry, type TemplateDiffEntry } from './format/template-diff.ts';
import { templateChangeLines } from './format/write-diff.ts';
import { revisionSource } from './rollout-history.ts';
import { readRolloutTarget, rolloutKindInput, type RolloutKind } from './rollout-target.ts';
import { failureFrom, success } from './tool-results.ts';
import type { ToolContext, ToolResult, WriteTool } from './tool.ts';
import { runWithDryRunFirst, type WriteActionData } from './write-tool.ts';

export interface RolloutUndoData extends WriteActionData {
  action: 'rollout_undo';
  fromRevision: number;
  toRevision: number;
  /** What the undo changes in the pod template, from the current revision to the target. */
  changes: TemplateDiffEntry[];
}

const input = z.object({
  namespace: namespaceName().describe('Namespace of the workload'),
  name: objectName().describe('Name of the Deployment, StatefulSet or DaemonSet'),
  kind: rolloutKindInput,
  toRevision: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('Revision to return to (see rollout_history); omitted: the one before the current'),
});

type Input = z.infer<typeof input>;

interface UndoTarget {
  kind: RolloutKind;
  namespace: string;
  name: string;
  revision: RevisionData;
}

/** The patch that puts the target revision's template back: what kubectl sends for each kind. */
async function restorePatch(
  target: UndoTarget,
  context: ToolContext,
): Promise<ClusterResult<{ patchType: 'json' | 'strategic'; patch: unknown }>> {
  const options = { signal: context.signal };
  if (target.kind === 'Deployment') {
    const replicaSet = await context.cluster.get(
      'ReplicaSet',
      { namespace: target.namespace, name: target.revision.replicaSet ?? '' },
      options,
    );
    if (!replicaSet.ok) return replicaSet;
    const template = structuredClone(replicaSet.value.spec?.template ?? {});
    // The hash label belongs to the ReplicaSet; the Deployment controller adds the right one back.
    if (template.metadata?.labels) delete template.metadata.labels['pod-template-hash'];
    return {
      ok: true,
      value: { patchType: 'json', patch: [{ op: 'replace', path: '/spec/template', value: template }] },
    };
  }
  const revision = await context.cluster.get(
    'ControllerRevision',
    { namespace: target.namespace, name: target.revision.controllerRevision ?? '' },
    options,
  );
  if (!revision.ok) return revision;
  return { ok: true, value: { patchType: 'strategic', patch: revision.value.data } };
}

async function undo(args: Input, context: ToolContext, dryRun: boolean): Promise<ToolResult<RolloutUndoData>> {
  const kind = args.kind ?? 'Deployment';
  const label = `${kind} ${args.namespace}/${args.name}`;
  const read = await readRolloutTarget(
    { namespace: args.namespace, name: args.name, kind, tool: 'rollout_undo' },
    context,
  );
  if (!read.ok) return read.failure;
  const { revisions, currentRevision } = read.history;
  const current = revisions.find((revision) => revision.revision === currentRevision);
  const target =
    args.toRevision !== undefined
      ? revisions.find((revision) => revision.revision === args.toRevision)
      : [...revisions]
          .reverse()
          .find((revision) => currentRevision === undefined || revision.revision < currentRevision);
  if (!target) {
    const kept = revisions.map((revision) => revision.revision).join(', ') || 'none';
    const what =
      args.toRevision !== undefined
        ? `revision ${args.toRevision} is not kept`
        : 'there is no revision before the current one';
    return {
      ok: false,
      error: 'invalid-input',
      content: `invalid-input: cannot undo ${label}: ${what} (kept: ${kept}).`,
    };
  }
  if (target.revision === currentRevision) {
    return {
      ok: false,
      error: 'invalid-input',
      content: `invalid-input: ${label} already runs revision ${target.revision}.`,
    };
  }
  const restore = await restorePatch({ kind, namespace: args.namespace, name: args.name, revision: target }, context);
  if (!restore.ok) return failureFrom(restore.error);
  // The object as it is now, to set against what the API server answers the patch with.
  const before = await context.cluster.get(
    kind,
    { namespace: args.namespace, name: args.name },
    { signal: context.signal },
  );
  if (!before.ok) return failureFrom(before.error);
  const patched = await context.cluster.patch({
    kind,
    namespace: args.namespace,
    name: args.name,
    ...restore.value,
    dryRun,
    signal: context.signal,
  });
  if (!patched.ok) return failureFrom(patched.error);
  const changes = current ? diffPodTemplates(current.template, target.template) : [];
  const templateLines = templateChangeLines(before.value.spec?.template, patched.value.spec?.template);
  const diff = [
    `${label}: pod template of revision ${currentRevision ?? '?'} → that of revision ${target.revision} (rolled out as a new revision)`,
    ...(templateLines.length ? templateLines : ['no pod template field changes']),
  ];
  const data: RolloutUndoData = {
    action: 'rollout_undo',
    kind,
    namespace: args.namespace,
    name: args.name,
    dryRun,
    diff,
    fromRevision: currentRevision ?? 0,
    toRevision: target.revision,
    changes,
  };
  const summary = changes.length ? ` Template changes: ${changes.map(formatDiffEntry).join('; ')}.` : '';
  const content = dryRun
    ? `Dry run passed: ${label} would go back from revision ${currentRevision ?? '?'} to the template of revision ${target.revision} (${revisionSource(target)}); nothing was changed.${summary}`
    : `Rolled back ${label} from revision ${currentRevision ?? '?'} to the template of revision ${target.revision} (${revisionSource(target)}); Kubernetes rolls it out as a new revision.${summary}`;
  return success(content, data);
}

export const rolloutUndoTool: WriteTool<typeof input, RolloutUndoData, 'rollout_undo'> = {
  name: 'rollout_undo',
  description:
    "Rolls a Deployment, StatefulSet or DaemonSet (set kind; Deployment by default) back to an earlier revision's pod template (kubectl rollout undo): " +
    'the previous revision by default, or toRevision. ' +
    'Use it when rollout_history shows the latest revision introduced the failure. Changes the cluster: it needs approval.',
  input,
  risk: 'write',
  run: (approved, context) => runWithDryRunFirst((dryRun) => undo(approved.input, context, dryRun)),
  dryRun: (args, context) => undo(args, context, true),
};
