/**
 * The gate decides, outside the model, what happens to each tool call: run it, record it
 * as a proposal, hold it for a person's approval, or refuse it. Arguments are validated
 * with the tool's zod schema before any decision, so nothing unparsed reaches a tool.
 */
import type { Tool } from '../tools/tool.ts';
import { effectiveRung, isNamespaceAllowed, type LadderPolicy, type Rung } from './rung.ts';

export type GateDecision =
  | { decision: 'execute'; rung: Rung; input: Record<string, unknown> }
  | { decision: 'propose'; rung: Rung; input: Record<string, unknown>; reason: string }
  | { decision: 'hold'; rung: Rung; input: Record<string, unknown>; reason: string }
  | { decision: 'refuse'; rung: Rung; reason: string; error: 'invalid-input' | 'namespace-not-allowed' | 'unknown-tool' };

export interface GateRequest {
  tool: Tool | undefined;
  toolName: string;
  rawInput: unknown;
  runRung: Rung;
  policy: LadderPolicy;
  knownTools: readonly string[];
}

export function decideToolCall(request: GateRequest): GateDecision {
  const { tool, runRung, policy } = request;
  if (!tool) {
    return {
      decision: 'refuse',
      rung: runRung,
      error: 'unknown-tool',
      reason: `There is no tool named "${request.toolName}". Tools that exist: ${request.knownTools.join(', ')}.`,
    };
  }
  const parsed = tool.input.safeParse(request.rawInput ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(input)'}: ${issue.message}`);
    return { decision: 'refuse', rung: runRung, error: 'invalid-input', reason: `Invalid arguments for ${tool.name}: ${problems.join('; ')}.` };
  }
  const input = parsed.data as Record<string, unknown>;
  const namespace = typeof input.namespace === 'string' ? input.namespace : undefined;
  if (!isNamespaceAllowed(policy, namespace)) {
    return {
      decision: 'refuse',
      rung: runRung,
      error: 'namespace-not-allowed',
      reason: `Namespace "${namespace}" is outside this service's allowlist (${(policy.allowedNamespaces ?? []).join(', ')}).`,
    };
  }
  if (tool.risk === 'read') return { decision: 'execute', rung: runRung, input };

  const rung = effectiveRung({ requested: runRung, policy, namespace });
  if (rung === 'OBSERVE') {
    const why = runRung === 'OBSERVE' ? 'this run is at OBSERVE' : `policy caps namespace "${namespace ?? '(cluster)'}" at OBSERVE`;
    return { decision: 'propose', rung, input, reason: `${tool.risk} call not executed: ${why}. It is recorded as a proposed action for a person to review.` };
  }
  return { decision: 'hold', rung, input, reason: `${tool.risk} call held for a person's approval.` };
}
