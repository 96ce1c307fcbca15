/**
 * Human-readable rendering of a finished run for the terminal: the rung, the diagnosis
 * (its summary says what became of held actions), the actions (a held one with why it was
 * asked for, what its dry run said it would change, and who decided) and the trail of
 * tool calls with their risk.
 */
import { formatCulprit, type Action } from '../agent/diagnosis.ts';
import type { RunOutcome } from '../agent/loop.ts';

export function formatBytes(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}

export function formatRun(input: { runId: string; outcome: RunOutcome; rungLine: string; durationMs: number }): string {
  const { outcome } = input;
  const lines: string[] = [input.rungLine, ''];
  const diagnosis = outcome.diagnosis;
  if (diagnosis) {
    lines.push(
      `Diagnosis: ${diagnosis.category}${diagnosis.culprit ? ` — ${formatCulprit(diagnosis.culprit)}` : ' (no culprit)'} (confidence ${diagnosis.confidence})`,
    );
    for (const missing of diagnosis.notFound ?? [])
      lines.push(`  Not found: ${missing.kind} ${missing.namespace ? `${missing.namespace}/` : ''}${missing.name}`);
    lines.push(`  ${diagnosis.summary}`, '', 'Evidence:');
    for (const line of diagnosis.evidence) lines.push(`  - ${line}`);
  } else {
    lines.push(`No diagnosis: the run failed: ${outcome.reason ?? 'unknown reason'}`);
  }
  if (outcome.actions.length > 0) {
    lines.push('', 'Actions:');
    for (const action of outcome.actions) lines.push(...formatAction(action));
  }
  lines.push('', 'Trail:');
  outcome.toolCalls.forEach((call, index) => {
    const result = call.action ?? (call.ok ? 'ok' : `error: ${call.error}`);
    lines.push(
      `  ${String(index + 1).padStart(2)}. step ${call.step} ${call.tool} ${JSON.stringify(call.input)} [${call.risk}] ${result}, ${formatBytes(call.bytes)}`,
    );
  });
  const bytes = outcome.toolCalls.reduce((sum, call) => sum + call.bytes, 0);
  lines.push(
    '',
    `Run ${input.runId}: ${outcome.status} in ${outcome.steps} steps, ${outcome.toolCalls.length} tool calls, ${formatBytes(bytes)} read, ${Math.round(input.durationMs)} ms.`,
  );
  return `${lines.join('\n')}\n`;
}

/** A proposal on one line with the gate's reason; a held action with its reason, diff, decision and result. */
function formatAction(action: Action): string[] {
  const head = `  - [${action.status}] ${action.tool} ${JSON.stringify(action.args)} (${action.risk}, id ${action.id})`;
  if (action.status === 'proposed') return [`${head}${action.reason ? `: ${action.reason}` : ''}`];
  const lines = [head];
  if (action.reason) lines.push(`      Why: ${action.reason}`);
  if (action.diff?.length)
    lines.push('      What changes (server-side dry run):', ...action.diff.map((line) => `        ${line}`));
  if (action.decidedBy || action.decisionReason) {
    lines.push(
      `      Decided${action.decidedBy ? ` by ${action.decidedBy}` : ''}${action.decidedAt ? ` at ${action.decidedAt}` : ''}${action.decisionReason ? `: ${action.decisionReason}` : ''}`,
    );
  }
  if (action.result) lines.push(`      Result: ${action.result.split('\n')[0] ?? ''}`);
  return lines;
}
