/**
 * When a failed delivery is tried again: the receiver's Retry-After when it gave one
 * (bounded, so a receiver cannot park a message for a day), else exponential backoff
 * from `backoffMs`, doubling per attempt up to `backoffMaxMs`, with ±20% jitter so the
 * messages a receiver's outage held back do not all return in the same second.
 */
export interface BackoffSettings {
  backoffMs: number;
  backoffMaxMs: number;
}

/** The longest Retry-After taken as given. */
export const MAX_RETRY_AFTER_MS = 3_600_000;

export function retryDelayMs(input: {
  attempts: number;
  retryAfterMs?: number;
  settings: BackoffSettings;
  random?: () => number;
}): number {
  if (input.retryAfterMs !== undefined && Number.isFinite(input.retryAfterMs))
    return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, input.retryAfterMs));
  const { backoffMs, backoffMaxMs } = input.settings;
  const exponential = Math.min(backoffMaxMs, backoffMs * 2 ** Math.max(0, input.attempts - 1));
  const jitter = 0.8 + 0.4 * (input.random ?? Math.random)();
  return Math.round(Math.min(backoffMaxMs, exponential * jitter));
}
