/**
 * Write tools (risk `write` or `destructive`) carry a second entry point, `dryRun`, that
 * sends the same request with `dryRun=All`: the API server validates and admits it and
 * persists nothing. `run` always performs that dry run first and stops if it fails.
 * The gate may call `dryRunTool` (registry.ts) to show a person what an approval would do.
 */
import type { z } from 'zod';
import type { AnyZodObject, Tool, ToolContext, ToolResult } from './tool.ts';

export interface WriteTool<Input extends AnyZodObject = AnyZodObject, Data = unknown, Name extends string = string> extends Tool<Input, Data, Name> {
  dryRun(input: z.infer<Input>, context: ToolContext): Promise<ToolResult<Data>>;
}

export function isWriteTool(tool: Tool): tool is WriteTool {
  return tool.risk !== 'read' && typeof (tool as Partial<WriteTool>).dryRun === 'function';
}

/** What every write tool's data holds: what it did (or would do), to what. */
export interface WriteActionData {
  action: 'rollout_restart' | 'rollout_undo' | 'scale' | 'delete_pod';
  kind: string;
  namespace: string;
  name: string;
  /** True when nothing was persisted. */
  dryRun: boolean;
}

/**
 * Runs a write in two steps: the server-side dry run, then, when it passed, the real call.
 * `perform(dryRun)` is the tool's one request builder, so both steps send the same thing.
 */
export async function runWithDryRunFirst<Data>(perform: (dryRun: boolean) => Promise<ToolResult<Data>>): Promise<ToolResult<Data>> {
  const rehearsal = await perform(true);
  if (!rehearsal.ok) {
    return { ...rehearsal, content: `Not executed: the server-side dry run failed. ${rehearsal.content}` };
  }
  return perform(false);
}
