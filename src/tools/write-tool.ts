/**
 * What write tools (risk `write` or `destructive`, see `WriteTool` in tool.ts) share: the
 * data every one returns, and the two-step run: `dryRun=All` first (the API server
 * validates and admits the request and persists nothing), the real call only when it passed.
 * `dryRunWrite` (registry.ts) runs the first step alone, to show a person what an approval would do.
 */
import type { ToolResult } from './tool.ts';

/** What every write tool's data holds: what it did (or would do), to what. */
export interface WriteActionData {
  action: 'rollout_restart' | 'rollout_undo' | 'scale' | 'delete_pod';
  kind: string;
  namespace: string;
  name: string;
  /** True when nothing was persisted. */
  dryRun: boolean;
  /**
   * What the call changes (or, in a dry run, would change), one readable line each, from
   * the object as it was and the object the API server answered with: `replicas: 3 → 0`.
   * References only, never a secret's value; redacted (see format/write-diff.ts).
   */
  diff: string[];
}

/**
 * Runs a write in two steps: the server-side dry run, then, when it passed, the real call.
 * `perform(dryRun)` is the tool's one request builder, so both steps send the same thing.
 */
export async function runWithDryRunFirst<Data>(
  perform: (dryRun: boolean) => Promise<ToolResult<Data>>,
): Promise<ToolResult<Data>> {
  const rehearsal = await perform(true);
  if (!rehearsal.ok) {
    return { ...rehearsal, content: `Not executed: the server-side dry run failed. ${rehearsal.content}` };
  }
  return perform(false);
}
