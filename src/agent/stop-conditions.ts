/**
 * The loop's limits, one named check each. A check returns the reason to stop, or
 * undefined to go on.
 */
import type { TokenUsage } from './model.ts';

export interface LoopLimits {
  maxSteps: number;
  tokenBudget: number;
  deadline: Date;
}

export function stepCapReached(step: number, limits: LoopLimits): string | undefined {
  return step > limits.maxSteps ? `the step cap of ${limits.maxSteps} was reached without a diagnosis` : undefined;
}

/** The last allowed step: the model must submit its diagnosis now. */
export function isLastStep(step: number, limits: LoopLimits): boolean {
  return step >= limits.maxSteps;
}

export function tokenBudgetExceeded(usage: TokenUsage, limits: LoopLimits): string | undefined {
  const used = usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
  return used >= limits.tokenBudget ? `the token budget of ${limits.tokenBudget} was used up (${used} tokens)` : undefined;
}

export function deadlinePassed(now: Date, limits: LoopLimits): string | undefined {
  return now.getTime() >= limits.deadline.getTime() ? `the run's deadline (${limits.deadline.toISOString()}) passed` : undefined;
}

export function wasAborted(signal: AbortSignal): string | undefined {
  if (!signal.aborted) return undefined;
  const reason: unknown = signal.reason;
  return `the run was stopped: ${reason instanceof Error ? reason.message : String(reason ?? 'aborted')}`;
}
