/** `scale` (risk write): sets a Deployment's, StatefulSet's or ReplicaSet's replicas through the scale subresource. */
import { z } from 'zod';
import type { ScalableKind } from '../cluster/cluster.ts';
import { namespaceName, objectName } from './names.ts';
import { failureFrom, success } from './tool-results.ts';
import type { ToolContext, ToolResult, WriteTool } from './tool.ts';
import { runWithDryRunFirst, type WriteActionData } from './write-tool.ts';

export interface ScaleData extends WriteActionData {
  action: 'scale';
  previousReplicas: number;
  replicas: number;
}

/** The kinds `scale` takes: those with a scale subresource that kubewhy may set. */
export const SCALE_KINDS = ['Deployment', 'StatefulSet', 'ReplicaSet'] as const satisfies readonly ScalableKind[];

const input = z.object({
  namespace: namespaceName().describe('Namespace of the workload'),
  name: objectName().describe('Workload name'),
  kind: z.enum(SCALE_KINDS).default('Deployment').describe('Workload kind'),
  replicas: z.number().int().min(0).max(1000).describe('Desired number of replicas'),
});

type Input = z.infer<typeof input>;

async function scale(args: Input, context: ToolContext, dryRun: boolean): Promise<ToolResult<ScaleData>> {
  const result = await context.cluster.scale({
    kind: args.kind,
    namespace: args.namespace,
    name: args.name,
    replicas: args.replicas,
    dryRun,
    signal: context.signal,
  });
  if (!result.ok) return failureFrom(result.error);
  const target = `${args.kind} ${args.namespace}/${args.name}`;
  const { previousReplicas, replicas } = result.value;
  const diff = [`${target}: replicas ${previousReplicas} → ${replicas}${replicas === 0 ? ' (every pod stops)' : ''}`];
  const data: ScaleData = {
    action: 'scale',
    kind: args.kind,
    namespace: args.namespace,
    name: args.name,
    dryRun,
    diff,
    previousReplicas,
    replicas,
  };
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
  run: (approved, context) => runWithDryRunFirst((dryRun) => scale(approved.input, context, dryRun)),
  dryRun: (args, context) => scale(args, context, true),
};
