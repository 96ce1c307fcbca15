/**
 * Approvals for `kubewhy diagnose`: asks the person at the terminal, and rejects when
 * nobody can be asked (no TTY), so a held write never runs unattended; an action not
 * answered by its deadline expires. Before the
 * question it prints what the person decides on: the diagnosis and its evidence (once per
 * run), then the action, why it is asked for and what the server-side dry run says it
 * would change.
 */
import { createInterface } from 'node:readline/promises';
import { redactText } from '../redact/redactor.ts';
import type { ApprovalBroker, HeldAction } from './approvals.ts';

const MAX_TIMER_MS = 2 ** 31 - 1;

export function createTerminalApprovalBroker(streams: {
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
}): ApprovalBroker {
  const shownDiagnosis = new Set<string>();
  return {
    async waitForDecision(action, signal) {
      if (!streams.input.isTTY) {
        return {
          decision: 'rejected',
          by: 'kubewhy',
          reason: 'no one at a terminal to approve it (stdin is not a TTY)',
        };
      }
      const showDiagnosis = action.diagnosis !== undefined && !shownDiagnosis.has(action.runId);
      if (showDiagnosis) shownDiagnosis.add(action.runId);
      streams.output.write(formatHeldAction(action, { showDiagnosis }));
      const prompt = createInterface({ input: streams.input, output: streams.output });
      // A Node timer waits at most about 24.8 days; a later deadline is as good as none at a terminal.
      const deadline = AbortSignal.timeout(
        Math.min(MAX_TIMER_MS, Math.max(0, action.expiresAt.getTime() - Date.now())),
      );
      try {
        const answer = await prompt.question(
          `Approve ${action.tool} ${JSON.stringify(action.args)} (action ${action.actionId})? [y/N] `,
          { signal: AbortSignal.any([signal, deadline]) },
        );
        const approved = /^y(es)?$/i.test(answer.trim());
        return approved ? { decision: 'approved', by: 'terminal' } : { decision: 'rejected', by: 'terminal' };
      } catch {
        if (deadline.aborted && !signal.aborted)
          streams.output.write('\nNo answer before the approval deadline: not approved.\n');
        return {
          decision: 'expired',
          reason:
            deadline.aborted && !signal.aborted
              ? 'no decision before the approval deadline'
              : 'the run was stopped while waiting',
        };
      } finally {
        prompt.close();
      }
    },
  };
}

/** What the person reads before the question; every line passes the redactor. */
export function formatHeldAction(action: HeldAction, options: { showDiagnosis: boolean }): string {
  const lines: string[] = [''];
  const diagnosis = action.diagnosis;
  if (diagnosis && options.showDiagnosis) {
    lines.push(
      `Diagnosis: ${diagnosis.category}${diagnosis.culprit ? ` — ${diagnosis.culprit}` : ''} (confidence ${diagnosis.confidence})`,
      `  ${diagnosis.summary}`,
      '',
      'Evidence:',
    );
    for (const line of diagnosis.evidence) lines.push(`  - ${line}`);
    lines.push('');
  }
  lines.push(`Action ${action.actionId}: ${action.tool} ${JSON.stringify(action.args)}`);
  if (action.reason) lines.push(`  Why: ${action.reason}`);
  if (action.diff?.length) {
    lines.push('  What changes (server-side dry run):');
    for (const line of action.diff) lines.push(`    ${line}`);
  } else {
    lines.push('  What changes: the dry run did not say');
  }
  lines.push(`  Expires: ${action.expiresAt.toISOString()}`, '');
  return `${lines.map(redactText).join('\n')}\n`;
}
