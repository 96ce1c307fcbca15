/**
 * The service's approvals: a held action waits in the store, on a parked run that holds
 * no worker, until a person decides through the HTTP API (`…/approve`, `…/reject`) or its
 * time runs out. A decision names the run and the action, so a token can never decide
 * another run's action by id alone; it is audited when it is made, with who made it, and
 * counted. Once no action of the run awaits a decision, the run is queued to resume.
 * Expiry is a timer set for the earliest deadline among parked runs, set again after
 * every park and decision, and at start (so actions that expired while the service was
 * down are expired at once).
 */
import type { AuditStore } from '../audit/audit-store.ts';
import type { Metrics } from '../metrics.ts';
import type { RunRecord, RunStore } from '../store/ports.ts';

export type DecisionResult =
  { outcome: 'decided'; decidedAt: string } | { outcome: 'not-found' } | { outcome: 'not-pending'; status: string };

export interface ServiceApprovals {
  decide(input: {
    runId: string;
    actionId: string;
    decision: 'approved' | 'rejected';
    by: string;
    reason?: string;
  }): Promise<DecisionResult>;
  /** Expires every held action past its deadline now, then sets the timer for the next one. */
  expireDue(): Promise<void>;
  /** Stops the expiry timer. */
  close(): void;
}

/** The longest a Node timer can wait; a later deadline is looked at again then. */
const MAX_TIMER_MS = 2 ** 31 - 1;
const EXPIRED_REASON = 'no decision before the approval deadline';

export function createServiceApprovals(input: {
  store: RunStore;
  audit: AuditStore;
  metrics: Metrics;
  now?: () => Date;
  /** The run has no action left awaiting a decision: it is queued and should be started. */
  onResumable(run: RunRecord): void;
  /** Hears of an expiry sweep that failed (the database did); the next park or decision sets the timer again. */
  onError?(error: unknown): void;
}): ServiceApprovals {
  const { store, audit, metrics } = input;
  const now = input.now ?? (() => new Date());
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const record = async (
    runId: string,
    decision: 'approved' | 'rejected' | 'expired',
    details: { by?: string; reason?: string; actionId: string },
  ): Promise<DecisionResult> => {
    const decidedAt = now();
    const result = await store.decideAction({
      runId,
      actionId: details.actionId,
      decision,
      ...(details.by ? { by: details.by } : {}),
      ...(details.reason ? { reason: details.reason } : {}),
      now: decidedAt,
    });
    if (result.outcome !== 'decided') return result;
    // Appended before the run is offered again: its resumed steps follow the decision in its chain.
    await audit.append({
      runId,
      type: 'approval',
      payload: {
        actionId: details.actionId,
        decision,
        ...(details.by ? { by: details.by } : {}),
        ...(details.reason ? { reason: details.reason } : {}),
      },
      time: decidedAt,
    });
    metrics.approvals.inc({ decision });
    if (result.resumable) input.onResumable(result.run);
    return { outcome: 'decided', decidedAt: decidedAt.toISOString() };
  };

  const schedule = async (): Promise<void> => {
    clearTimeout(timer);
    timer = undefined;
    if (closed) return;
    const next = nextDeadline(await store.listParked());
    if (next === undefined || closed) return;
    clearTimeout(timer);
    timer = setTimeout(
      () => void expireDue().catch((error: unknown) => input.onError?.(error)),
      Math.min(MAX_TIMER_MS, Math.max(0, next - now().getTime())),
    );
    // A pending expiry must not keep a stopping process alive.
    timer.unref();
  };

  const expireDue = async (): Promise<void> => {
    const at = now().getTime();
    for (const run of await store.listParked()) {
      for (const action of run.actions) {
        if (action.status !== 'awaiting_approval' || !action.expiresAt || Date.parse(action.expiresAt) > at) continue;
        await record(run.id, 'expired', { actionId: action.id, reason: EXPIRED_REASON });
      }
    }
    await schedule();
  };

  return {
    async decide({ runId, actionId, decision, by, reason }) {
      const result = await record(runId, decision, { actionId, by, ...(reason ? { reason } : {}) });
      await schedule().catch((error: unknown) => input.onError?.(error));
      return result;
    },
    expireDue,
    close() {
      closed = true;
      clearTimeout(timer);
    },
  };
}

/** The earliest deadline (epoch ms) of an action still awaiting a decision. */
function nextDeadline(runs: readonly RunRecord[]): number | undefined {
  let next: number | undefined;
  for (const run of runs) {
    for (const action of run.actions) {
      if (action.status !== 'awaiting_approval') continue;
      // An action held by an older version carries no deadline: it expires at once.
      const deadline = action.expiresAt ? Date.parse(action.expiresAt) : 0;
      if (next === undefined || deadline < next) next = deadline;
    }
  }
  return next;
}
