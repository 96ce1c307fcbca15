/**
 * Approvals: a held action waits here until a person decides or its time runs out.
 * The broker only relays decisions; who may decide is the HTTP layer's business.
 */
export type ApprovalDecision = 'approved' | 'rejected' | 'expired';

export interface ApprovalOutcome {
  decision: ApprovalDecision;
  by?: string;
  reason?: string;
}

/**
 * A held action as it is put to a person: only once the run has its diagnosis, so the
 * person reads what is wrong, the evidence, why this action and what it would change
 * before deciding.
 */
export interface HeldAction {
  runId: string;
  actionId: string;
  tool: string;
  args: Record<string, unknown>;
  expiresAt: Date;
  /** Why it is asked for: the model's stated reason, or the diagnosis it serves. */
  reason?: string;
  /** What the server-side dry run says it would change, one readable line each (no secret values). */
  diff?: string[];
  /** The diagnosis the action comes with. */
  diagnosis?: HeldActionDiagnosis;
}

export interface HeldActionDiagnosis {
  category: string;
  /** `Kind/namespace/name` of the culprit, when the diagnosis names one. */
  culprit?: string;
  summary: string;
  evidence: string[];
  confidence: string;
}

export interface ApprovalBroker {
  /** Resolves when the action is decided, expires, or the signal aborts (as expired). */
  waitForDecision(action: HeldAction, signal: AbortSignal): Promise<ApprovalOutcome>;
}

export interface InMemoryApprovalBroker extends ApprovalBroker {
  /** Decides a pending action; false when no such action is waiting. */
  decide(actionId: string, outcome: { decision: 'approved' | 'rejected'; by?: string; reason?: string }): boolean;
  pending(): HeldAction[];
  /** Called whenever an action starts waiting (for tests and the run's status). */
  onHeld?: (action: HeldAction) => void;
}

/** A broker that keeps waiting actions in memory and expires them at their deadline. */
export function createInMemoryApprovalBroker(
  options: { onHeld?: (action: HeldAction) => void } = {},
): InMemoryApprovalBroker {
  const waiting = new Map<string, { action: HeldAction; settle: (outcome: ApprovalOutcome) => void }>();
  return {
    ...(options.onHeld ? { onHeld: options.onHeld } : {}),
    waitForDecision(action, signal) {
      return new Promise<ApprovalOutcome>((resolve) => {
        const delay = Math.max(0, action.expiresAt.getTime() - Date.now());
        const settle = (outcome: ApprovalOutcome): void => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          waiting.delete(action.actionId);
          resolve(outcome);
        };
        const timer = setTimeout(
          () => settle({ decision: 'expired', reason: 'no decision before the approval deadline' }),
          delay,
        );
        const onAbort = (): void => settle({ decision: 'expired', reason: 'the run was stopped while waiting' });
        if (signal.aborted) return onAbort();
        signal.addEventListener('abort', onAbort, { once: true });
        waiting.set(action.actionId, { action, settle });
        options.onHeld?.(action);
      });
    },
    decide(actionId, outcome) {
      const entry = waiting.get(actionId);
      if (!entry) return false;
      entry.settle(outcome);
      return true;
    },
    pending() {
      return [...waiting.values()].map((entry) => entry.action);
    },
  };
}
