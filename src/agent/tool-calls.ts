/**
 * One tool call through the gate: audit the call, decide, then run it, record it as a
 * proposal, or hold it for approval and run it only when a person approves. Always
 * resolves to a result the model can read; never throws for a tool's failure.
 */
import { randomUUID } from 'node:crypto';
import type { ApprovalBroker } from '../gate/approvals.ts';
import { decideToolCall } from '../gate/gate.ts';
import type { LadderPolicy, Rung } from '../gate/rung.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import { runTool } from '../tools/registry.ts';
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
  approvals: ApprovalBroker;
  approvalTtlMs: number;
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

  const decision = decideToolCall({
    tool,
    toolName: call.name,
    rawInput: call.input,
    runRung: environment.rung,
    policy: environment.policy,
    knownTools: registry.list().map((known) => known.name),
  });
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
      result = await runTool({ registry, name: call.name, input: decision.input, context: environment.toolContext });
      break;
    case 'propose': {
      const action = addAction(environment, { tool: call.name, args: decision.input, risk: tool?.risk ?? 'write', status: 'proposed', reason: decision.reason });
      result = { ok: true, truncated: false, content: `${decision.reason} Action id: ${action.id}.`, data: { action }, actionId: action.id };
      break;
    }
    case 'hold':
      result = await holdForApproval(call, decision.input, environment);
      break;
  }
  const durationSeconds = (performance.now() - started) / 1000;
  observer.toolCall?.({ tool: call.name, risk, outcome: result.ok ? 'ok' : result.error, durationSeconds });
  audit.record('tool-result', {
    callId: call.id,
    tool: call.name,
    durationMs: Math.round(durationSeconds * 1000),
    bytes: Buffer.byteLength(result.content),
    truncated: result.ok ? result.truncated : false,
    ...(result.ok ? {} : { error: result.error }),
    content: result.content,
  });
  return result;
}

async function holdForApproval(call: ToolCall, input: Record<string, unknown>, environment: CallEnvironment): Promise<ToolResult> {
  const { registry, audit } = environment;
  const tool = registry.get(call.name);
  const action = addAction(environment, { tool: call.name, args: input, risk: tool?.risk ?? 'write', status: 'awaiting_approval' });
  const outcome = await environment.approvals.waitForDecision(
    { runId: environment.runId, actionId: action.id, tool: call.name, args: input, expiresAt: new Date(Date.now() + environment.approvalTtlMs) },
    environment.toolContext.signal,
  );
  audit.record('approval', { actionId: action.id, decision: outcome.decision, ...(outcome.by ? { by: outcome.by } : {}), ...(outcome.reason ? { reason: outcome.reason } : {}) });
  if (outcome.decision !== 'approved') {
    updateAction(environment, action, { status: outcome.decision, ...(outcome.reason ? { reason: outcome.reason } : {}) });
    const why = outcome.decision === 'rejected' ? `rejected${outcome.by ? ` by ${outcome.by}` : ''}` : 'expired without a decision';
    return { ok: true, truncated: false, content: `Not executed: action ${action.id} (${call.name}) was ${why}${outcome.reason ? `: ${outcome.reason}` : ''}. Continue without it.`, data: { action }, actionId: action.id };
  }
  updateAction(environment, action, { status: 'approved', ...(outcome.by ? { reason: `approved by ${outcome.by}` } : {}) });
  // The write tool dry-runs on the server before its real call.
  const result = await runTool({ registry, name: call.name, input, context: environment.toolContext });
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
