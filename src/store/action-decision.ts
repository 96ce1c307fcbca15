/**
 * The rule that decides a held action, for every store: the run and the action must exist,
 * both must await approval and the run must be parked (a checkpoint to resume from); the
 * decision then stamps the action (by whom, why, when: the reason it was asked for stays
 * beside the decider's own), and the run resumes once no action awaits a decision. Each
 * backend writes what this returns, guarded by the actions it read.
 */
import type { Action } from '../agent/diagnosis.ts';
import type { RunRecord, RunStatus } from './ports.ts';

export interface DecisionInput {
  actionId: string;
  decision: 'approved' | 'rejected' | 'expired';
  by?: string;
  reason?: string;
  now: Date;
}

export type PlannedDecision =
  | { outcome: 'decided'; action: Action; actions: Action[]; status: RunStatus; resumable: boolean }
  | { outcome: 'not-found' }
  | { outcome: 'not-pending'; status: string };

export function planDecision(run: RunRecord | undefined, input: DecisionInput): PlannedDecision {
  const action = run?.actions.find((candidate) => candidate.id === input.actionId);
  if (!run || !action) return { outcome: 'not-found' };
  if (action.status !== 'awaiting_approval' || run.status !== 'awaiting_approval' || !run.parked)
    return { outcome: 'not-pending', status: action.status };
  const decided: Action = {
    ...action,
    status: input.decision,
    decidedAt: input.now.toISOString(),
    ...(input.by ? { decidedBy: input.by } : {}),
    ...(input.reason ? { decisionReason: input.reason } : {}),
  };
  const actions = run.actions.map((candidate) => (candidate.id === input.actionId ? decided : candidate));
  const resumable = !actions.some((candidate) => candidate.status === 'awaiting_approval');
  return {
    outcome: 'decided',
    action: decided,
    actions,
    status: resumable ? 'queued' : 'awaiting_approval',
    resumable,
  };
}
