/**
 * `rollout_undo` (risk write): what `kubectl rollout undo` does for a Deployment: puts the
 * pod template of an earlier revision (the previous one by default) back, which Kubernetes
 * rolls out as a new revision.
 */
import { z } from 'zod';
import { readRolloutHistory } from './format/rollout.ts';
import { diffPodTemplates, formatDiffEntry, type TemplateDiffEntry } from './format/template-diff.ts';
import { failureFrom, success } from './tool-results.ts';
import type { ToolContext, ToolResult } from './tool.ts';
import { runWithDryRunFirst, type WriteActionData, type WriteTool } from './write-tool.ts';

export interface RolloutUndoData extends WriteActionData {
  action: 'rollout_undo';
  fromRevision: number;
  toRevision: number;
  /** What the undo changes in the pod template, from the current revision to the target. */
  changes: TemplateDiffEntry[];
}

const input = z.object({
  namespace: z.string().min(1).describe('Namespace of the Deployment'),
  name: z.string().min(1).describe('Deployment name'),
  toRevision: z.number().int().min(1).optional().describe('Revision to return to (see rollout_history); omitted: the one before the current'),
});

type Input = z.infer<typeof input>;

async function undo(args: Input, context: ToolContext, dryRun: boolean): Promise<ToolResult> {
  const deployment = await context.cluster.get('Deployment', { namespace: args.namespace, name: args.name }, { signal: context.signal });
  if (!deployment.ok) return failureFrom(deployment.error);
  const history = await readRolloutHistory({ cluster: context.cluster, deployment: deployment.value, signal: context.signal });
  if (!history.ok) return failureFrom(history.error);
  const { revisions, currentRevision } = history.value;
  const current = revisions.find((revision) => revision.revision === currentRevision);
  const target =
    args.toRevision !== undefined
      ? revisions.find((revision) => revision.revision === args.toRevision)
      : [...revisions].reverse().find((revision) => currentRevision === undefined || revision.revision < currentRevision);
  if (!target) {
    const kept = revisions.map((revision) => revision.revision).join(', ') || 'none';
    const what = args.toRevision !== undefined ? `revision ${args.toRevision} is not kept` : 'there is no revision before the current one';
    return { ok: false, error: 'invalid-input', content: `invalid-input: cannot undo Deployment ${args.namespace}/${args.name}: ${what} (kept: ${kept}).` };
  }
  if (target.revision === currentRevision) {
    return { ok: false, error: 'invalid-input', content: `invalid-input: Deployment ${args.namespace}/${args.name} already runs revision ${target.revision}.` };
  }
  const replicaSet = await context.cluster.get('ReplicaSet', { namespace: args.namespace, name: target.replicaSet }, { signal: context.signal });
  if (!replicaSet.ok) return failureFrom(replicaSet.error);
  const template = structuredClone(replicaSet.value.spec?.template ?? {});
  // The hash label belongs to the ReplicaSet; the Deployment controller adds the right one back.
  if (template.metadata?.labels) delete template.metadata.labels['pod-template-hash'];
  const patched = await context.cluster.patch({
    kind: 'Deployment',
    namespace: args.namespace,
    name: args.name,
    patchType: 'json',
    patch: [{ op: 'replace', path: '/spec/template', value: template }],
    dryRun,
    signal: context.signal,
  });
  if (!patched.ok) return failureFrom(patched.error);
  const changes = current ? diffPodTemplates(current.template, target.template) : [];
  const data: RolloutUndoData = { action: 'rollout_undo', kind: 'Deployment', namespace: args.namespace, name: args.name, dryRun, fromRevision: currentRevision ?? 0, toRevision: target.revision, changes };
  const summary = changes.length ? ` Template changes: ${changes.map(formatDiffEntry).join('; ')}.` : '';
  const content = dryRun
    ? `Dry run passed: Deployment ${args.namespace}/${args.name} would go back from revision ${currentRevision ?? '?'} to the template of revision ${target.revision} (ReplicaSet ${target.replicaSet}); nothing was changed.${summary}`
    : `Rolled back Deployment ${args.namespace}/${args.name} from revision ${currentRevision ?? '?'} to the template of revision ${target.revision} (ReplicaSet ${target.replicaSet}); Kubernetes rolls it out as a new revision.${summary}`;
  return success(content, data);
}

export const rolloutUndoTool: WriteTool<typeof input> = {
  name: 'rollout_undo',
  description:
    'Rolls a Deployment back to an earlier revision\'s pod template (kubectl rollout undo): the previous revision by default, or toRevision. ' +
    'Use it when rollout_history shows the latest revision introduced the failure. Changes the cluster: it needs approval.',
  input,
  risk: 'write',
  run: (args, context) => runWithDryRunFirst((dryRun) => undo(args, context, dryRun)),
  dryRun: (args, context) => undo(args, context, true),
};
