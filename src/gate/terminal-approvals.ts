/**
 * Approvals for `kubewhy diagnose`: asks the person at the terminal, and rejects when
 * nobody can be asked (no TTY), so a held write never runs unattended.
 */
import { createInterface } from 'node:readline/promises';
import type { ApprovalBroker } from './approvals.ts';

export function createTerminalApprovalBroker(streams: { input: NodeJS.ReadStream; output: NodeJS.WriteStream }): ApprovalBroker {
  return {
    async waitForDecision(action, signal) {
      if (!streams.input.isTTY) {
        return { decision: 'rejected', by: 'kubewhy', reason: 'no one at a terminal to approve it (stdin is not a TTY)' };
      }
      const prompt = createInterface({ input: streams.input, output: streams.output });
      try {
        const answer = await prompt.question(`\nApprove ${action.tool} ${JSON.stringify(action.args)} (action ${action.actionId})? [y/N] `, { signal });
        const approved = /^y(es)?$/i.test(answer.trim());
        return approved ? { decision: 'approved', by: 'terminal' } : { decision: 'rejected', by: 'terminal' };
      } catch {
        return { decision: 'expired', reason: 'the run was stopped while waiting' };
      } finally {
        prompt.close();
      }
    },
  };
}
