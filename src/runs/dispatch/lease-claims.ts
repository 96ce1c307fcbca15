/**
 * The claims of the shared dispatcher (shared.ts): runs taken from a queue that several
 * replicas share (PostgreSQL, stores.ts `SharedQueue`): the database is the queue. A free worker claims the oldest due run
 * (FOR UPDATE SKIP LOCKED, so two replicas never take the same one), and the claim leases
 * it to this replica. While the run goes on, heartbeats renew its lease; a run whose
 * lease this replica lost (it stalled, and another took the run over) is stopped here.
 * Runs whose lease ran out on another replica (it was killed) are taken over by a sweep
 * and recovered as a restart recovers them (recover-runs.ts).
 *
 * Idle replicas wait on LISTEN: a replica that queues a run (ingest, a decision) wakes
 * them with NOTIFY. A poll every `pollMs` finds what no notification announces: runs
 * whose `notBefore` came (a retry, the node-incident hold), a notification missed while
 * the listener reconnected.
 */
import type { Logger } from 'pino';
import type { ClusterIdentity } from '../../cluster/kubeconfig.ts';
import type { RunRecord, SharedQueue } from '../../store/ports.ts';

export interface LeaseClaims {
  /** Starts claiming, listening, renewing leases and taking over expired ones. */
  start(): Promise<void>;
  /** Claims due runs now, as workers are free. */
  wake(): void;
  /** Stops claiming; started runs go on. */
  pause(): void;
  /** Stops the timers and the listener (after the runs have stopped). */
  close(): Promise<void>;
  /** Queued runs in the database, as last counted. */
  depth(): number;
  /** Runs this replica is running. */
  active(): number;
  /** Resolves when no run is left running here. */
  idle(): Promise<void>;
}

export interface LeaseClaimsInput {
  queue: SharedQueue;
  concurrency: number;
  cluster?: ClusterIdentity;
  logger: Logger;
  /** Runs a claimed run to its end (or park, or retry); the worker is free when it settles. `leaseLost` aborts when this replica no longer holds the run's lease. */
  run(run: RunRecord, leaseLost: AbortSignal): Promise<void>;
  /** A run whose lease ran out elsewhere, now leased to this replica: recover it (fail it, or queue it again). */
  recover(run: RunRecord): Promise<void>;
  /** Another replica ended or parked a run. */
  ended(runId: string): void;
  pollMs?: number;
  now?: () => Date;
}

const DEFAULT_POLL_MS = 1000;

export function createLeaseClaims(input: LeaseClaimsInput): LeaseClaims {
  const { queue, logger } = input;
  const now = input.now ?? (() => new Date());
  const running = new Map<string, AbortController>();
  const timers: NodeJS.Timeout[] = [];
  let listener: { stop(): Promise<void> } | undefined;
  let paused = true;
  let claiming = false;
  let wokenWhileClaiming = false;
  let depth = 0;
  let idleWaiters: (() => void)[] = [];

  const settle = (id: string): void => {
    running.delete(id);
    if (running.size === 0) {
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
    wake();
  };

  const claimWhileFree = async (): Promise<void> => {
    while (!paused && running.size < input.concurrency) {
      const run = await queue.claimNext({ now: now(), ...(input.cluster ? { cluster: input.cluster } : {}) });
      if (!run) return;
      const lease = new AbortController();
      running.set(run.id, lease);
      depth = Math.max(0, depth - 1);
      // `run` reports its own failures; a rejection must not stop the claiming.
      void input
        .run(run, lease.signal)
        .catch((error: unknown) => logger.error({ err: error, runId: run.id }, 'run could not be executed'))
        .finally(() => settle(run.id));
    }
  };

  const wake = (): void => {
    if (paused) return;
    if (claiming) {
      wokenWhileClaiming = true;
      return;
    }
    claiming = true;
    void (async () => {
      try {
        do {
          wokenWhileClaiming = false;
          await claimWhileFree();
        } while (wokenWhileClaiming && !paused);
      } catch (error) {
        logger.error({ err: error }, 'claiming a queued run failed; the next poll tries again');
      } finally {
        claiming = false;
      }
    })();
  };

  const poll = async (): Promise<void> => {
    depth = await queue.depth();
    wake();
  };

  const heartbeat = async (): Promise<void> => {
    const ids = [...running.keys()];
    if (ids.length === 0) return;
    const held = new Set(await queue.heartbeat(ids, now()));
    for (const id of ids) {
      if (held.has(id) || !running.has(id)) continue;
      logger.warn(
        { runId: id },
        'this replica lost the lease of a run it was running (another replica took it over): stopping it here',
      );
      running.get(id)?.abort(new Error("this replica lost the run's lease; another replica runs it"));
    }
  };

  const takeOver = async (): Promise<void> => {
    for (const run of await queue.takeExpired(now())) {
      // Our own run, whose lease ran out while this replica stalled: it is still running here, and now leased again.
      if (running.has(run.id)) continue;
      logger.warn(
        { runId: run.id, attempt: run.attempts },
        'taking over a run whose replica stopped renewing its lease',
      );
      await input.recover(run);
    }
  };

  const every = (ms: number, work: () => Promise<void>, what: string): void => {
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      work()
        .catch((error: unknown) => logger.warn({ err: error }, `${what} failed; the next one tries again`))
        .finally(() => (busy = false));
    }, ms);
    timer.unref();
    timers.push(timer);
  };

  return {
    async start() {
      listener = await queue.listen({ queued: () => wake(), ended: (runId) => input.ended(runId) });
      paused = false;
      await takeOver().catch((error: unknown) =>
        logger.warn({ err: error }, 'taking over expired runs failed; the next sweep tries again'),
      );
      every(input.pollMs ?? DEFAULT_POLL_MS, poll, 'polling the queue');
      every(Math.max(100, Math.floor(queue.leaseMs / 3)), heartbeat, 'renewing run leases');
      every(Math.max(100, Math.floor(queue.leaseMs / 2)), takeOver, 'taking over expired runs');
      await poll();
    },
    wake,
    pause() {
      paused = true;
    },
    async close() {
      paused = true;
      for (const timer of timers) clearInterval(timer);
      timers.length = 0;
      await listener?.stop();
      listener = undefined;
    },
    depth: () => depth,
    active: () => running.size,
    idle() {
      return running.size === 0 ? Promise.resolve() : new Promise((resolve) => idleWaiters.push(resolve));
    },
  };
}
