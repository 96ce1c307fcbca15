/**
 * The loop's limits, one named check each. A check returns the reason to stop, or
 * undefined to go on.
 *
 * The token budget is counted in input-token equivalents: each kind of token weighs
 * what it is billed relative to a plain input token (PRICE_WEIGHTS), so a run that
 * reads its growing transcript from the prompt cache is not stopped as if it had paid
 * full price for every cached token.
 */
import type { TokenUsage } from './model.ts';

export interface LoopLimits {
  maxSteps: number;
  /** In input-token equivalents (see weighUsage). */
  tokenBudget: number;
  deadline: Date;
}

/**
 * What a token costs relative to an uncached input token, as the Messages API bills it:
 * cache writes 1.25× (5-minute cache) or 2× (1-hour cache), cache reads 0.1×, output 5×
 * (the output-to-input price ratio of every current Claude model: Haiku, Sonnet, Opus).
 */
export const PRICE_WEIGHTS = { input: 1, cacheWrite5m: 1.25, cacheWrite1h: 2, cacheRead: 0.1, output: 5 } as const;

/** Usage in input-token equivalents, rounded up. */
export function weighUsage(usage: TokenUsage): number {
  const longWrites = Math.min(usage.cacheWrite1h ?? 0, usage.cacheWrite);
  const shortWrites = usage.cacheWrite - longWrites;
  const weighted =
    usage.input * PRICE_WEIGHTS.input +
    shortWrites * PRICE_WEIGHTS.cacheWrite5m +
    longWrites * PRICE_WEIGHTS.cacheWrite1h +
    usage.cacheRead * PRICE_WEIGHTS.cacheRead +
    usage.output * PRICE_WEIGHTS.output;
  return Math.ceil(weighted);
}

export function stepCapReached(step: number, limits: LoopLimits): string | undefined {
  return step > limits.maxSteps ? `the step cap of ${limits.maxSteps} was reached without a diagnosis` : undefined;
}

/** The last allowed step: the model must submit its diagnosis now. */
export function isLastStep(step: number, limits: LoopLimits): boolean {
  return step >= limits.maxSteps;
}

export function tokenBudgetExceeded(usage: TokenUsage, limits: LoopLimits): string | undefined {
  const used = weighUsage(usage);
  return used >= limits.tokenBudget
    ? `the token budget of ${limits.tokenBudget} input-token equivalents was used up (${used})`
    : undefined;
}

/**
 * The next turn would use the budget up: estimated as the last turn plus its growth over
 * the one before (a transcript grows each step), it reaches the budget. That turn must
 * be the one that submits the diagnosis, rather than the run stopping without one.
 */
export function tokenBudgetNearlyUsed(input: {
  usage: TokenUsage;
  turns: readonly TokenUsage[];
  limits: LoopLimits;
}): string | undefined {
  const last = input.turns.at(-1);
  if (!last) return undefined;
  const before = input.turns.at(-2);
  const lastCost = weighUsage(last);
  const growth = before ? Math.max(0, lastCost - weighUsage(before)) : 0;
  const used = weighUsage(input.usage);
  const projected = used + lastCost + growth;
  if (projected < input.limits.tokenBudget) return undefined;
  return `the token budget of ${input.limits.tokenBudget} input-token equivalents is nearly used (${used} used; the next turn is estimated at ${lastCost + growth})`;
}

export function deadlinePassed(now: Date, limits: LoopLimits): string | undefined {
  return now.getTime() >= limits.deadline.getTime()
    ? `the run's deadline (${limits.deadline.toISOString()}) passed`
    : undefined;
}

export function wasAborted(signal: AbortSignal): string | undefined {
  if (!signal.aborted) return undefined;
  const reason: unknown = signal.reason;
  return `the run was stopped: ${reason instanceof Error ? reason.message : String(reason ?? 'aborted')}`;
}
