/**
 * The agent loop: model turn → the turn's tool calls in parallel through the gate →
 * every result back, tagged with its call id → again, until the model submits a valid
 * diagnosis. Named stop checks (step cap, token budget, deadline, abort) end it
 * otherwise, as a failed run with the reason. The loop never throws for the model's or a
 * tool's failure; it returns the outcome.
 *
 * A write the gate holds for a person's approval is not put to anyone mid-investigation:
 * the model is told it will be, with its diagnosis, and goes on. Once the model submits a
 * valid diagnosis, the held actions are dry-run and put to a person with the diagnosis,
 * their reason and their diff (held-actions.ts); approved ones run, and the summary says
 * what became of each (action-outcomes.ts). With a broker (the CLI) the loop waits for the
 * decisions; without one (the service) it ends as `parked`, with the diagnosis and a
 * checkpoint, and `resume` finishes the run from it once every held action is decided (or
 * expired). The time spent parked does not count toward the deadline.
 */
import { z } from 'zod';
import type { ApprovalBroker } from '../gate/approvals.ts';
import type { LadderPolicy, Rung } from '../gate/rung.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import type { Cluster } from '../cluster/cluster.ts';
import { createRunReadCache } from '../cluster/read-cache.ts';
import type { ToolResult, ToolSpec } from '../tools/tool.ts';
import { canonicalJson } from '../audit/canonical-json.ts';
import { summaryWithOutcomes } from './action-outcomes.ts';
import { diagnosisInputSchema, type Action, type Diagnosis, type DiagnosisInput } from './diagnosis.ts';
import { askBroker, expireUnasked, followAction, prepareApprovals } from './held-actions.ts';
import {
  addUsage,
  ModelError,
  runRetryDelayMs,
  ZERO_USAGE,
  type Model,
  type ModelRequest,
  type ModelTurn,
  type ToolCall,
  type TokenUsage,
  type TranscriptEntry,
} from './model.ts';
import type { RunCheckpoint, ToolCallRecord } from './checkpoint.ts';
import type { AgentObserver } from './observer.ts';
import { buildSystemPrompt, SUBMIT_DIAGNOSIS_TOOL } from './prompt.ts';
import type { RunAudit } from './run-audit.ts';
import type { RunLimits } from './run-limits.ts';
import {
  deadlinePassed,
  isLastStep,
  stepCapReached,
  tokenBudgetExceeded,
  tokenBudgetNearlyUsed,
  wasAborted,
  type LoopLimits,
} from './stop-conditions.ts';
import { directTurn, trimOldestToolResults } from './stop-reasons.ts';
import { resumeDiagnosed, resumeTurnResults, type ResumeScope } from './resume.ts';
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
  /** Waits for a person's decision on a held action (the CLI); absent, held actions park the run once it is diagnosed (the service). */
  approvals?: ApprovalBroker;
  audit: RunAudit;
  limits: RunLimits;
  /** Go on from a parked turn: its checkpoint, and the run's actions with their decisions. */
  resume?: { checkpoint: RunCheckpoint; actions: Action[] };
  signal?: AbortSignal;
  observer?: AgentObserver;
  /** The caller starts the run again after a retryable model failure: the loop then leaves its actions as they are for the next start. */
  retriesModelFailures?: boolean;
  /** Which start of the run this is (1 for the first); sets the wait before a retry. */
  attempt?: number;
}

export type { ToolCallRecord } from './checkpoint.ts';

/** How many actions a run may hold for approval unless told otherwise. */
export const DEFAULT_MAX_HELD_ACTIONS = 3;

export interface RunOutcome {
  /** parked: an action awaits a person's decision; `checkpoint` holds what resuming needs, `diagnosis` what the person reads. */
  status: 'completed' | 'failed' | 'parked';
  checkpoint?: RunCheckpoint;
  diagnosis?: Diagnosis;
  reason?: string;
  usage: TokenUsage;
  steps: number;
  toolCalls: ToolCallRecord[];
  actions: Action[];
  /** Set when a retryable model failure ended the run: it may be started again after `afterMs`. */
  retry?: { afterMs: number };
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
  const checkpoint = input.resume?.checkpoint;
  // Time already spent working (before the run parked) counts; time spent waiting does not.
  const activeBefore = checkpoint?.activeMs ?? 0;
  const started = performance.now();
  const remainingMs = Math.max(0, input.limits.timeoutMs - activeBefore);
  const controller = new AbortController();
  const timeout = setTimeout(
    () => controller.abort(new Error(`run timeout of ${input.limits.timeoutMs} ms`)),
    remainingMs,
  );
  const signal = input.signal ? AbortSignal.any([input.signal, controller.signal]) : controller.signal;
  const limits: LoopLimits = {
    maxSteps: input.limits.maxSteps,
    tokenBudget: input.limits.tokenBudget,
    deadline: new Date(Date.now() + remainingMs),
  };

  const actions: Action[] = input.resume ? input.resume.actions.map((action) => ({ ...action })) : [];
  const toolCalls: ToolCallRecord[] = checkpoint ? [...checkpoint.toolCalls] : [];
  const answered = new Map<string, { step: number; callId: string; result: ToolResult }>();
  const environment: CallEnvironment = {
    runId: input.runId,
    rung: input.rung,
    policy: input.policy,
    registry,
    toolContext: {
      // One read cache per run: each object or list is fetched once; a write empties it.
      cluster: createRunReadCache(input.cluster),
      signal,
      outputBudgetBytes: input.limits.toolOutputBytes,
      // What this run's transcript already holds: a later call points at it rather than repeat it.
      shown: new Map(),
      ...(input.policy.allowedNamespaces ? { allowedNamespaces: input.policy.allowedNamespaces } : {}),
    },
    ...(input.approvals ? { approvals: input.approvals } : {}),
    approvalTtlMs: input.limits.approvalTtlMs,
    maxHeldActions: input.limits.maxHeldActions ?? DEFAULT_MAX_HELD_ACTIONS,
    audit,
    observer,
    actions,
    heldCalls: new Map(checkpoint?.diagnosed?.held.map(({ actionId, call }) => [actionId, call]) ?? []),
    writeData: new Map(),
  };
  const system = buildSystemPrompt();
  const tools = [...registry.specs(), submitDiagnosisSpec];
  const transcript: TranscriptEntry[] = checkpoint
    ? [...checkpoint.transcript]
    : [{ role: 'user', text: describeTrigger(input.trigger) }];
  let usage = checkpoint?.usage ?? ZERO_USAGE;
  const turnUsages: TokenUsage[] = [];
  let mustSubmit: string | undefined;
  let step = 0;

  const markAnswered = (call: ToolCall, result: ToolResult): void => followAction({ toolCalls, actions, call, result });

  /** The submitted diagnosis with the run's actions, its summary saying what became of the held ones. */
  const withActions = (diagnosis: DiagnosisInput): Diagnosis => ({
    ...diagnosis,
    summary: summaryWithOutcomes(diagnosis.summary, actions, (actionId) => environment.writeData.get(actionId)),
    actions,
  });

  const finish = (outcome: Omit<RunOutcome, 'usage' | 'steps' | 'toolCalls' | 'actions'>): RunOutcome => {
    clearTimeout(timeout);
    expireUnasked(environment, markAnswered);
    if (outcome.diagnosis) audit.record('diagnosis', { diagnosis: outcome.diagnosis });
    // The run's end (its run-finished event) is its owner's to write: runs/lifecycle.ts, or the CLI.
    return { ...outcome, usage, steps: step, toolCalls, actions };
  };

  /** The turn's calls are answered: settle on a valid submission, or go on. */
  const concludeTurn = async (turn: ConcludedTurn): Promise<RunOutcome | undefined> => {
    const { results, submissions, forcedBy, note } = turn;
    const submission = submissions[0];
    if (submission) {
      const parsed = diagnosisInputSchema.safeParse(submission.input);
      if (parsed.success) return settleDiagnosis(parsed.data, turn);
      const problems = parsed.error.issues
        .map((issue) => `${issue.path.join('.') || '(input)'}: ${issue.message}`)
        .join('; ');
      if (forcedBy)
        return finish({
          status: 'failed',
          reason: `the diagnosis submitted when it had to be (${forcedBy}) is invalid: ${problems}`,
        });
      for (const call of submissions) {
        results.push({
          call,
          result: {
            ok: false,
            error: 'invalid-input',
            content: `The diagnosis is invalid: ${problems}. Fix it and call ${SUBMIT_DIAGNOSIS_TOOL} again.`,
          },
        });
      }
    }
    transcript.push({ role: 'tool-results', results, ...(note ? { note } : {}) });
    if (forcedBy)
      return finish({ status: 'failed', reason: `the model did not submit a diagnosis when it had to (${forcedBy})` });
    return undefined;
  };

  /**
   * The model submitted a valid diagnosis: its held actions are now put to a person, with it.
   * With a broker the decisions are awaited here and the run completes; without one the run
   * parks with the diagnosis and a checkpoint.
   */
  const settleDiagnosis = async (diagnosis: DiagnosisInput, turn: ConcludedTurn): Promise<RunOutcome> => {
    const pending = actions.filter(
      (action) => action.status === 'awaiting_approval' && environment.heldCalls.has(action.id),
    );
    if (pending.length > 0) await prepareApprovals({ pending, diagnosis, environment, onAnswered: markAnswered });
    const asked = pending.filter((action) => action.status === 'awaiting_approval');
    if (asked.length > 0 && !input.approvals) {
      clearTimeout(timeout);
      const parked: RunCheckpoint = {
        version: 1,
        step,
        forced: turn.forcedBy !== undefined,
        ...(turn.forcedBy ? { forcedBy: turn.forcedBy } : {}),
        ...(turn.note ? { note: turn.note } : {}),
        usage,
        activeMs: activeBefore + (performance.now() - started),
        transcript: [...transcript],
        toolCalls: [...toolCalls],
        turn: { results: turn.results, heldActionIds: asked.map((action) => action.id), submissions: turn.submissions },
        diagnosed: {
          diagnosis,
          held: asked.map((action) => ({
            actionId: action.id,
            call: environment.heldCalls.get(action.id) as ToolCall,
          })),
        },
      };
      return {
        status: 'parked',
        checkpoint: parked,
        diagnosis: withActions(diagnosis),
        usage,
        steps: step,
        toolCalls,
        actions,
      };
    }
    if (asked.length > 0) {
      // A person's time to decide does not count toward the run's deadline (as a parked run's does not); each action has its own.
      clearTimeout(timeout);
      await askBroker({ actions: asked, diagnosis, environment, onAnswered: markAnswered });
    }
    return finish({ status: 'completed', diagnosis: withActions(diagnosis) });
  };

  const scope: ResumeScope = { audit, actions, toolCalls, environment, markAnswered };

  try {
    if (checkpoint) {
      step = checkpoint.step;
      if (checkpoint.diagnosed) {
        const resumed = await resumeDiagnosed(checkpoint, checkpoint.diagnosed, scope);
        return resumed.ok
          ? finish({ status: 'completed', diagnosis: withActions(resumed.diagnosis) })
          : finish({ status: 'failed', reason: resumed.reason });
      }
      const outcome = await concludeTurn({
        results: await resumeTurnResults(checkpoint, scope),
        submissions: checkpoint.turn.submissions,
        ...(checkpoint.forcedBy ? { forcedBy: checkpoint.forcedBy } : {}),
        ...(checkpoint.note ? { note: checkpoint.note } : {}),
      });
      if (outcome) return outcome;
    }
    for (step = step + 1; ; step++) {
      const stop =
        stepCapReached(step, limits) ??
        tokenBudgetExceeded(usage, limits) ??
        deadlinePassed(new Date(), limits) ??
        wasAborted(signal);
      if (stop) {
        step--;
        return finish({ status: 'failed', reason: stop });
      }
      // Why the model must submit its diagnosis on this turn, if it must.
      const forcedBy = isLastStep(step, limits)
        ? 'the last allowed step'
        : (mustSubmit ?? tokenBudgetNearlyUsed({ usage, turns: turnUsages, limits }));
      const forced = forcedBy !== undefined;
      const toolChoice = forced
        ? ({ type: 'tool', name: SUBMIT_DIAGNOSIS_TOOL } as const)
        : ({ type: 'auto' } as const);
      const askModel = async (longerAnswer: boolean): Promise<ModelTurn> => {
        audit.record('model-request', {
          step,
          model: model.name,
          toolChoice,
          messages: transcript.length,
          ...(forcedBy ? { forcedBy } : {}),
          ...(longerAnswer ? { longerAnswer } : {}),
        });
        const request: ModelRequest = {
          system,
          trigger: input.trigger,
          transcript,
          tools,
          toolChoice,
          signal,
          ...(longerAnswer ? { longerAnswer } : {}),
        };
        const answer = await callModel({ model, observer, request });
        usage = addUsage(usage, answer.usage);
        turnUsages.push(answer.usage);
        audit.record('model-response', {
          step,
          stopReason: answer.stopReason,
          usage: answer.usage,
          ...(answer.text ? { text: answer.text } : {}),
          toolCalls: answer.calls.map((call) => ({ id: call.id, name: call.name, input: call.input })),
          ...(answer.incompleteCalls?.length
            ? { droppedIncompleteCalls: answer.incompleteCalls.map((call) => ({ id: call.id, name: call.name })) }
            : {}),
          ...(answer.refusal ? { refusal: answer.refusal } : {}),
        });
        return answer;
      };
      let turn = await askModel(false);
      let directive = directTurn(turn, { forced, retriedLonger: false });
      if (directive.kind === 'retry-longer') {
        turn = await askModel(true);
        directive = directTurn(turn, { forced, retriedLonger: true });
      }
      if (directive.kind === 'fail') {
        audit.record('error', { message: directive.reason });
        return finish({ status: 'failed', reason: directive.reason });
      }
      if (directive.kind === 'continue-paused') {
        transcript.push({
          role: 'assistant',
          text: turn.text,
          calls: [],
          ...(turn.blocks ? { blocks: turn.blocks } : {}),
        });
        continue;
      }
      if (directive.kind === 'submit-now') {
        // The turn's calls are dropped unanswered: their results would not fit.
        transcript.push({ role: 'assistant', text: turn.text, calls: [] });
        trimOldestToolResults(transcript);
        transcript.push({ role: 'user', text: directive.note });
        mustSubmit = directive.reason;
        continue;
      }
      const note = directive.kind === 'proceed' ? directive.note : undefined;
      transcript.push({ role: 'assistant', text: turn.text, calls: turn.calls });

      if (turn.calls.length === 0) {
        if (forced)
          return finish({
            status: 'failed',
            reason: `the model did not submit a diagnosis when it had to (${forcedBy})`,
          });
        transcript.push({
          role: 'user',
          text: note ?? `Continue the investigation with the tools, or call ${SUBMIT_DIAGNOSIS_TOOL} to finish.`,
        });
        continue;
      }

      const submissions = turn.calls.filter((call) => call.name === SUBMIT_DIAGNOSIS_TOOL);
      const others = turn.calls.filter((call) => call.name !== SUBMIT_DIAGNOSIS_TOOL);
      const results = await Promise.all(
        others.map(async (call) => {
          const result = await answerCall({
            call,
            step,
            answered,
            environment,
            ...(turn.text ? { statedReason: turn.text } : {}),
          });
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

      const concluded = await concludeTurn({
        results,
        submissions,
        ...(forcedBy ? { forcedBy } : {}),
        ...(note ? { note } : {}),
      });
      if (concluded) return concluded;
    }
  } catch (error) {
    const reason =
      error instanceof ModelError
        ? `model error: ${error.message}`
        : (wasAborted(signal) ?? `internal error: ${error instanceof Error ? error.message : String(error)}`);
    // A run stopped from outside (shutdown, timeout) is not the model's failure to retry.
    const retry =
      error instanceof ModelError && error.retryable && !signal.aborted
        ? { afterMs: runRetryDelayMs(error, input.attempt ?? 1) }
        : undefined;
    audit.record('error', { message: reason, ...(retry ? { retryable: true, retryAfterMs: retry.afterMs } : {}) });
    if (retry && input.retriesModelFailures) {
      // The run goes on at its next start: its actions stay as they are.
      clearTimeout(timeout);
      return { status: 'failed', reason, retry, usage, steps: step, toolCalls, actions };
    }
    return finish({ status: 'failed', reason, ...(retry ? { retry } : {}) });
  }
}

interface ConcludedTurn {
  results: { call: ToolCall; result: ToolResult }[];
  submissions: ToolCall[];
  /** Why the model had to submit on this turn, if it had to. */
  forcedBy?: string;
  /** A note for the model sent with the results (a cut answer, say). */
  note?: string;
}

async function callModel(input: {
  model: Model;
  observer: AgentObserver;
  request: Parameters<Model['createTurn']>[0];
}): Promise<ModelTurn> {
  const started = performance.now();
  try {
    const turn = await input.model.createTurn(input.request);
    input.observer.modelCall?.({
      model: input.model.name,
      outcome: 'ok',
      durationSeconds: (performance.now() - started) / 1000,
      usage: turn.usage,
    });
    return turn;
  } catch (error) {
    input.observer.modelCall?.({
      model: input.model.name,
      outcome: 'error',
      durationSeconds: (performance.now() - started) / 1000,
    });
    throw error;
  }
}

/** An identical call already answered in this run gets a note instead of a second trip to the cluster. */
async function answerCall(input: {
  call: ToolCall;
  step: number;
  answered: Map<string, { step: number; callId: string; result: ToolResult }>;
  environment: CallEnvironment;
  /** What the model said in the turn: a held action's reason. */
  statedReason?: string;
}): Promise<ToolResult> {
  const key = `${input.call.name} ${canonicalJson(input.call.input ?? {})}`;
  const previous = input.answered.get(key);
  if (previous) {
    const note = `This identical call was already answered at step ${previous.step} (tool_use_id ${previous.callId}); nothing was fetched again. Use that result, or narrow the call.`;
    input.environment.audit.record('tool-call', {
      callId: input.call.id,
      tool: input.call.name,
      args: input.call.input,
      repeatOf: previous.callId,
    });
    return previous.result.ok
      ? { ...previous.result, content: note }
      : { ...previous.result, content: `${note} It failed: ${previous.result.content}` };
  }
  const result = await executeToolCall(
    input.call,
    input.environment,
    input.statedReason ? { statedReason: input.statedReason } : {},
  );
  // Write calls are never cached: a second proposal of the same action is still a decision to record.
  if (input.environment.registry.get(input.call.name)?.risk === 'read') {
    input.answered.set(key, { step: input.step, callId: input.call.id, result });
  }
  return result;
}
