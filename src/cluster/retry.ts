/**
 * Retries an idempotent call with exponential backoff and full jitter, honouring the
 * server's `Retry-After`. Waits end early when the caller's signal fires.
 */

export interface RetryPolicy {
  /** Attempts after the first. */
  retries: number;
  baseDelayMs: number;
  /** Upper bound of one wait, `Retry-After` included. */
  maxDelayMs: number;
}

export interface RetryOptions<T> {
  attempt: (attemptNumber: number) => Promise<T>;
  policy: RetryPolicy;
  isRetryable: (error: unknown) => boolean;
  /** The wait the server asked for, if any. */
  readRetryAfterMs: (error: unknown) => number | undefined;
  signal?: AbortSignal;
}

/** Resolves after `ms`, or as soon as `signal` fires. */
export function waitFor(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** The wait before attempt `attemptNumber + 1`. */
export function computeDelayMs(policy: RetryPolicy, attemptNumber: number, retryAfterMs: number | undefined): number {
  if (retryAfterMs !== undefined) return Math.min(policy.maxDelayMs, retryAfterMs);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attemptNumber);
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

/** Runs `attempt` until it succeeds, fails for good, the retries are spent or the signal fires; rethrows the last error. */
export async function withRetries<T>(options: RetryOptions<T>): Promise<T> {
  for (let attemptNumber = 0; ; attemptNumber += 1) {
    try {
      return await options.attempt(attemptNumber);
    } catch (error) {
      const last = attemptNumber >= options.policy.retries;
      if (last || options.signal?.aborted || !options.isRetryable(error)) throw error;
      await waitFor(computeDelayMs(options.policy, attemptNumber, options.readRetryAfterMs(error)), options.signal);
      if (options.signal?.aborted) throw error;
    }
  }
}
