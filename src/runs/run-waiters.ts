/**
 * Callers waiting for a run to end (`POST /incidents?wait=`, the CLI over HTTP): each
 * answers with the run once it ended or parked, or with its state as stored when its
 * time is up. A run that ended on another replica is read back from the store.
 */
import type { Logger } from 'pino';
import { isFinished } from '../store/run-store.ts';
import type { RunRecord, RunStore } from '../store/ports.ts';

export interface RunWaiters {
  /** Resolves with the run once it has ended, or with its current state after `timeoutMs`. */
  waitForEnd(id: string, timeoutMs: number): Promise<RunRecord | undefined>;
  /** The run ended or parked here: its waiters answer with it. */
  ended(run: RunRecord): void;
  /** A run ended or parked on another replica: its waiters here answer with it as stored. */
  endedElsewhere(runId: string): void;
  /** Answers every pending wait now with the run as it is, and every later one at once. */
  release(): void;
}

export function createRunWaiters(store: RunStore, logger: Logger): RunWaiters {
  const waiters = new Map<string, Set<(run: RunRecord | undefined) => void>>();
  let closing = false;
  const readAndAnswer = (id: string, answer: (run: RunRecord | undefined) => void): void => {
    void store.get(id).then(answer, () => answer(undefined));
  };

  const ended = (run: RunRecord): void => {
    const set = waiters.get(run.id);
    if (!set) return;
    waiters.delete(run.id);
    for (const resolve of set) resolve(run);
  };

  return {
    async waitForEnd(id, timeoutMs) {
      const current = await store.get(id);
      if (!current || isFinished(current.status) || timeoutMs <= 0 || closing) return current;
      return new Promise((resolve) => {
        const set = waiters.get(id) ?? new Set();
        waiters.set(id, set);
        const timer = setTimeout(() => {
          set.delete(settle);
          if (set.size === 0) waiters.delete(id);
          readAndAnswer(id, resolve);
        }, timeoutMs);
        const settle = (run: RunRecord | undefined): void => {
          clearTimeout(timer);
          if (run) resolve(run);
          else readAndAnswer(id, resolve);
        };
        set.add(settle);
      });
    },
    ended,
    endedElsewhere(runId) {
      if (!waiters.has(runId)) return;
      void store
        .get(runId)
        .then((run) => {
          if (run && (isFinished(run.status) || run.parked)) ended(run);
        })
        .catch((error: unknown) => logger.error({ err: error }, 'reading a run another replica ended failed'));
    },
    release() {
      closing = true;
      for (const [id, set] of [...waiters]) {
        waiters.delete(id);
        readAndAnswer(id, (run) => {
          for (const resolve of set) resolve(run);
        });
      }
    },
  };
}
