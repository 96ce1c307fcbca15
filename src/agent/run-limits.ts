/**
 * The bounds one run of the agent keeps, made from the configured limits in one place for
 * every way a run starts (the service, `kubewhy diagnose`, `kubewhy mcp`, the worker
 * threads), so that a setting such as KUBEWHY_MAX_HELD_ACTIONS means the same in each.
 */

/** maxHeldActions: how many actions one run may hold for approval (default 3). */
export interface RunLimits {
  maxSteps: number;
  tokenBudget: number;
  timeoutMs: number;
  approvalTtlMs: number;
  toolOutputBytes: number;
  maxHeldActions?: number;
}

/** The configured limits (`Config['limits']`) as one run's. */
export function runLimitsOf(limits: {
  maxSteps: number;
  tokenBudget: number;
  runTimeoutMs: number;
  approvalTtlMs: number;
  toolOutputBytes: number;
  maxHeldActions?: number;
}): RunLimits {
  return {
    maxSteps: limits.maxSteps,
    tokenBudget: limits.tokenBudget,
    timeoutMs: limits.runTimeoutMs,
    approvalTtlMs: limits.approvalTtlMs,
    toolOutputBytes: limits.toolOutputBytes,
    ...(limits.maxHeldActions !== undefined ? { maxHeldActions: limits.maxHeldActions } : {}),
  };
}
