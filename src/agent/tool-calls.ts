/**
 * One tool call through the gate: audit the call, decide, then run it, record it as a
 * proposal, or hold it for a person's approval. A held action either waits here for a
 * broker's decision (the CLI asks the person at the terminal) or, when the run has no
 * broker (the service), is left awaiting approval: the loop then parks the run in the
 * store and a later attempt resumes it with the decision (see resumeHeldCall). Always
 * resolves to a result the model can read; never throws for a tool's failure.
 */
import { randomUUID } from 'node:crypto';
import type { ApprovalBroker } from '../gate/approvals.ts';
import { approve, decideToolCall, type GateDecision } from '../gate/gate.ts';
import type { LadderPolicy, Rung } from '../gate/rung.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import { runApprovedWrite, runReadTool } from '../tools/registry.ts';
import type { ToolContext, ToolResult } from '../tools/tool.ts';
import type { Action } from './diagnosis.ts';
import type { ToolCall } from './model.ts';
import type { AgentObserver } from './observer.ts';
import type { RunAudit } from './run-audit.ts';

export interface CallEnvironment {
  runId: string;
  rung: Rung;
  policy: LadderPolicy;
  registry: ToolRegistry;
  toolContext: ToolContext;
  /** Waits for a decision on a held action; absent, a held action parks the run. */
  approvals?: ApprovalBroker;
  approvalTtlMs: number;
  /** How many actions one run may hold for approval; a write past it is refused and the model told. */
  maxHeldActions: number;
  audit: RunAudit;
  observer: AgentObserver;
  /** The run's actions, in the order they were asked for; mutated here and announced through the observer. */
  actions: Action[];
}

export async function executeToolCall(call: ToolCall, environment: CallEnvironment): Promise<ToolResult> {
  const { registry, audit, observer } = environment;
  const tool = registry.get(call.name);
  const risk = tool?.risk ?? 'unknown';
  audit.record('tool-call', { callId: call.id, tool: call.name, args: call.input, risk });

  const decision = limitHolds(
    decideToolCall({
      tool,
      toolName: call.name,
      rawInput: call.input,
      runRung: environment.rung,
      policy: environment.policy,
      knownTools: registry.list().map((known) => known.name),
    }),
    environment,
  );
  observer.gateDecision?.({ risk, decision: decision.decision });
  audit.record('gate-decision', {
    callId: call.id,
    decision: decision.decision,
    rung: decision.rung,
    ...('reason' in decision ? { reason: decision.reason } : {}),
  });

  let result: ToolResult;
  const started = performance.now();
  switch (decision.decision) {
    case 'refuse':
      result = { ok: false, error: decision.error, content: decision.reason };
      break;
    case 'execute':
      result = await runReadTool({ registry, name: call.name, input: decision.input, context: environment.toolContext });
      break;
    case 'propose': {
      const action = addAction(environment, { tool: call.name, args: decision.input, risk: tool?.risk ?? 'write', status: 'proposed', reason: decision.reason });
      result = { ok: true, truncated: false, content: `${decision.reason} Action id: ${action.id}.`, data: { action }, actionId: action.id };
      break;
    }
    case 'hold':
      result = environment.approvals ? await holdForApproval(call, decision.input, environment) : leaveHeld(call, decision.input, environment);
      break;
  }
  // A held call's result comes when the run resumes with the decision.
  if (!isLeftHeld(result, environment)) recordResult(call, result, performance.now() - started, environment);
  return result;
}

function recordResult(call: ToolCall, result: ToolResult, durationMs: number, environment: CallEnvironment): void {
  const risk = environment.registry.get(call.name)?.risk ?? 'unknown';
  environment.observer.toolCall?.({ tool: call.name, risk, outcome: result.ok ? 'ok' : result.error, durationSeconds: durationMs / 1000 });
  environment.audit.record('tool-result', {
    callId: call.id,
    tool: call.name,
    durationMs: Math.round(durationMs),
    bytes: Buffer.byteLength(result.content),
    truncated: result.ok ? result.truncated : false,
    ...(result.ok ? {} : { error: result.error }),
    content: result.content,
  });
}

/** True for the result of a call left awaiting a person's decision (the run parks). */
export function isLeftHeld(result: ToolResult, environment: Pick<CallEnvironment, 'actions'>): boolean {
  return result.actionId !== undefined && environment.actions.some((action) => action.id === result.actionId && action.status === 'awaiting_approval');
}

type CallDecision = GateDecision | { decision: 'refuse'; rung: Rung; reason: string; error: 'forbidden' };

/** Refuses a hold past the run's limit: the model is told, and nothing is held. */
function limitHolds(decision: GateDecision, environment: CallEnvironment): CallDecision {
  if (decision.decision !== 'hold') return decision;
  const held = environment.actions.filter((action) => action.status !== 'proposed').length;
  if (held < environment.maxHeldActions) return decision;
  return {
    decision: 'refuse',
    rung: decision.rung,
    error: 'forbidden',
    reason: `Not held: this run has already asked a person to approve ${held} action(s), the most one run may ask for. Do not call more write tools; put any further remediation in the diagnosis summary.`,
  };
}

/** Waits for the broker's decision, then runs the write when approved. */
async function holdForApproval(call: ToolCall, input: Record<string, unknown>, environment: CallEnvironment): Promise<ToolResult> {
  const action = holdAction(call, input, environment);
  const outcome = await (environment.approvals as ApprovalBroker).waitForDecision(
    { runId: environment.runId, actionId: action.id, tool: call.name, args: input, expiresAt: new Date(action.expiresAt ?? Date.now()) },
    environment.toolContext.signal,
  );
  environment.audit.record('approval', { actionId: action.id, decision: outcome.decision, ...(outcome.by ? { by: outcome.by } : {}), ...(outcome.reason ? { reason: outcome.reason } : {}) });
  updateAction(environment, action, { ...(outcome.by ? { decidedBy: outcome.by } : {}), decidedAt: new Date().toISOString() });
  return applyDecision(call, action, { decision: outcome.decision, ...(outcome.reason ? { reason: outcome.reason } : {}) }, environment);
}

/** Leaves the action awaiting approval: the loop parks the run once the turn's other calls are answered. */
function leaveHeld(call: ToolCall, input: Record<string, unknown>, environment: CallEnvironment): ToolResult {
  const action = holdAction(call, input, environment);
  return { ok: true, truncated: false, content: `Held for a person's approval as action ${action.id}.`, data: { action }, actionId: action.id };
}

function holdAction(call: ToolCall, input: Record<string, unknown>, environment: CallEnvironment): Action {
  const tool = environment.registry.get(call.name);
  const expiresAt = new Date(Date.now() + environment.approvalTtlMs).toISOString();
  return addAction(environment, { tool: call.name, args: input, risk: tool?.risk ?? 'write', status: 'awaiting_approval', expiresAt });
}

/**
 * A parked run's held call, once a person decided (or its time ran out): the write runs
 * when approved, and the result is what the model reads for that call. The decision
 * itself was audited when it was made.
 */
export async function resumeHeldCall(call: ToolCall, action: Action, environment: CallEnvironment): Promise<ToolResult> {
  const started = performance.now();
  const decision = action.status === 'approved' ? 'approved' : action.status === 'rejected' ? 'rejected' : 'expired';
  const result = await applyDecision(call, action, { decision, ...(action.reason ? { reason: action.reason } : {}) }, environment);
  recordResult(call, result, performance.now() - started, environment);
  return result;
}

async function applyDecision(call: ToolCall, action: Action, outcome: { decision: 'approved' | 'rejected' | 'expired'; reason?: string }, environment: CallEnvironment): Promise<ToolResult> {
  if (outcome.decision !== 'approved') {
    updateAction(environment, action, { status: outcome.decision, ...(outcome.reason ? { reason: outcome.reason } : {}) });
    const why = outcome.decision === 'rejected' ? `rejected${action.decidedBy ? ` by ${action.decidedBy}` : ''}` : 'expired without a decision';
    return { ok: true, truncated: false, content: `Not executed: action ${action.id} (${call.name}) was ${why}${outcome.reason ? `: ${outcome.reason}` : ''}. Continue without it.`, data: { action }, actionId: action.id };
  }
  // Decided again from what was stored: only a fresh hold can be approved, so a policy changed meanwhile wins.
  const again = decideToolCall({
    tool: environment.registry.get(action.tool),
    toolName: action.tool,
    rawInput: action.args,
    runRung: environment.rung,
    policy: environment.policy,
    knownTools: environment.registry.list().map((known) => known.name),
  });
  if (again.decision !== 'hold') {
    const why = again.decision === 'refuse' ? again.reason : `the gate would now ${again.decision} it: ${again.decision === 'execute' ? 'it is not a write' : again.reason}`;
    updateAction(environment, action, { status: 'failed', result: `not executed: ${why}` });
    return { ok: false, error: 'forbidden', content: `Not executed: action ${action.id} (${call.name}) was approved, but ${why}`, actionId: action.id };
  }
  const approved = approve(again, { by: action.decidedBy ?? 'unknown', at: action.decidedAt ? new Date(action.decidedAt) : new Date(), runId: environment.runId, actionId: action.id });
  updateAction(environment, action, { status: 'approved', ...(action.decidedBy ? { reason: `approved by ${action.decidedBy}` } : {}) });
  // The write tool dry-runs on the server before its real call.
  const result = await runApprovedWrite({ registry: environment.registry, approved, context: environment.toolContext });
  updateAction(environment, action, { status: result.ok ? 'executed' : 'failed', result: result.content.slice(0, 2000) });
  return { ...result, actionId: action.id };
}

function addAction(environment: CallEnvironment, fields: Omit<Action, 'id'>): Action {
  const action: Action = { id: `act-${randomUUID().slice(0, 8)}`, ...fields };
  environment.actions.push(action);
  environment.observer.actionsChanged?.(environment.actions);
  return action;
}

function updateAction(environment: CallEnvironment, action: Action, fields: Partial<Action>): void {
  Object.assign(action, fields);
  environment.observer.actionsChanged?.(environment.actions);
}
