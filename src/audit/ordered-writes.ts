/**
 * Writes made without waiting, stored one after another in the order they were made: a
 * run's audit events, its action statuses. A failed write is never silent and nothing is
 * written after it: every later `flush` throws it.
 */
export interface OrderedWrites {
  /** Queues `write` after every write queued before it. */
  add(write: () => Promise<unknown>): void;
  /** Resolves once every write queued so far is stored; rejects with the first that failed. */
  flush(): Promise<void>;
}

export function createOrderedWrites(): OrderedWrites {
  let tail: Promise<void> = Promise.resolve();
  let failure: { error: unknown } | undefined;
  return {
    add(write) {
      tail = tail.then(async () => {
        if (failure) return;
        try {
          await write();
        } catch (error) {
          failure = { error };
        }
      });
    },
    async flush() {
      await tail;
      if (failure) throw failure.error;
    },
  };
}
