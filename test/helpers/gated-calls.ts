/**
 * Tool calls as the agent makes them, for tests that call tools directly: the gate validates
 * and decides, then a read runs through `runReadTool`, and a held write is approved (as a
 * person would) and runs through `runApprovedWrite`. The run is at ACT with ACT allowed in
 * every namespace, so a write is held, never only proposed; the context's allowlist is the
 * policy's.
 */
import { approve, decideToolCall, type GateDecision } from '../../src/gate/gate.ts';
import { dryRunWrite, runApprovedWrite, runReadTool, type ToolRegistry } from '../../src/tools/registry.ts';
import type { ToolContext, ToolResult } from '../../src/tools/tool.ts';

export interface GatedCall {
  registry: ToolRegistry;
  name: string;
  input: unknown;
  context: ToolContext;
}

function decide(call: GatedCall): GateDecision {
  return decideToolCall({
    tool: call.registry.get(call.name),
    toolName: call.name,
    rawInput: call.input,
    runRung: 'ACT',
    policy: {
      actNamespaces: ['*'],
      ...(call.context.allowedNamespaces ? { allowedNamespaces: call.context.allowedNamespaces } : {}),
    },
    knownTools: call.registry.list().map((tool) => tool.name),
  });
}

function refused(decision: GateDecision): ToolResult {
  if (decision.decision === 'refuse')
    return { ok: false, error: decision.error, content: `${decision.error}: ${decision.reason}` };
  return {
    ok: false,
    error: 'internal',
    content: `the gate decided "${decision.decision}", which this helper does not run`,
  };
}

let approvals = 0;

/** Decides the call and runs it: a read at once, a write once approved by "test". */
export async function callThroughGate(call: GatedCall): Promise<ToolResult> {
  const decision = decide(call);
  if (decision.decision === 'execute')
    return runReadTool({
      registry: call.registry,
      name: decision.toolName,
      input: decision.input,
      context: call.context,
    });
  if (decision.decision !== 'hold') return refused(decision);
  approvals += 1;
  const approved = approve(decision, { by: 'test', at: new Date(), runId: 'test-run', actionId: `act-${approvals}` });
  return runApprovedWrite({ registry: call.registry, approved, context: call.context });
}

/** Decides a write call and runs only its server-side dry run, as is done before asking a person. */
export async function dryRunThroughGate(call: GatedCall): Promise<ToolResult> {
  const decision = decide(call);
  if (decision.decision !== 'hold') return refused(decision);
  return dryRunWrite({
    registry: call.registry,
    name: decision.toolName,
    input: decision.input,
    context: call.context,
  });
}
