/**
 * A parked run goes on: each call the gate held is answered with the decision a person
 * made meanwhile (or expired, when none was recorded), through the gate again
 * (tool-calls.ts `resumeHeldCall`). A run parked after its diagnosis then completes with it;
 * a run parked mid-turn concludes that turn as any other (loop.ts).
 */
import { diagnosisInputSchema, type Action, type DiagnosisInput } from './diagnosis.ts';
import type { RunCheckpoint, ToolCallRecord } from './checkpoint.ts';
import type { ToolCall } from './model.ts';
import type { RunAudit } from './run-audit.ts';
import { resumeHeldCall, type CallEnvironment } from './tool-calls.ts';
import type { ToolResult } from '../tools/tool.ts';

/** What resuming reads and updates of the run: its actions and call records, and how an answered call is followed. */
export interface ResumeScope {
  audit: RunAudit;
  actions: Action[];
  toolCalls: ToolCallRecord[];
  environment: CallEnvironment;
  markAnswered(call: ToolCall, result: ToolResult): void;
}

const UNDECIDED = 'no decision was recorded before the run resumed';

/** A run parked after its diagnosis: its decided actions run (or not); the stored diagnosis, or why it cannot be read. */
export async function resumeDiagnosed(
  parked: RunCheckpoint,
  diagnosed: NonNullable<RunCheckpoint['diagnosed']>,
  scope: ResumeScope,
): Promise<{ ok: true; diagnosis: DiagnosisInput } | { ok: false; reason: string }> {
  const heldIds = diagnosed.held.map(({ actionId }) => actionId);
  recordResumed(parked, heldIds, scope);
  const diagnosis = diagnosisInputSchema.safeParse(diagnosed.diagnosis);
  for (const { actionId, call } of diagnosed.held) {
    const action = scope.actions.find((candidate) => candidate.id === actionId);
    if (!action) continue;
    if (action.status === 'awaiting_approval') Object.assign(action, { status: 'expired', decisionReason: UNDECIDED });
    // A stored diagnosis that no longer reads as one runs nothing.
    if (!diagnosis.success && action.status === 'approved')
      Object.assign(action, { status: 'expired', decisionReason: 'the stored diagnosis could not be read' });
    scope.markAnswered(call, await resumeHeldCall(call, action, scope.environment));
  }
  return diagnosis.success
    ? { ok: true, diagnosis: diagnosis.data }
    : {
        ok: false,
        reason: `cannot resume the run: the stored diagnosis is invalid: ${diagnosis.error.issues[0]?.message ?? 'unknown'}`,
      };
}

/** A run parked mid-turn: the turn's results, its held calls answered with their decisions. */
export async function resumeTurnResults(
  parked: RunCheckpoint,
  scope: ResumeScope,
): Promise<{ call: ToolCall; result: ToolResult }[]> {
  recordResumed(parked, parked.turn.heldActionIds, scope);
  return Promise.all(
    parked.turn.results.map(async ({ call, result }) => {
      const action =
        result.actionId && parked.turn.heldActionIds.includes(result.actionId)
          ? scope.actions.find((candidate) => candidate.id === result.actionId)
          : undefined;
      if (!action) return { call, result };
      if (action.status === 'awaiting_approval')
        Object.assign(action, { status: 'expired', decisionReason: UNDECIDED });
      const answer = await resumeHeldCall(call, action, scope.environment);
      const record = scope.toolCalls.find((candidate) => candidate.id === call.id && candidate.step === parked.step);
      if (record)
        Object.assign(record, {
          ok: answer.ok,
          action: action.status,
          bytes: Buffer.byteLength(answer.content),
          ...(answer.ok ? {} : { error: answer.error }),
        });
      return { call, result: answer };
    }),
  );
}

function recordResumed(parked: RunCheckpoint, heldIds: readonly string[], scope: ResumeScope): void {
  scope.audit.record('run-resumed', {
    step: parked.step,
    activeMs: Math.round(parked.activeMs),
    actions: scope.actions
      .filter((action) => heldIds.includes(action.id))
      .map((action) => ({ id: action.id, status: action.status })),
  });
}
