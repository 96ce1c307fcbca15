/**
 * Human-readable rendering of a finished run for the terminal: the rung, the diagnosis,
 * the proposed actions and the trail of tool calls with their risk.
 */
import { formatCulprit } from '../agent/diagnosis.ts';
import type { RunOutcome } from '../agent/loop.ts';

export function formatBytes(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}

export function formatRun(input: { runId: string; outcome: RunOutcome; rungLine: string; durationMs: number }): string {
  const { outcome } = input;
  const lines: string[] = [input.rungLine, ''];
  const diagnosis = outcome.diagnosis;
  if (diagnosis) {
    lines.push(`Diagnosis: ${diagnosis.category} — ${formatCulprit(diagnosis.culprit)} (confidence ${diagnosis.confidence})`);
    lines.push(`  ${diagnosis.summary}`, '', 'Evidence:');
    for (const line of diagnosis.evidence) lines.push(`  - ${line}`);
  } else {
    lines.push(`No diagnosis: the run failed: ${outcome.reason ?? 'unknown reason'}`);
  }
  if (outcome.actions.length > 0) {
    lines.push('', 'Actions:');
    for (const action of outcome.actions) {
      lines.push(`  - [${action.status}] ${action.tool} ${JSON.stringify(action.args)} (${action.risk}, id ${action.id})${action.reason ? `: ${action.reason}` : ''}`);
    }
  }
  lines.push('', 'Trail:');
  outcome.toolCalls.forEach((call, index) => {
    const result = call.action ?? (call.ok ? 'ok' : `error: ${call.error}`);
    lines.push(`  ${String(index + 1).padStart(2)}. step ${call.step} ${call.tool} ${JSON.stringify(call.input)} [${call.risk}] ${result}, ${formatBytes(call.bytes)}`);
  });
  const bytes = outcome.toolCalls.reduce((sum, call) => sum + call.bytes, 0);
  lines.push(
    '',
    `Run ${input.runId}: ${outcome.status} in ${outcome.steps} steps, ${outcome.toolCalls.length} tool calls, ${formatBytes(bytes)} read, ${Math.round(input.durationMs)} ms.`,
  );
  return `${lines.join('\n')}\n`;
}
