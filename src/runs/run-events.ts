/**
 * What happens to runs, told to whoever listens: a run `ended` (with the cause of its end),
 * `parked` awaiting a person's decision, or `resolved` (every alert of its incident
 * resolved). The run service's waiters, the culprit index, the replicas' wake-up and the
 * notifier subscribe where the program is assembled; nothing that ends a run knows them.
 * A listener that throws is logged and does not stop the others.
 */
import type { Logger } from 'pino';
import type { RunRecord } from '../store/ports.ts';

/** How a run came to its end (lifecycle.ts): its own outcome, merged into its node's run, cancelled by its alert's resolution, or ended by a recovery. */
export type RunEndCause = 'finished' | 'merged' | 'cancelled' | 'recovered';

export interface RunEventMap {
  ended: { run: RunRecord; cause: RunEndCause };
  parked: { run: RunRecord };
  resolved: { run: RunRecord };
}

export type RunEventName = keyof RunEventMap;

export interface RunEvents {
  /** Listens to `name`; the returned function stops listening. */
  on<Name extends RunEventName>(name: Name, listener: (event: RunEventMap[Name]) => void): () => void;
  emit<Name extends RunEventName>(name: Name, event: RunEventMap[Name]): void;
}

export function createRunEvents(logger?: Logger): RunEvents {
  const listeners: { [Name in RunEventName]: Set<(event: RunEventMap[Name]) => void> } = {
    ended: new Set(),
    parked: new Set(),
    resolved: new Set(),
  };
  return {
    on(name, listener) {
      listeners[name].add(listener);
      return () => void listeners[name].delete(listener);
    },
    emit(name, event) {
      for (const listener of listeners[name]) {
        try {
          listener(event);
        } catch (error) {
          logger?.error({ err: error, runId: event.run.id, event: name }, 'a listener of run events failed');
        }
      }
    },
  };
}
