/**
 * `delete_pod` (risk destructive): deletes one pod. A controller (ReplicaSet, StatefulSet,
 * DaemonSet, Job) creates a replacement; a bare pod is gone for good, and the result says which.
 */
import { z } from 'zod';
import { namespaceName, objectName } from './names.ts';
import { formatOwnerChain, resolveOwnerChain, type OwnerData } from './format/owners.ts';
import { failureFrom, success } from './tool-results.ts';
import type { ToolContext, ToolResult, WriteTool } from './tool.ts';
import { runWithDryRunFirst, type WriteActionData } from './write-tool.ts';

export interface DeletePodData extends WriteActionData {
  action: 'delete_pod';
  /** The controllers above the pod; empty for a bare pod, which nothing recreates. */
  owners: OwnerData[];
  willBeReplaced: boolean;
}

const input = z.object({
  namespace: namespaceName().describe('Namespace of the pod'),
  name: objectName().describe('Pod name'),
});

type Input = z.infer<typeof input>;

async function deletePod(args: Input, context: ToolContext, dryRun: boolean): Promise<ToolResult<DeletePodData>> {
  const pod = await context.cluster.get(
    'Pod',
    { namespace: args.namespace, name: args.name },
    { signal: context.signal },
  );
  if (!pod.ok) return failureFrom(pod.error);
  const owners = await resolveOwnerChain({
    cluster: context.cluster,
    namespace: args.namespace,
    metadata: pod.value.metadata,
    signal: context.signal,
  });
  const deleted = await context.cluster.deletePod({
    namespace: args.namespace,
    name: args.name,
    dryRun,
    signal: context.signal,
  });
  if (!deleted.ok) return failureFrom(deleted.error);
  const willBeReplaced = owners.length > 0;
  const after = willBeReplaced
    ? `its controller (${formatOwnerChain(owners)}) creates a replacement`
    : 'it is a bare pod: nothing recreates it';
  const diff = [`Pod ${args.namespace}/${args.name}: deleted; ${after}`];
  const data: DeletePodData = {
    action: 'delete_pod',
    kind: 'Pod',
    namespace: args.namespace,
    name: args.name,
    dryRun,
    diff,
    owners,
    willBeReplaced,
  };
  const content = dryRun
    ? `Dry run passed: pod ${args.namespace}/${args.name} can be deleted; ${after}. Nothing was changed.`
    : `Deleted pod ${args.namespace}/${args.name}; ${after}.`;
  return success(content, data);
}

export const deletePodTool: WriteTool<typeof input, DeletePodData, 'delete_pod'> = {
  name: 'delete_pod',
  description:
    'Deletes one pod (kubectl delete pod). Its controller creates a fresh replacement; a pod without a controller is gone for good. ' +
    'Use it for a single stuck pod (e.g. on a failed node). Destructive: it needs approval.',
  input,
  risk: 'destructive',
  run: (approved, context) => runWithDryRunFirst((dryRun) => deletePod(approved.input, context, dryRun)),
  dryRun: (args, context) => deletePod(args, context, true),
};
