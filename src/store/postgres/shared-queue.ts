/**
 * The queue that replicas sharing one PostgreSQL database take runs from (stores.ts
 * `SharedQueue`). A claim is one statement that picks the oldest due queued run with
 * FOR UPDATE SKIP LOCKED, so two replicas never take the same run and neither waits for
 * the other. A claimed run is leased to its replica until `lease_until` (ISO time, as
 * every time in the schema); heartbeats extend it, and a run whose lease ran out is taken
 * over, once, by whichever replica sweeps first.
 *
 * A run held in memory is one running, or one awaiting approval without a checkpoint
 * (held by its worker, not parked): both keep their lease, and both are taken over when
 * it runs out, as recover-runs.ts recovers both after a restart.
 *
 * Notifications go through pg_notify; `listen` holds a connection of its own, outside
 * the pool, and reconnects after an error.
 */
import pg from 'pg';
import type { SharedQueue } from '../ports.ts';
import type { Queryable } from './queryable.ts';
import { ALERTS_SHOWN_BY_GET, RUN_COLUMNS, toRecord, withAlerts, type RunRow } from './run-store.ts';

export interface SharedQueueOptions {
  owner: string;
  leaseMs: number;
  /** Prefix of the two channels (`<prefix>queued`, `<prefix>ended`); default `kubewhy_`. */
  channelPrefix?: string;
  /** Where the listener connects; default the pool's own settings. */
  listenerConfig?: pg.ClientConfig;
  /** Hears of a listener connection lost (it reconnects) or a handler that threw. */
  onError?(error: unknown): void;
}

/** Runs taken over per call: a sweep runs again soon for the rest. */
const TAKE_EXPIRED_LIMIT = 100;
const RECONNECT_FIRST_MS = 100;
const RECONNECT_MAX_MS = 5000;

/** Held by a replica: running, or awaiting approval in a worker (not parked). */
const HELD = "(status = 'running' OR (status = 'awaiting_approval' AND checkpoint IS NULL))";

export function createPgSharedQueue(pool: pg.Pool, options: SharedQueueOptions): SharedQueue {
  const { owner, leaseMs } = options;
  const prefix = options.channelPrefix ?? 'kubewhy_';
  if (!/^[a-z_][a-z0-9_]{0,40}$/.test(prefix))
    throw new TypeError(`channel prefix must be lower-case letters, digits and underscores: ${prefix}`);
  const channels = { queued: `${prefix}queued`, ended: `${prefix}ended` };
  const db: Queryable = pool;
  const leaseUntil = (now: Date): string => new Date(now.getTime() + leaseMs).toISOString();

  return {
    owner,
    leaseMs,
    async claimNext({ now, cluster }) {
      const { rows } = await db.query<RunRow>(
        `UPDATE runs SET status = 'running', started_at = $1, cluster = COALESCE($2, cluster), attempts = attempts + 1, not_before = NULL, lease_owner = $3, lease_until = $4
         WHERE seq = (
           SELECT seq FROM runs WHERE status = 'queued' AND (not_before IS NULL OR not_before <= $1) ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED
         ) AND status = 'queued'
         RETURNING ${RUN_COLUMNS}`,
        [now.toISOString(), cluster ? JSON.stringify(cluster) : null, owner, leaseUntil(now)],
      );
      return (await withAlerts(db, rows.map(toRecord), ALERTS_SHOWN_BY_GET))[0];
    },
    async heartbeat(ids, now) {
      if (ids.length === 0) return [];
      const { rows } = await db.query<{ id: string }>(
        `UPDATE runs SET lease_until = $1 WHERE id = ANY($2::text[]) AND lease_owner = $3 AND ${HELD} RETURNING id`,
        [leaseUntil(now), [...ids], owner],
      );
      return rows.map((row) => row.id);
    },
    async takeExpired(now) {
      // A held run without a lease was claimed before leases (or by `claim`): nobody renews it.
      const { rows } = await db.query<RunRow>(
        `UPDATE runs SET lease_owner = $1, lease_until = $2
         WHERE seq IN (
           SELECT seq FROM runs WHERE ${HELD} AND (lease_until IS NULL OR lease_until < $3) ORDER BY seq LIMIT ${TAKE_EXPIRED_LIMIT} FOR UPDATE SKIP LOCKED
         )
         RETURNING ${RUN_COLUMNS}`,
        [owner, leaseUntil(now), now.toISOString()],
      );
      const runs = rows.map(toRecord).sort((left, right) => left.sequence - right.sequence);
      return withAlerts(db, runs, ALERTS_SHOWN_BY_GET);
    },
    async depth() {
      const { rows } = await db.query<{ depth: number }>(
        "SELECT count(*)::int AS depth FROM runs WHERE status = 'queued'",
      );
      return rows[0]?.depth ?? 0;
    },
    async notifyQueued() {
      await db.query('SELECT pg_notify($1, $2)', [channels.queued, '']);
    },
    async notifyEnded(runId) {
      await db.query('SELECT pg_notify($1, $2)', [channels.ended, runId]);
    },
    listen(handlers) {
      return listen({
        config: options.listenerConfig ?? pool.options,
        channels,
        handlers,
        ...(options.onError ? { onError: options.onError } : {}),
      });
    },
  };
}

/**
 * A dedicated connection that LISTENs on both channels. After a lost connection it
 * reconnects with a growing pause, then wakes `queued` once: a notification may have been
 * sent while nobody listened.
 */
async function listen(input: {
  config: pg.ClientConfig;
  channels: { queued: string; ended: string };
  handlers: { queued(): void; ended(runId: string): void };
  onError?(error: unknown): void;
}): Promise<{ stop(): Promise<void> }> {
  const { channels, handlers } = input;
  let client: pg.Client | undefined;
  let stopped = false;
  let retryTimer: NodeJS.Timeout | undefined;
  let pauseMs = RECONNECT_FIRST_MS;

  const dispatch = (message: pg.Notification): void => {
    try {
      if (message.channel === channels.queued) handlers.queued();
      else if (message.channel === channels.ended && message.payload) handlers.ended(message.payload);
    } catch (error) {
      input.onError?.(error);
    }
  };

  const connect = async (): Promise<void> => {
    const next = new pg.Client(input.config);
    // Errors before it listens are the caller's (the rejection below); an 'error' without a listener would crash the process.
    let listening = false;
    next.on('notification', dispatch);
    next.on('error', (error) => {
      if (listening) lost(next, error);
    });
    next.on('end', () => {
      if (listening) lost(next, new Error('the listener connection ended'));
    });
    try {
      await next.connect();
      // Channel names are checked identifiers (createPgSharedQueue): quoted, never user input.
      await next.query(`LISTEN "${channels.queued}"; LISTEN "${channels.ended}"`);
    } catch (error) {
      await next.end().catch(() => undefined);
      throw error;
    }
    if (stopped) {
      await next.end().catch(() => undefined);
      return;
    }
    listening = true;
    client = next;
  };

  const lost = (which: pg.Client, error: unknown): void => {
    if (stopped || which !== client) return;
    client = undefined;
    input.onError?.(error);
    void which.end().catch(() => undefined);
    scheduleReconnect();
  };

  const scheduleReconnect = (): void => {
    if (stopped || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      connect().then(
        () => {
          pauseMs = RECONNECT_FIRST_MS;
          handlers.queued();
        },
        (error: unknown) => {
          input.onError?.(error);
          pauseMs = Math.min(pauseMs * 2, RECONNECT_MAX_MS);
          scheduleReconnect();
        },
      );
    }, pauseMs);
  };

  await connect();
  return {
    async stop() {
      stopped = true;
      clearTimeout(retryTimer);
      const current = client;
      client = undefined;
      await current?.end().catch(() => undefined);
    },
  };
}
