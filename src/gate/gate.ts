/**
 * The gate decides, outside the model, what happens to each tool call: run it, record it
 * as a proposal, hold it for a person's approval, or refuse it. Arguments are validated
 * with the tool's zod schema and the namespace checked against the allowlist here, once,
 * before any decision: what the gate passes on is the validated input.
 *
 * A write runs only with an `ApprovedAction`, and only this module can make one: from a
 * hold decision that `decideToolCall` made, plus the approval a person gave. A held action
 * parked and resumed later is decided again from its stored tool name and arguments
 * (validated afresh), and the fresh hold is approved: nothing stored is trusted as approved.
 */
import type { RiskClass, Tool } from '../tools/tool.ts';
import { effectiveRung, isNamespaceAllowed, type LadderPolicy, type Rung } from './rung.ts';
import { validateToolInput } from './validate-input.ts';

/** Marks a hold decision as made here: an object literal cannot carry it, so no one else can forge a hold. */
const heldByGate: unique symbol = Symbol('held by the gate');

export interface ExecuteDecision {
  decision: 'execute';
  rung: Rung;
  toolName: string;
  /** The input as the tool's schema parsed it (defaults filled in). */
  input: Record<string, unknown>;
}

export interface ProposeDecision {
  decision: 'propose';
  rung: Rung;
  toolName: string;
  risk: Exclude<RiskClass, 'read'>;
  input: Record<string, unknown>;
  reason: string;
}

export interface HoldDecision {
  decision: 'hold';
  rung: Rung;
  toolName: string;
  risk: Exclude<RiskClass, 'read'>;
  input: Record<string, unknown>;
  reason: string;
  readonly [heldByGate]: true;
}

export interface RefuseDecision {
  decision: 'refuse';
  rung: Rung;
  reason: string;
  error: 'invalid-input' | 'namespace-not-allowed' | 'unknown-tool';
}

export type GateDecision = ExecuteDecision | ProposeDecision | HoldDecision | RefuseDecision;

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
  const validated = validateToolInput(tool, request.rawInput);
  if (!validated.ok) return { decision: 'refuse', rung: runRung, error: 'invalid-input', reason: validated.reason };
  const input = validated.input;
  const namespace = typeof input.namespace === 'string' ? input.namespace : undefined;
  if (!isNamespaceAllowed(policy, namespace)) {
    return {
      decision: 'refuse',
      rung: runRung,
      error: 'namespace-not-allowed',
      reason: `Namespace "${namespace}" is outside this service's allowlist (${(policy.allowedNamespaces ?? []).join(', ') || 'none'}).`,
    };
  }
  if (tool.risk === 'read') return { decision: 'execute', rung: runRung, toolName: tool.name, input };

  const rung = effectiveRung({ requested: runRung, policy, namespace });
  if (rung === 'OBSERVE') {
    const why =
      runRung === 'OBSERVE'
        ? 'this run is at OBSERVE'
        : `policy caps namespace "${namespace ?? '(cluster)'}" at OBSERVE`;
    const reason = `${tool.risk} call not executed: ${why}. It is recorded as a proposed action for a person to review.`;
    return { decision: 'propose', rung, toolName: tool.name, risk: tool.risk, input, reason };
  }
  return {
    decision: 'hold',
    rung,
    toolName: tool.name,
    risk: tool.risk,
    input,
    reason: `${tool.risk} call held for a person's approval.`,
    [heldByGate]: true,
  };
}

/** A person's recorded approval of one held action of one run. */
export interface Approval {
  /** Who approved (the approving token's subject, or the person at the terminal). */
  by: string;
  at: Date;
  runId: string;
  actionId: string;
}

/**
 * The one value a write tool runs with: which tool, the input the gate validated, which
 * run and action, and who approved it when. Only `approve` makes one: the private field
 * keeps object literals and other classes out, and `isApprovedAction` checks it at run
 * time too, so a cast cannot stand in for an approval either.
 */
class GateApprovedAction<Input extends Record<string, unknown> = Record<string, unknown>> {
  readonly #approvedByGate = true;
  readonly toolName: string;
  readonly risk: Exclude<RiskClass, 'read'>;
  readonly input: Readonly<Input>;
  readonly runId: string;
  readonly actionId: string;
  readonly approval: { readonly by: string; readonly at: Date };

  constructor(hold: HoldDecision, approval: Approval) {
    this.toolName = hold.toolName;
    this.risk = hold.risk;
    // A copy, frozen: changing the hold decision's input after approval changes nothing here.
    this.input = Object.freeze(structuredClone(hold.input)) as Readonly<Input>;
    this.runId = approval.runId;
    this.actionId = approval.actionId;
    this.approval = Object.freeze({ by: approval.by, at: new Date(approval.at.getTime()) });
    Object.freeze(this);
  }

  static isApproved(value: unknown): value is GateApprovedAction {
    return typeof value === 'object' && value !== null && #approvedByGate in value;
  }
}

export type ApprovedAction<Input extends Record<string, unknown> = Record<string, unknown>> = GateApprovedAction<Input>;

/** True only for a value `approve` made. */
export function isApprovedAction(value: unknown): value is ApprovedAction {
  return GateApprovedAction.isApproved(value);
}

/**
 * Turns a hold decision and a person's approval into the value a write runs with. At resume
 * time, decide the stored call again (`decideToolCall` on the stored tool name and args):
 * only a fresh `hold` can be approved; a call that policy now proposes or refuses cannot.
 * Misuse (a hold this module did not make, an approval without a person or a time) is a
 * bug, and throws.
 */
export function approve(hold: HoldDecision, approval: Approval): ApprovedAction {
  if (hold.decision !== 'hold' || hold[heldByGate] !== true)
    throw new TypeError('approve: only a hold decision made by decideToolCall can be approved');
  if (typeof approval.by !== 'string' || approval.by.trim() === '')
    throw new TypeError('approve: the approval must name who approved');
  if (!(approval.at instanceof Date) || Number.isNaN(approval.at.getTime()))
    throw new TypeError('approve: the approval must carry the time it was given');
  if (!approval.runId || !approval.actionId) throw new TypeError('approve: the approval must name its run and action');
  return new GateApprovedAction(hold, approval);
}
