/**
 * Held actions, once the model has submitted its diagnosis. Each is decided by the gate
 * again, dry-run on the server (`dryRun=All`: nothing persists) so a person can read what
 * it would change, given its reason (what the model said when it asked, else the
 * diagnosis it serves) and its deadline, audited as `approval-requested`, and only then
 * put to a person: through the broker (the terminal), or, without one, by parking the
 * run until decisions arrive through the API. An action whose check or dry run fails is
 * not put to anyone: it fails, with why. A decided action is answered through
 * `applyDecision` (the write runs, dry run first, only when approved).
 */
import type { HeldAction, HeldActionDiagnosis } from '../gate/approvals.ts';
import { redactText, redactValue } from '../redact/redactor.ts';
import { dryRunWrite } from '../tools/registry.ts';
import type { ToolResult } from '../tools/tool.ts';
import { formatCulprit, type Action, type DiagnosisInput } from './diagnosis.ts';
import type { ToolCallRecord } from './checkpoint.ts';
import type { ToolCall } from './model.ts';
import { applyDecision, decideAgain, recordResult, updateAction, type CallEnvironment } from './tool-calls.ts';

/** Gets every still-undecided held action ready for a person; answers (and records) the held call of one that cannot be asked. */
export async function prepareApprovals(input: {
  pending: readonly Action[];
  diagnosis: DiagnosisInput;
  environment: CallEnvironment;
  onAnswered: (call: ToolCall, result: ToolResult) => void;
}): Promise<void> {
  const { environment } = input;
  for (const action of input.pending) {
    const call = environment.heldCalls.get(action.id);
    if (!call) continue;
    const started = performance.now();
    const failed = (content: string): void => {
      updateAction(environment, action, { status: 'failed', result: content.slice(0, 2000) });
      const result: ToolResult = { ok: false, error: 'conflict', content, actionId: action.id };
      recordResult(call, result, performance.now() - started, environment);
      input.onAnswered(call, result);
    };
    const again = decideAgain(action, environment);
    if (again.decision !== 'hold') {
      failed(
        `Not put to a person: the gate would now ${again.decision} action ${action.id} (${action.tool}): ${'reason' in again ? again.reason : 'it is not a write'}`,
      );
      continue;
    }
    const preview = await dryRunWrite({
      registry: environment.registry,
      name: again.toolName,
      input: again.input,
      context: environment.toolContext,
    });
    if (!preview.ok) {
      failed(
        `Not put to a person: the server-side dry run of action ${action.id} (${action.tool}) failed, so it would fail too. ${preview.content}`,
      );
      continue;
    }
    if (preview.data !== undefined) environment.writeData.set(action.id, preview.data);
    const diff = diffOf(preview.data) ?? [redactText(preview.content.split('\n')[0] ?? '')];
    const reason = action.reason ?? reasonFromDiagnosis(input.diagnosis);
    const expiresAt = new Date(Date.now() + environment.approvalTtlMs).toISOString();
    updateAction(environment, action, { reason, diff, expiresAt });
    environment.audit.record('approval-requested', {
      actionId: action.id,
      callId: call.id,
      tool: action.tool,
      args: redactValue(action.args),
      reason,
      diff,
      expiresAt,
    });
  }
}

/** Puts each prepared action to the broker in turn and answers its call with the decision. */
export async function askBroker(input: {
  actions: readonly Action[];
  diagnosis: DiagnosisInput;
  environment: CallEnvironment;
  onAnswered: (call: ToolCall, result: ToolResult) => void;
}): Promise<void> {
  const { environment } = input;
  const broker = environment.approvals;
  if (!broker) return;
  for (const action of input.actions) {
    const call = environment.heldCalls.get(action.id);
    if (!call || action.status !== 'awaiting_approval') continue;
    const outcome = await broker.waitForDecision(
      heldActionOf(action, input.diagnosis, environment.runId),
      environment.toolContext.signal,
    );
    environment.audit.record('approval', {
      actionId: action.id,
      decision: outcome.decision,
      ...(outcome.by ? { by: outcome.by } : {}),
      ...(outcome.reason ? { reason: outcome.reason } : {}),
    });
    updateAction(environment, action, {
      ...(outcome.by ? { decidedBy: outcome.by } : {}),
      decidedAt: new Date().toISOString(),
    });
    const started = performance.now();
    const result = await applyDecision(
      call,
      action,
      { decision: outcome.decision, ...(outcome.reason ? { reason: outcome.reason } : {}) },
      environment,
    );
    recordResult(call, result, performance.now() - started, environment);
    input.onAnswered(call, result);
  }
}

/** The action as a person is asked about it: with the diagnosis, its reason and its diff. */
export function heldActionOf(action: Action, diagnosis: DiagnosisInput, runId: string): HeldAction {
  return {
    runId,
    actionId: action.id,
    tool: action.tool,
    args: action.args,
    expiresAt: new Date(action.expiresAt ?? Date.now()),
    ...(action.reason ? { reason: action.reason } : {}),
    ...(action.diff ? { diff: action.diff } : {}),
    diagnosis: heldDiagnosisOf(diagnosis),
  };
}

function heldDiagnosisOf(diagnosis: DiagnosisInput): HeldActionDiagnosis {
  const culprit = (diagnosis as { culprit?: DiagnosisInput['culprit'] }).culprit;
  return redactValue({
    category: diagnosis.category,
    ...(culprit ? { culprit: formatCulprit(culprit) } : {}),
    summary: diagnosis.summary,
    evidence: diagnosis.evidence,
    confidence: diagnosis.confidence,
  });
}

/** Why an action the model asked for without saying why: the diagnosis it serves. */
function reasonFromDiagnosis(diagnosis: DiagnosisInput): string {
  const firstSentence = /^[^.!?]*[.!?]?/.exec(diagnosis.summary)?.[0]?.trim() ?? diagnosis.summary;
  return redactText(
    `For the diagnosis (${diagnosis.category}, ${diagnosis.confidence} confidence): ${firstSentence}`,
  ).slice(0, 600);
}

/** The write tool's `diff` lines (WriteActionData), when its data has them. */
function diffOf(data: unknown): string[] | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const diff = (data as { diff?: unknown }).diff;
  return Array.isArray(diff) && diff.length > 0 && diff.every((line) => typeof line === 'string')
    ? diff.map(redactText)
    : undefined;
}

/** The held call's record in the trail follows what became of its action. */
export function followAction(input: {
  toolCalls: ToolCallRecord[];
  actions: readonly Action[];
  call: ToolCall;
  result: ToolResult;
}): void {
  const { call, result } = input;
  const record = input.toolCalls.find(
    (candidate) => candidate.id === call.id && candidate.action === 'awaiting_approval',
  );
  if (!record) return;
  const action = result.actionId ? input.actions.find((candidate) => candidate.id === result.actionId) : undefined;
  delete record.error;
  Object.assign(record, {
    ok: result.ok,
    bytes: Buffer.byteLength(result.content),
    ...(action ? { action: action.status } : {}),
    ...(result.ok ? {} : { error: result.error }),
  });
}

/** Held actions never put to a person (the run ended without a diagnosis) expire, and their calls are answered with why. */
export function expireUnasked(
  environment: CallEnvironment,
  onAnswered: (call: ToolCall, result: ToolResult) => void,
): void {
  for (const action of environment.actions) {
    const call = environment.heldCalls.get(action.id);
    if (action.status !== 'awaiting_approval' || !call) continue;
    const why = 'the run ended without a diagnosis, so it was never put to a person';
    updateAction(environment, action, { status: 'expired', decisionReason: why });
    const result: ToolResult = {
      ok: true,
      truncated: false,
      content: `Not executed: action ${action.id} (${call.name}) expired: ${why}.`,
      actionId: action.id,
    };
    recordResult(call, result, 0, environment);
    onAnswered(call, result);
  }
}
