/**
 * One tool call through the gate: audit the call, decide, then run it, record it as a
 * proposal, or hold it for a person's approval. A held action is not put to anyone here:
 * the model is told it will be, together with its diagnosis, and goes on; once the
 * diagnosis is in, the loop asks (held-actions.ts) and the decided call is answered through
 * `applyDecision` (or `resumeHeldCall`, when a parked run resumes). Always resolves to a
 * result the model can read; never throws for a tool's failure.
 */
import { randomUUID } from 'node:crypto';
import type { ApprovalBroker } from '../gate/approvals.ts';
import { redactText } from '../redact/redactor.ts';
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
  /** Waits for a decision on a held action; absent, the run parks once its held actions are put to a person. */
  approvals?: ApprovalBroker;
  approvalTtlMs: number;
  /** How many actions one run may hold for approval; a write past it is refused and the model told. */
  maxHeldActions: number;
  audit: RunAudit;
  observer: AgentObserver;
  /** The run's actions, in the order they were asked for; mutated here and announced through the observer. */
  actions: Action[];
  /** The call that made each held action, by action id: it is answered once the action is decided. */
  heldCalls: Map<string, ToolCall>;
  /** A held action's write data (from its dry run, then its real call), by action id. */
  writeData: Map<string, unknown>;
}

/** `statedReason`: what the model said in the turn that made the call, kept as a held action's reason. */
export async function executeToolCall(
  call: ToolCall,
  environment: CallEnvironment,
  options: { statedReason?: string } = {},
): Promise<ToolResult> {
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
  const held =
    decision.decision === 'hold'
      ? holdUntilDiagnosed(call, decision.input, environment, options.statedReason)
      : undefined;
  audit.record('gate-decision', {
    callId: call.id,
    decision: decision.decision,
    rung: decision.rung,
    ...('reason' in decision ? { reason: decision.reason } : {}),
    // A held call's answer comes once it is decided: what the model reads meanwhile is recorded here.
    ...(held ? { actionId: held.actionId, told: held.content } : {}),
  });

  let result: ToolResult;
  const started = performance.now();
  switch (decision.decision) {
    case 'refuse':
      result = { ok: false, error: decision.error, content: decision.reason };
      break;
    case 'execute':
      result = await runReadTool({
        registry,
        name: call.name,
        input: decision.input,
        context: environment.toolContext,
      });
      break;
    case 'propose': {
      const action = addAction(environment, {
        tool: call.name,
        args: decision.input,
        risk: tool?.risk ?? 'write',
        status: 'proposed',
        reason: decision.reason,
      });
      result = {
        ok: true,
        truncated: false,
        content: `${decision.reason} Action id: ${action.id}.`,
        data: { action },
        actionId: action.id,
      };
      break;
    }
    case 'hold':
      result = held as ToolResult;
      break;
  }
  // A held call's result is recorded when it is decided.
  if (!isLeftHeld(result, environment)) recordResult(call, result, performance.now() - started, environment);
  return result;
}

export function recordResult(
  call: ToolCall,
  result: ToolResult,
  durationMs: number,
  environment: CallEnvironment,
): void {
  const risk = environment.registry.get(call.name)?.risk ?? 'unknown';
  environment.observer.toolCall?.({
    tool: call.name,
    input: call.input,
    risk,
    outcome: result.ok ? 'ok' : result.error,
    durationSeconds: durationMs / 1000,
  });
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

/** True for the result of a call left awaiting a person's decision. */
export function isLeftHeld(result: ToolResult, environment: Pick<CallEnvironment, 'actions'>): boolean {
  return (
    result.actionId !== undefined &&
    environment.actions.some((action) => action.id === result.actionId && action.status === 'awaiting_approval')
  );
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

/**
 * Holds the call as an action awaiting approval, not yet put to anyone: it is asked about,
 * with its dry run's diff and its reason, once the model has submitted its diagnosis.
 */
function holdUntilDiagnosed(
  call: ToolCall,
  input: Record<string, unknown>,
  environment: CallEnvironment,
  statedReason: string | undefined,
): ToolResult & { actionId: string } {
  const tool = environment.registry.get(call.name);
  const reason = statedReason ? redactText(statedReason.trim()).slice(0, MAX_REASON_CHARS) : '';
  const action = addAction(environment, {
    tool: call.name,
    args: input,
    risk: tool?.risk ?? 'write',
    status: 'awaiting_approval',
    ...(reason ? { reason } : {}),
  });
  environment.heldCalls.set(action.id, call);
  const content =
    `Held as action ${action.id}: not run now. Once you submit your diagnosis, it is put to a person together with the diagnosis, ` +
    `its reason and what a server-side dry run says it would change; if approved, it runs after you submit, and the run ends. ` +
    `Go on with the investigation and submit your diagnosis; recommend this action in it and say why. Do not call it again.`;
  return { ok: true, truncated: false, content, data: { action }, actionId: action.id };
}

/** The longest reason kept from what the model said: the person reads it before deciding. */
const MAX_REASON_CHARS = 600;

/**
 * A parked run's held call, once a person decided (or its time ran out): the write runs
 * when approved, and the result answers that call (the model reads it when the run parked
 * mid-investigation, as earlier versions parked). The decision itself was audited when it
 * was made.
 */
export async function resumeHeldCall(
  call: ToolCall,
  action: Action,
  environment: CallEnvironment,
): Promise<ToolResult> {
  const started = performance.now();
  const decision = action.status === 'approved' ? 'approved' : action.status === 'rejected' ? 'rejected' : 'expired';
  const result = await applyDecision(
    call,
    action,
    { decision, ...(action.decisionReason ? { reason: action.decisionReason } : {}) },
    environment,
  );
  recordResult(call, result, performance.now() - started, environment);
  return result;
}

/** Answers a decided held call: runs the write (dry run first) when approved, else says why not. */
export async function applyDecision(
  call: ToolCall,
  action: Action,
  outcome: { decision: 'approved' | 'rejected' | 'expired'; reason?: string },
  environment: CallEnvironment,
): Promise<ToolResult> {
  if (outcome.decision !== 'approved') {
    updateAction(environment, action, {
      status: outcome.decision,
      ...(outcome.reason ? { decisionReason: outcome.reason } : {}),
    });
    const why =
      outcome.decision === 'rejected'
        ? `rejected${action.decidedBy ? ` by ${action.decidedBy}` : ''}`
        : 'expired without a decision';
    return {
      ok: true,
      truncated: false,
      content: `Not executed: action ${action.id} (${call.name}) was ${why}${outcome.reason ? `: ${outcome.reason}` : ''}. Continue without it.`,
      data: { action },
      actionId: action.id,
    };
  }
  // Decided again from what was stored: only a fresh hold can be approved, so a policy changed meanwhile wins.
  const again = decideAgain(action, environment);
  if (again.decision !== 'hold') {
    const why =
      again.decision === 'refuse'
        ? again.reason
        : `the gate would now ${again.decision} it: ${again.decision === 'execute' ? 'it is not a write' : again.reason}`;
    updateAction(environment, action, { status: 'failed', result: `not executed: ${why}` });
    return {
      ok: false,
      error: 'forbidden',
      content: `Not executed: action ${action.id} (${call.name}) was approved, but ${why}`,
      actionId: action.id,
    };
  }
  const approved = approve(again, {
    by: action.decidedBy ?? 'unknown',
    at: action.decidedAt ? new Date(action.decidedAt) : new Date(),
    runId: environment.runId,
    actionId: action.id,
  });
  updateAction(environment, action, { status: 'approved' });
  // Everything recorded so far is stored before the cluster is changed: a write is never left unaudited.
  await environment.audit.flush();
  // The write tool dry-runs on the server before its real call.
  const result = await runApprovedWrite({ registry: environment.registry, approved, context: environment.toolContext });
  if (result.ok && result.data !== undefined) environment.writeData.set(action.id, result.data);
  updateAction(environment, action, {
    status: result.ok ? 'executed' : 'failed',
    result: result.content.slice(0, 2000),
  });
  return { ...result, actionId: action.id };
}

export function addAction(environment: CallEnvironment, fields: Omit<Action, 'id'>): Action {
  const action: Action = { id: `act-${randomUUID().slice(0, 8)}`, ...fields };
  environment.actions.push(action);
  environment.observer.actionsChanged?.(environment.actions);
  return action;
}

export function updateAction(environment: CallEnvironment, action: Action, fields: Partial<Action>): void {
  Object.assign(action, fields);
  environment.observer.actionsChanged?.(environment.actions);
}

/** The gate's decision on a held action, made again from what was stored: only a fresh hold may be put to a person or approved. */
export function decideAgain(action: Action, environment: CallEnvironment): ReturnType<typeof decideToolCall> {
  return decideToolCall({
    tool: environment.registry.get(action.tool),
    toolName: action.tool,
    rawInput: action.args,
    runRung: environment.rung,
    policy: environment.policy,
    knownTools: environment.registry.list().map((known) => known.name),
  });
}
