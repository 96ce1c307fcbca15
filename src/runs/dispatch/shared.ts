/**
 * The dispatcher of replicas that share one database (`SharedQueue`, PostgreSQL): the
 * database is the queue, and `lease-claims.ts` claims due runs under leases. A stored run
 * is announced to every replica (NOTIFY), once per moment however many runs a batch
 * stored; a held run is stored with its `notBefore`, so no replica claims it early, and
 * this one looks again when the hold is over. A run whose replica stopped renewing its
 * lease is recovered here as a restart recovers it.
 */
import type { ClusterIdentity } from '../../cluster/kubeconfig.ts';
import type { SharedQueue } from '../../store/ports.ts';
import { recoverInterrupted } from '../recover-runs.ts';
import { createDelays } from './delays.ts';
import { createPlaces, type Dispatcher, type DispatcherInput } from './dispatcher.ts';
import { createLeaseClaims } from './lease-claims.ts';

export function createSharedDispatcher(
  input: DispatcherInput & { queue: SharedQueue; cluster?: ClusterIdentity },
): Dispatcher {
  const { queue, logger, now, metrics } = input;
  const places = createPlaces();
  const delays = createDelays();
  const logFailure = (what: string) => (error: unknown) => logger.error({ err: error }, what);
  /** The longest hold among the runs committed in this moment, when an announcement is due. */
  let announcing: { holdMs: number } | undefined;

  /** Runs were queued in the database: every replica is woken, and this one claims (again after `holdMs`, when given). */
  const announce = (holdMs = 0): void => {
    void queue
      .notifyQueued()
      .catch(logFailure('waking the other replicas failed; they find the runs at their next poll'));
    claims.wake();
    if (holdMs > 0) delays.after(holdMs, () => claims.wake());
  };
  /** One announcement for everything committed in this moment. */
  const announceSoon = (holdMs: number): void => {
    if (announcing) {
      announcing.holdMs = Math.max(announcing.holdMs, holdMs);
      return;
    }
    announcing = { holdMs };
    queueMicrotask(() => {
      const due = announcing?.holdMs ?? 0;
      announcing = undefined;
      announce(due);
    });
  };

  const claims = createLeaseClaims({
    queue,
    concurrency: input.concurrency,
    ...(input.cluster ? { cluster: input.cluster } : {}),
    logger,
    run: (run, leaseLost) => input.run(run.id, { run, leaseLost }),
    recover: async (run) => {
      const outcome = await recoverInterrupted(run, { ...input.recovery, cause: 'lease' });
      if (outcome.failed || outcome.requeued || outcome.ended)
        metrics.runsTakenOver.inc({ outcome: outcome.requeued ? 'requeued' : outcome.ended ? 'ended' : 'failed' });
      if (outcome.requeued) announce();
    },
    ended: input.endedElsewhere,
    now,
  });

  return {
    async start() {
      // The other replicas' runs are theirs while their leases last: only expired ones are recovered (by the claims' sweep).
      await claims.start();
      return { queue: [], resumed: [], failed: [], ended: [] };
    },
    reserve({ held, at }) {
      const place = places.take();
      return {
        // The hold is kept in the database: no replica claims the run before its node's alert may arrive.
        ...(held ? { notBefore: new Date(at.getTime() + input.holdMs) } : {}),
        commit() {
          place.release();
          announceSoon(held ? input.holdMs : 0);
        },
        rollback: () => void place.release(),
      };
    },
    offer(run) {
      const delayMs = run.notBefore ? Date.parse(run.notBefore) - now().getTime() : 0;
      delays.after(delayMs, () => announce());
    },
    withdraw() {
      // A claim takes queued runs only: an ended one is never claimed.
    },
    ended(runId) {
      void queue.notifyEnded(runId).catch(logFailure('telling the other replicas that a run ended failed'));
    },
    // A free worker takes a new run at once, so it counts as room too.
    room: () => input.queueSize - claims.depth() + Math.max(0, input.concurrency - claims.active()) - places.count(),
    depth: () => claims.depth(),
    active: () => claims.active(),
    pause() {
      claims.pause();
      delays.clear();
    },
    idle: () => claims.idle(),
    close: () => claims.close(),
  };
}
