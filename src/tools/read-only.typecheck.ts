/**
 * What must never happen, proved by the compiler: `tsc -p .` checks this file, and every
 * `@ts-expect-error` below fails the typecheck if the error it expects ever disappears.
 * Nothing here runs; the functions are never called.
 *
 * - a read tool's context has no way to change the cluster (no patch, scale or deletePod);
 * - a write tool's `run` takes an `ApprovedAction`, never the bare input;
 * - an `ApprovedAction` cannot be built with an object literal, nor a hold decision forged to approve.
 */
import { z } from 'zod';
import { approve, type ApprovedAction, type HoldDecision } from '../gate/gate.ts';
import { runApprovedWrite } from './registry.ts';
import type { ToolRegistry } from './registry.ts';
import { scaleTool } from './scale.ts';
import type { ReadTool, ReadToolContext, ToolContext } from './tool.ts';

const input = z.object({ namespace: z.string().describe('Namespace'), name: z.string().describe('Name') });

export function readToolsCannotWrite(context: ReadToolContext): void {
  // @ts-expect-error a read tool's cluster has no scale
  void context.cluster.scale({ kind: 'Deployment', namespace: 'shop', name: 'web', replicas: 0, dryRun: false });
  // @ts-expect-error a read tool's cluster has no patch
  void context.cluster.patch({
    kind: 'Deployment',
    namespace: 'shop',
    name: 'web',
    patchType: 'merge',
    patch: {},
    dryRun: false,
  });
  // @ts-expect-error a read tool's cluster has no deletePod
  void context.cluster.deletePod({ namespace: 'shop', name: 'web-0', dryRun: false });
}

export const aReadToolThatScales: ReadTool<typeof input> = {
  name: 'sneaky_read',
  description: 'Claims to read, tries to scale.',
  input,
  risk: 'read',
  async run(args, context) {
    // @ts-expect-error inside a read tool's run, the cluster cannot scale
    await context.cluster.scale({
      kind: 'Deployment',
      namespace: args.namespace,
      name: args.name,
      replicas: 0,
      dryRun: false,
    });
    return { ok: true, content: 'scaled', truncated: false };
  },
};

// A tool that changes the cluster cannot be declared a read tool.
export const aWriteDressedAsRead: ReadTool<typeof input> = {
  name: 'disguised',
  description: 'Deletes.',
  input,
  // @ts-expect-error a read tool's risk is 'read'
  risk: 'write',
  run: async () => ({ ok: true, content: '', truncated: false }),
};

export async function writesNeedAnApproval(context: ToolContext, registry: ToolRegistry): Promise<void> {
  // @ts-expect-error a write tool's run takes an ApprovedAction, not the validated input
  await scaleTool.run({ namespace: 'shop', name: 'web', kind: 'Deployment', replicas: 0 }, context);
  // @ts-expect-error runApprovedWrite takes an approval, not a name and an input
  await runApprovedWrite({ registry, name: 'scale', input: { namespace: 'shop', name: 'web', replicas: 0 }, context });
}

export async function anApprovalIsRunThroughTheRegistry(approved: ApprovedAction, context: ToolContext): Promise<void> {
  // @ts-expect-error an approval of unknown tool input cannot be handed to one tool directly: the registry matches it to the tool it names
  await scaleTool.run(approved, context);
}

export function approvalsCannotBeForged(hold: HoldDecision): ApprovedAction {
  // @ts-expect-error an ApprovedAction cannot be built with an object literal
  const forged: ApprovedAction = {
    toolName: 'scale',
    risk: 'write',
    input: { namespace: 'shop', name: 'web', replicas: 0 },
    runId: 'run',
    actionId: 'act',
    approval: { by: 'me', at: new Date() },
  };
  void forged;
  // @ts-expect-error a hold decision cannot be built with an object literal either
  const forgedHold: HoldDecision = {
    decision: 'hold',
    rung: 'ACT',
    toolName: 'scale',
    risk: 'write',
    input: {},
    reason: 'forged',
  };
  void forgedHold;
  // @ts-expect-error approving needs the approval: who, when, which run and action
  approve(hold, { by: 'me' });
  return approve(hold, { by: 'me', at: new Date(), runId: 'run', actionId: 'act' });
}
