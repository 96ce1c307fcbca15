/** Work put off by a delay, cancelled all at once when the dispatcher pauses: a pending start must not keep a stopping process alive. */
export interface Delays {
  /** Runs `work` after `delayMs`; at once when it is not positive. */
  after(delayMs: number, work: () => void): void;
  /** Cancels every pending piece of work. */
  clear(): void;
}

/** The longest delay setTimeout keeps (about 24.8 days); a longer one is cut to it. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export function createDelays(): Delays {
  const pending = new Set<NodeJS.Timeout>();
  return {
    after(delayMs, work) {
      if (!(delayMs > 0)) {
        work();
        return;
      }
      const timer = setTimeout(
        () => {
          pending.delete(timer);
          work();
        },
        Math.min(delayMs, MAX_TIMEOUT_MS),
      );
      timer.unref();
      pending.add(timer);
    },
    clear() {
      for (const timer of pending) clearTimeout(timer);
      pending.clear();
    },
  };
}
