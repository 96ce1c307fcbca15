/**
 * The service's approval broker: held actions wait in memory until a person decides
 * through the HTTP API (`…/approve`, `…/reject`) or their time runs out. A decision names
 * the run and the action, so a token can never decide another run's action by id alone.
 * Every outcome (approved, rejected, expired) is counted.
 */
import { createInMemoryApprovalBroker, type ApprovalBroker, type HeldAction } from '../gate/approvals.ts';
import type { Metrics } from '../metrics.ts';

export interface ServiceApprovalBroker extends ApprovalBroker {
  /** 'decided' when the action was waiting on that run; 'not-pending' otherwise (already decided, expired, unknown). */
  decide(input: { runId: string; actionId: string; decision: 'approved' | 'rejected'; by: string; reason?: string }): 'decided' | 'not-pending';
  /** The actions of a run waiting for a decision now. */
  pendingFor(runId: string): HeldAction[];
}

export function createServiceApprovalBroker(input: { metrics: Metrics }): ServiceApprovalBroker {
  const inner = createInMemoryApprovalBroker();
  return {
    async waitForDecision(action, signal) {
      const outcome = await inner.waitForDecision(action, signal);
      input.metrics.approvals.inc({ decision: outcome.decision });
      return outcome;
    },
    decide({ runId, actionId, decision, by, reason }) {
      const held = inner.pending().find((action) => action.actionId === actionId && action.runId === runId);
      if (!held) return 'not-pending';
      return inner.decide(actionId, { decision, by, ...(reason ? { reason } : {}) }) ? 'decided' : 'not-pending';
    },
    pendingFor(runId) {
      return inner.pending().filter((action) => action.runId === runId);
    },
  };
}
