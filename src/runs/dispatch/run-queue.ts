/**
 * The in-memory side of the run queue: run ids waiting in order, at most `queueSize` of
 * them, and at most `concurrency` started at once. It holds ids only; the runs table is
 * the record (a run is stored before it is offered here, and a restart rebuilds the
 * queue from the table).
 */
export interface RunQueue {
  /** Adds a run at the back; false when the queue is full, unless `force` (a run accepted before a restart). */
  offer(id: string, options?: { force?: boolean }): boolean;
  /** Takes a waiting run out; false when it was not waiting. */
  remove(id: string): boolean;
  /** Waiting runs. */
  depth(): number;
  /** Runs started and not yet settled. */
  active(): number;
  /** Places left before `offer` says no. */
  room(): number;
  /** Stops starting waiting runs (they stay stored as queued). */
  pause(): void;
  resume(): void;
  /** Resolves when no started run is left. */
  idle(): Promise<void>;
}

export function createRunQueue(input: {
  concurrency: number;
  queueSize: number;
  start: (id: string) => Promise<void>;
}): RunQueue {
  // A Set keeps insertion order and removes in O(1).
  const waiting = new Set<string>();
  let active = 0;
  let paused = false;
  let idleWaiters: (() => void)[] = [];

  const settle = (): void => {
    active--;
    if (active === 0) {
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
    pump();
  };

  const pump = (): void => {
    while (!paused && active < input.concurrency && waiting.size > 0) {
      const id = waiting.values().next().value as string;
      waiting.delete(id);
      active++;
      // `start` reports its own failures; a rejection here must not stop the queue.
      void input
        .start(id)
        .catch(() => undefined)
        .finally(settle);
    }
  };

  return {
    offer(id, { force = false } = {}) {
      if (waiting.has(id)) return true;
      if (waiting.size >= input.queueSize && !force) return false;
      waiting.add(id);
      pump();
      return true;
    },
    remove(id) {
      return waiting.delete(id);
    },
    depth: () => waiting.size,
    active: () => active,
    room: () => Math.max(0, input.queueSize - waiting.size),
    pause() {
      paused = true;
    },
    resume() {
      paused = false;
      pump();
    },
    idle() {
      return active === 0 ? Promise.resolve() : new Promise((resolve) => idleWaiters.push(resolve));
    },
  };
}
