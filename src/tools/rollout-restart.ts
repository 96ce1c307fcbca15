/**
 * `rollout_restart` (risk write): what `kubectl rollout restart` does: stamps the pod
 * template with `kubectl.kubernetes.io/restartedAt`, so the controller replaces every pod.
 */
import { z } from 'zod';
import { namespaceName, objectName } from './names.ts';
import { ROLLOUT_KINDS } from './rollout-target.ts';
import { failureFrom, success } from './tool-results.ts';
import type { ToolContext, ToolResult, WriteTool } from './tool.ts';
import { runWithDryRunFirst, type WriteActionData } from './write-tool.ts';

export interface RolloutRestartData extends WriteActionData {
  action: 'rollout_restart';
  restartedAt: string;
}

const input = z.object({
  namespace: namespaceName().describe('Namespace of the workload'),
  name: objectName().describe('Workload name'),
  kind: z.enum(ROLLOUT_KINDS).default('Deployment').describe('Workload kind'),
});

type Input = z.infer<typeof input>;

async function restart(args: Input, context: ToolContext, dryRun: boolean): Promise<ToolResult<RolloutRestartData>> {
  const restartedAt = context.cluster.now().toISOString();
  const before = await context.cluster.get(
    args.kind,
    { namespace: args.namespace, name: args.name },
    { signal: context.signal },
  );
  if (!before.ok) return failureFrom(before.error);
  const result = await context.cluster.patch({
    kind: args.kind,
    namespace: args.namespace,
    name: args.name,
    patchType: 'strategic',
    patch: { spec: { template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': restartedAt } } } } },
    dryRun,
    signal: context.signal,
  });
  if (!result.ok) return failureFrom(result.error);
  const target = `${args.kind} ${args.namespace}/${args.name}`;
  const annotation = 'kubectl.kubernetes.io/restartedAt';
  const previous = before.value.spec?.template?.metadata?.annotations?.[annotation];
  const stamped = result.value.spec?.template?.metadata?.annotations?.[annotation] ?? restartedAt;
  const diff = [
    `${target}: pod template annotation ${annotation}: ${previous ?? '(none)'} → ${stamped}; every pod is replaced, one by one`,
  ];
  const data: RolloutRestartData = {
    action: 'rollout_restart',
    kind: args.kind,
    namespace: args.namespace,
    name: args.name,
    dryRun,
    diff,
    restartedAt,
  };
  const content = dryRun
    ? `Dry run passed: restarting ${target} would stamp its pod template with restartedAt=${restartedAt}; nothing was changed.`
    : `Restarted ${target}: pod template stamped with restartedAt=${restartedAt}; the controller now replaces its pods one by one (a rolling restart).`;
  return success(content, data);
}

export const rolloutRestartTool: WriteTool<typeof input, RolloutRestartData, 'rollout_restart'> = {
  name: 'rollout_restart',
  description:
    'Restarts every pod of a Deployment, StatefulSet or DaemonSet with a rolling update (kubectl rollout restart). Use it when pods must pick up ' +
    'a changed Secret or ConfigMap, or to clear a stuck state. Changes the cluster: it needs approval.',
  input,
  risk: 'write',
  run: (approved, context) => runWithDryRunFirst((dryRun) => restart(approved.input, context, dryRun)),
  dryRun: (args, context) => restart(args, context, true),
};
