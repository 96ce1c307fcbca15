/**
 * The agent loop: model turn → the turn's tool calls in parallel through the gate →
 * every result back, tagged with its call id → again, until the model submits a valid
 * diagnosis. Named stop checks (step cap, token budget, deadline, abort) end it
 * otherwise, as a failed run with the reason. The loop never throws for the model's or a
 * tool's failure; it returns the outcome.
 */
import { z } from 'zod';
import type { ApprovalBroker } from '../gate/approvals.ts';
import type { LadderPolicy, Rung } from '../gate/rung.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import type { Cluster } from '../cluster/cluster.ts';
import type { ToolResult, ToolSpec } from '../tools/tool.ts';
import { canonicalJson } from '../audit/canonical-json.ts';
import { diagnosisInputSchema, type Action, type Diagnosis } from './diagnosis.ts';
import { addUsage, ModelError, ZERO_USAGE, type Model, type ModelTurn, type ToolCall, type TokenUsage, type TranscriptEntry } from './model.ts';
import type { AgentObserver } from './observer.ts';
import { buildSystemPrompt, SUBMIT_DIAGNOSIS_TOOL } from './prompt.ts';
import type { RunAudit } from './run-audit.ts';
import { deadlinePassed, isLastStep, stepCapReached, tokenBudgetExceeded, wasAborted, type LoopLimits } from './stop-conditions.ts';
import { executeToolCall, type CallEnvironment } from './tool-calls.ts';
import { describeTrigger, type Trigger } from './trigger.ts';

export interface RunAgentInput {
  runId: string;
  trigger: Trigger;
  rung: Rung;
  model: Model;
  registry: ToolRegistry;
  cluster: Cluster;
  policy: LadderPolicy;
  approvals: ApprovalBroker;
  audit: RunAudit;
  limits: { maxSteps: number; tokenBudget: number; timeoutMs: number; approvalTtlMs: number; toolOutputBytes: number };
  signal?: AbortSignal;
  observer?: AgentObserver;
}

export interface ToolCallRecord {
  step: number;
  id: string;
  tool: string;
  input: unknown;
  risk: string;
  ok: boolean;
  error?: string;
  /** For a write: what became of it (proposed, executed, rejected...). */
  action?: string;
  bytes: number;
}

export interface RunOutcome {
  status: 'completed' | 'failed';
  diagnosis?: Diagnosis;
  reason?: string;
  usage: TokenUsage;
  steps: number;
  toolCalls: ToolCallRecord[];
  actions: Action[];
}

export const submitDiagnosisSpec: ToolSpec = {
  name: SUBMIT_DIAGNOSIS_TOOL,
  description:
    'Ends the investigation with your structured diagnosis. Call it once you have evidence, and always on the last step. Evidence lines are facts quoted from tool output.',
  input_schema: z.toJSONSchema(diagnosisInputSchema) as ToolSpec['input_schema'],
};

export async function runAgent(input: RunAgentInput): Promise<RunOutcome> {
  const { model, registry, audit } = input;
  const observer = input.observer ?? {};
  const controller = new AbortController();
  const timeout = setTimeout(() => controller.abort(new Error(`run timeout of ${input.limits.timeoutMs} ms`)), input.limits.timeoutMs);
  const signal = input.signal ? AbortSignal.any([input.signal, controller.signal]) : controller.signal;
  const limits: LoopLimits = { maxSteps: input.limits.maxSteps, tokenBudget: input.limits.tokenBudget, deadline: new Date(Date.now() + input.limits.timeoutMs) };

  const actions: Action[] = [];
  const toolCalls: ToolCallRecord[] = [];
  const answered = new Map<string, { step: number; callId: string; result: ToolResult }>();
  const environment: CallEnvironment = {
    runId: input.runId,
    rung: input.rung,
    policy: input.policy,
    registry,
    toolContext: {
      cluster: input.cluster,
      signal,
      outputBudgetBytes: input.limits.toolOutputBytes,
      ...(input.policy.allowedNamespaces ? { allowedNamespaces: input.policy.allowedNamespaces } : {}),
    },
    approvals: input.approvals,
    approvalTtlMs: input.limits.approvalTtlMs,
    audit,
    observer,
    actions,
  };
  const system = buildSystemPrompt();
  const tools = [...registry.specs(), submitDiagnosisSpec];
  const transcript: TranscriptEntry[] = [{ role: 'user', text: describeTrigger(input.trigger) }];
  let usage = ZERO_USAGE;
  let step = 0;

  const finish = (outcome: Omit<RunOutcome, 'usage' | 'steps' | 'toolCalls' | 'actions'>): RunOutcome => {
    clearTimeout(timeout);
    if (outcome.diagnosis) audit.record('diagnosis', { diagnosis: outcome.diagnosis });
    audit.record('run-finished', { status: outcome.status, ...(outcome.reason ? { reason: outcome.reason } : {}), steps: step, usage });
    return { ...outcome, usage, steps: step, toolCalls, actions };
  };

  try {
    for (step = 1; ; step++) {
      const stop = stepCapReached(step, limits) ?? tokenBudgetExceeded(usage, limits) ?? deadlinePassed(new Date(), limits) ?? wasAborted(signal);
      if (stop) {
        step--;
        return finish({ status: 'failed', reason: stop });
      }
      const forced = isLastStep(step, limits);
      const toolChoice = forced ? ({ type: 'tool', name: SUBMIT_DIAGNOSIS_TOOL } as const) : ({ type: 'auto' } as const);
      audit.record('model-request', { step, model: model.name, toolChoice, messages: transcript.length });
      const turn = await callModel({ model, observer, request: { system, trigger: input.trigger, transcript, tools, toolChoice, signal } });
      usage = addUsage(usage, turn.usage);
      audit.record('model-response', {
        step,
        stopReason: turn.stopReason,
        usage: turn.usage,
        ...(turn.text ? { text: turn.text } : {}),
        toolCalls: turn.calls.map((call) => ({ id: call.id, name: call.name, input: call.input })),
      });
      transcript.push({ role: 'assistant', text: turn.text, calls: turn.calls });

      if (turn.calls.length === 0) {
        if (forced) return finish({ status: 'failed', reason: 'the model did not submit a diagnosis on the last allowed step' });
        transcript.push({ role: 'user', text: `Continue the investigation with the tools, or call ${SUBMIT_DIAGNOSIS_TOOL} to finish.` });
        continue;
      }

      const submissions = turn.calls.filter((call) => call.name === SUBMIT_DIAGNOSIS_TOOL);
      const others = turn.calls.filter((call) => call.name !== SUBMIT_DIAGNOSIS_TOOL);
      const results = await Promise.all(
        others.map(async (call) => {
          const result = await answerCall({ call, step, answered, environment });
          const risk = registry.get(call.name)?.risk ?? 'unknown';
          const action = result.actionId ? actions.find((candidate) => candidate.id === result.actionId) : undefined;
          toolCalls.push({
            step,
            id: call.id,
            tool: call.name,
            input: call.input,
            risk,
            ok: result.ok,
            ...(result.ok ? {} : { error: result.error }),
            ...(action ? { action: action.status } : {}),
            bytes: Buffer.byteLength(result.content),
          });
          return { call, result };
        }),
      );

      const submission = submissions[0];
      if (submission) {
        const parsed = diagnosisInputSchema.safeParse(submission.input);
        if (parsed.success) return finish({ status: 'completed', diagnosis: { ...parsed.data, actions } });
        const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(input)'}: ${issue.message}`).join('; ');
        if (forced) return finish({ status: 'failed', reason: `the diagnosis submitted on the last step is invalid: ${problems}` });
        for (const call of submissions) {
          results.push({ call, result: { ok: false, error: 'invalid-input', content: `The diagnosis is invalid: ${problems}. Fix it and call ${SUBMIT_DIAGNOSIS_TOOL} again.` } });
        }
      }
      transcript.push({ role: 'tool-results', results });
      if (forced) return finish({ status: 'failed', reason: 'the model did not submit a diagnosis on the last allowed step' });
    }
  } catch (error) {
    const reason = error instanceof ModelError ? `model error: ${error.message}` : wasAborted(signal) ?? `internal error: ${error instanceof Error ? error.message : String(error)}`;
    audit.record('error', { message: reason });
    return finish({ status: 'failed', reason });
  }
}

async function callModel(input: { model: Model; observer: AgentObserver; request: Parameters<Model['createTurn']>[0] }): Promise<ModelTurn> {
  const started = performance.now();
  try {
    const turn = await input.model.createTurn(input.request);
    input.observer.modelCall?.({ model: input.model.name, outcome: 'ok', durationSeconds: (performance.now() - started) / 1000, usage: turn.usage });
    return turn;
  } catch (error) {
    input.observer.modelCall?.({ model: input.model.name, outcome: 'error', durationSeconds: (performance.now() - started) / 1000 });
    throw error;
  }
}

/** An identical call already answered in this run gets a note instead of a second trip to the cluster. */
async function answerCall(input: {
  call: ToolCall;
  step: number;
  answered: Map<string, { step: number; callId: string; result: ToolResult }>;
  environment: CallEnvironment;
}): Promise<ToolResult> {
  const key = `${input.call.name} ${canonicalJson(input.call.input ?? {})}`;
  const previous = input.answered.get(key);
  if (previous) {
    const note = `This identical call was already answered at step ${previous.step} (tool_use_id ${previous.callId}); nothing was fetched again. Use that result, or narrow the call.`;
    input.environment.audit.record('tool-call', { callId: input.call.id, tool: input.call.name, args: input.call.input, repeatOf: previous.callId });
    return previous.result.ok ? { ...previous.result, content: note } : { ...previous.result, content: `${note} It failed: ${previous.result.content}` };
  }
  const result = await executeToolCall(input.call, input.environment);
  // Write calls are never cached: a second proposal of the same action is still a decision to record.
  if (input.environment.registry.get(input.call.name)?.risk === 'read') {
    input.answered.set(key, { step: input.step, callId: input.call.id, result });
  }
  return result;
}
