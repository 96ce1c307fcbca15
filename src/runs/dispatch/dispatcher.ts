/**
 * Where a stored run waits for a worker, and the workers that take it. The run service
 * talks to one `Dispatcher`, chosen once where the service is built: `local.ts` keeps the
 * queue in this process (SQLite, or PostgreSQL with one replica); `shared.ts` uses the
 * database as the queue that several replicas share, claiming runs under leases.
 *
 * A run is stored before any worker hears of it. Storing happens inside a write batch, so
 * the dispatcher first promises the run a place (`reserve`), and the batch's commit hands
 * it the stored run (`commit`) or its rollback gives the place back (`rollback`). Until
 * then the place counts against `room`, so a burst of requests cannot overfill the queue.
 */
import type { Logger } from 'pino';
import type { Metrics } from '../../metrics.ts';
import type { RunRecord } from '../../store/ports.ts';
import type { RecoveryInput, RecoveryReport } from '../recover-runs.ts';

/** A place promised to a run that a write batch is storing. */
export interface Place {
  /** When the run may first be claimed, where the dispatcher keeps its hold in the store (set it on the stored run). */
  readonly notBefore?: Date;
  /** The batch committed: the run waits for a worker (after its hold, when it has one). */
  commit(run: RunRecord): void;
  /** The batch did not store the run: the place is free again. Once only; a second call does nothing. */
  rollback(): void;
}

/** A claim of a run by this replica (shared dispatch only): the run and what aborts when its lease is lost. */
export interface Claim {
  run: RunRecord;
  leaseLost: AbortSignal;
}

export interface Dispatcher {
  /** Takes up what earlier processes left (local: recovers this database's unfinished runs; shared: expired leases), then starts the workers. */
  start(): Promise<RecoveryReport>;
  /** A place for a run about to be stored; `held` runs wait `holdMs` before a worker may take them. */
  reserve(input: { held: boolean; at: Date }): Place;
  /** A stored queued run may start: now, or when its `notBefore` comes. Taken even past the queue's size (it was accepted before). */
  offer(run: { id: string; notBefore?: string }): void;
  /** A queued run ended without running (its alert resolved first): no worker takes it. */
  withdraw(runId: string): void;
  /** A run ended or parked on this replica: the others' callers waiting for it may answer. */
  ended(runId: string): void;
  /** Runs that may still be accepted: free places in the queue and free workers, less the places promised. */
  room(): number;
  /** Runs waiting for a worker. */
  depth(): number;
  /** Runs a worker of this process is running. */
  active(): number;
  /** Stops starting runs and cancels delayed starts; running runs go on. */
  pause(): void;
  /** Resolves when no run is left running here. */
  idle(): Promise<void>;
  /** Releases what `start` took (timers, listeners), after the runs have stopped. */
  close(): Promise<void>;
}

export interface DispatcherInput {
  concurrency: number;
  queueSize: number;
  /** How long a held run waits before it may start (node-incident.ts). */
  holdMs: number;
  /** What a restart or a takeover recovers with. */
  recovery: RecoveryInput;
  metrics: Metrics;
  logger: Logger;
  now: () => Date;
  /** Runs a run to its end, park or retry; the worker is free when it settles. A shared dispatcher passes its claim. */
  run(id: string, claim?: Claim): Promise<void>;
  /** Another replica ended or parked a run (shared dispatch only). */
  endedElsewhere(runId: string): void;
}

/** Places promised and not yet committed or rolled back, counted once each. */
export function createPlaces(): { count(): number; take(): { release(): boolean } } {
  let promised = 0;
  return {
    count: () => promised,
    take() {
      promised++;
      let held = true;
      return {
        release() {
          if (!held) return false;
          held = false;
          promised--;
          return true;
        },
      };
    },
  };
}
