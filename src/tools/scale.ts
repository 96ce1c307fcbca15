/** `scale` (risk write): sets a Deployment's, StatefulSet's or ReplicaSet's replicas through the scale subresource. */
import { z } from 'zod';
import { failureFrom, success } from './tool-results.ts';
import type { ToolContext, ToolResult } from './tool.ts';
import { runWithDryRunFirst, type WriteActionData, type WriteTool } from './write-tool.ts';

export interface ScaleData extends WriteActionData {
  action: 'scale';
  previousReplicas: number;
  replicas: number;
}

const input = z.object({
  namespace: z.string().min(1).describe('Namespace of the workload'),
  name: z.string().min(1).describe('Workload name'),
  kind: z.enum(['Deployment', 'StatefulSet', 'ReplicaSet']).default('Deployment').describe('Workload kind'),
  replicas: z.number().int().min(0).max(1000).describe('Desired number of replicas'),
});

type Input = z.infer<typeof input>;

async function scale(args: Input, context: ToolContext, dryRun: boolean): Promise<ToolResult<ScaleData>> {
  const result = await context.cluster.scale({ kind: args.kind, namespace: args.namespace, name: args.name, replicas: args.replicas, dryRun, signal: context.signal });
  if (!result.ok) return failureFrom(result.error);
  const data: ScaleData = { action: 'scale', kind: args.kind, namespace: args.namespace, name: args.name, dryRun, previousReplicas: result.value.previousReplicas, replicas: result.value.replicas };
  const target = `${args.kind} ${args.namespace}/${args.name}`;
  const content = dryRun
    ? `Dry run passed: ${target} would go from ${data.previousReplicas} to ${args.replicas} replica(s); nothing was changed.`
    : `Scaled ${target} from ${data.previousReplicas} to ${data.replicas} replica(s).`;
  return success(content, data);
}

export const scaleTool: WriteTool<typeof input, ScaleData, 'scale'> = {
  name: 'scale',
  description:
    'Sets the replica count of a Deployment, StatefulSet or ReplicaSet (kubectl scale). Use it to relieve load or to stop a workload that harms ' +
    'others (replicas=0). An autoscaler may override it. Changes the cluster: it needs approval.',
  input,
  risk: 'write',
  run: (args, context) => runWithDryRunFirst((dryRun) => scale(args, context, dryRun)),
  dryRun: (args, context) => scale(args, context, true),
};
