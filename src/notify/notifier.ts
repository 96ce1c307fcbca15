/**
 * Notifications of runs: when a run ends, when an action of it waits for a person, and
 * when its alerts all resolve. A notice is routed, rendered for each destination and
 * stored in the outbox in one transaction, then delivered by a loop that wakes when a
 * notice is queued or a retry comes due. Delivery is at least once: a row is sent until a
 * receiver takes it, refuses it for good, or it passes the delivery's maximum age.
 *
 * A start reconciles what a crash may have skipped: the notices of runs that ended,
 * parked or resolved from ten minutes before the last notice this database recorded,
 * and were not noted. Runs that ended before the first notice ever recorded are left
 * alone, so turning notifications on does not announce yesterday's runs.
 */
import type { Logger } from 'pino';
import type { Metrics } from '../metrics.ts';
import { redactText } from '../redact/redactor.ts';
import { toRunView } from '../runs/run-view.ts';
import { isCancelled } from '../store/run-store.ts';
import { retryDelayMs } from './backoff.ts';
import type { Notice, NoticeEvent, SendOutcome } from './notice.ts';
import type { NotificationSettings } from './notify-config.ts';
import type { Outbox, OutboxRow, RunRecord, RunStore } from '../store/ports.ts';
import { routeNotice, subjectOf } from './routing.ts';

/** What the run service tells the notifier. */
export interface RunNotices {
  runFinished(run: RunRecord): void;
  runParked(run: RunRecord): void;
  alertsResolved(run: RunRecord): void;
}

export interface Notifier extends RunNotices {
  /** Reconciles notices a crash skipped, then delivers what is due. */
  start(): Promise<void>;
  /** Stops delivering; waits for the attempts in flight (each bounded by its channel's timeout). */
  stop(): Promise<void>;
  /** Sends what is due now (tests, and after a notice is queued). */
  deliverDue(): Promise<void>;
}

/** How long a claimed row is leased to the attempt: past any channel's timeout. */
const LEASE_MS = 150_000;
const BATCH = 16;
/** How far before the last recorded notice a start looks for notices a crash skipped. */
const RECONCILE_MARGIN_MS = 10 * 60_000;
const RECONCILE_SCAN = 1000;

export function createNotifier(input: {
  outbox: Outbox;
  store: RunStore;
  settings: NotificationSettings;
  metrics: Metrics;
  logger: Logger;
  now?: () => Date;
}): Notifier {
  const { outbox, store, settings, metrics } = input;
  const logger = input.logger.child({ component: 'notifications' });
  const now = input.now ?? (() => new Date());
  const channels = new Map(settings.channels.map((channel) => [channel.name, channel]));
  const threaded = new Set(settings.channels.filter((channel) => channel.threads).map((channel) => channel.name));
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let pumping: Promise<void> | undefined;
  let again = false;
  let started = false;

  const notice = async (event: NoticeEvent, key: string, run: RunRecord): Promise<void> => {
    try {
      const view = toRunView(run);
      const at = now();
      const message: Notice = {
        event,
        run: view,
        at: at.toISOString(),
        ...(settings.consoleUrl ? { runUrl: `${settings.consoleUrl}/runs/${encodeURIComponent(run.id)}` } : {}),
      };
      const deliveries = routeNotice(settings.routes, subjectOf(event, view)).map((name) => ({
        destination: name,
        body: channels.get(name)!.render(message),
      }));
      const queued = await outbox.enqueue({ runId: run.id, key, event, deliveries, now: at.getTime() });
      if (queued && deliveries.length > 0) {
        logger.debug(
          { runId: run.id, event, destinations: deliveries.map((delivery) => delivery.destination) },
          'notification queued',
        );
        wake();
      }
    } catch (error) {
      // A notice that cannot be queued must not fail the run; the next start reconciles it.
      logger.error({ err: error, runId: run.id, event }, 'a notification could not be queued');
    }
  };

  const deliver = async (row: OutboxRow): Promise<void> => {
    const channel = channels.get(row.destination);
    const labels = { destination: row.destination, channel: channel?.kind ?? 'unknown' };
    const giveUp = async (error: string): Promise<void> => {
      await outbox.markFailed(row.id, { error, now: now().getTime() });
      metrics.notificationsFailed.inc({ ...labels, outcome: 'gave-up' });
      logger.warn(
        { runId: row.runId, destination: row.destination, event: row.event, attempts: row.attempts, error },
        'notification given up',
      );
    };
    if (!channel) return giveUp(`destination "${row.destination}" is no longer configured`);
    const thread = channel.threads ? await outbox.threadOf(row.runId, row.destination) : undefined;
    const outcome = await channel
      .send({ body: row.body, deliveryId: row.deliveryId, signal: stopping.signal, ...(thread ? { thread } : {}) })
      .catch((error: unknown): SendOutcome => ({
        ok: false,
        retryable: true,
        error: error instanceof Error ? error.message : String(error),
      }));
    if (outcome.ok) {
      await outbox.markSent(row.id, {
        now: now().getTime(),
        ...(outcome.thread && channel.threads ? { thread: outcome.thread } : {}),
      });
      metrics.notificationsSent.inc({ ...labels, event: row.event });
      logger.info(
        { runId: row.runId, destination: row.destination, event: row.event, attempts: row.attempts },
        'notification sent',
      );
      return;
    }
    const error = redactText(outcome.error);
    // The channel's error names the status and the receiver's code.
    if (!outcome.retryable) return giveUp(error);
    const delay = retryDelayMs({
      attempts: row.attempts,
      ...(outcome.retryAfterMs !== undefined ? { retryAfterMs: outcome.retryAfterMs } : {}),
      settings: settings.delivery,
    });
    const nextAttemptAt = now().getTime() + delay;
    if (nextAttemptAt - row.createdAt > settings.delivery.maxAgeMs)
      return giveUp(`still failing after ${row.attempts} attempts: ${error}`);
    await outbox.markRetry(row.id, { nextAttemptAt, error });
    metrics.notificationsFailed.inc({ ...labels, outcome: 'retrying' });
    logger.warn(
      {
        runId: row.runId,
        destination: row.destination,
        event: row.event,
        attempts: row.attempts,
        retryInMs: delay,
        error,
      },
      'notification not delivered; it is tried again',
    );
  };

  const pump = async (): Promise<void> => {
    do {
      again = false;
      if (stopping.signal.aborted) return;
      const at = now().getTime();
      const rows = await outbox.claimDue({ now: at, leaseUntil: at + LEASE_MS, limit: BATCH, threaded });
      await Promise.all(
        rows.map((row) =>
          deliver(row).catch((error: unknown) =>
            logger.error({ err: error, runId: row.runId }, 'a notification attempt failed unexpectedly'),
          ),
        ),
      );
      if (rows.length === BATCH) again = true;
    } while (again);
  };

  const deliverDue = (): Promise<void> => {
    if (pumping) {
      again = true;
      return pumping;
    }
    pumping = pump()
      .catch((error: unknown) =>
        logger.error({ err: error }, 'sending notifications failed; the next attempt tries again'),
      )
      .finally(() => {
        pumping = undefined;
        void schedule().catch((error: unknown) =>
          logger.error({ err: error }, 'the next notification attempt could not be scheduled'),
        );
      });
    return pumping;
  };

  const schedule = async (): Promise<void> => {
    clearTimeout(timer);
    timer = undefined;
    if (!started || stopping.signal.aborted) return;
    const next = await outbox.nextDueAt();
    if (next === undefined || !started || stopping.signal.aborted) return;
    clearTimeout(timer);
    timer = setTimeout(() => void deliverDue(), Math.min(2 ** 31 - 1, Math.max(0, next - now().getTime())));
    timer.unref();
  };

  const wake = (): void => {
    if (started && !stopping.signal.aborted) void deliverDue();
  };

  const reconcile = async (): Promise<void> => {
    const noted = await outbox.notedSpan();
    if (noted === undefined) return;
    // Runs that ended before the first notice ever recorded ended before notifications were on.
    const horizon = Math.max(
      noted.last - RECONCILE_MARGIN_MS,
      noted.first,
      now().getTime() - settings.delivery.maxAgeMs,
    );
    let before: number | undefined;
    let scanned = 0;
    while (scanned < RECONCILE_SCAN) {
      const page = await store.list({ limit: 200, ...(before !== undefined ? { before } : {}) });
      for (const run of page.runs) {
        for (const { event, key } of missedNotices(run, horizon))
          if (!(await outbox.hasNotice(run.id, key))) await notice(event, key, run);
      }
      scanned += page.runs.length;
      if (
        page.nextCursor === undefined ||
        page.runs.every((run) => Date.parse(run.createdAt) < horizon - settings.delivery.maxAgeMs)
      )
        break;
      before = page.nextCursor;
    }
  };

  return {
    runFinished(run) {
      if (isNotable(run)) void notice('finished', 'finished', run);
    },
    runParked(run) {
      const key = approvalKey(run);
      if (key) void notice('approval', key, run);
    },
    alertsResolved(run) {
      void notice('resolved', 'resolved', run);
    },
    async start() {
      started = true;
      try {
        const released = await outbox.releaseLeases(now().getTime());
        if (released > 0) logger.info({ released }, 'notifications a stopped process was sending are due again');
        await reconcile();
      } catch (error) {
        logger.error({ err: error }, 'notifications a stopped process left could not be looked for; new ones are sent');
      }
      void deliverDue();
    },
    async stop() {
      started = false;
      clearTimeout(timer);
      stopping.abort();
      await pumping;
    },
    deliverDue,
  };
}

/** A run merged into its node's incident or cancelled before it started has nothing to say of its own. */
function isNotable(run: RunRecord): boolean {
  return run.status === 'failed' ? !isCancelled(run) : run.diagnosis !== undefined;
}

/** One approval notice per set of held actions: a run that resumes and holds another action says so again. */
function approvalKey(run: RunRecord): string | undefined {
  const held = run.actions.filter((action) => action.status === 'awaiting_approval').map((action) => action.id);
  return held.length > 0 ? `approval:${held.join(',')}` : undefined;
}

function missedNotices(run: RunRecord, horizon: number): { event: NoticeEvent; key: string }[] {
  const missed: { event: NoticeEvent; key: string }[] = [];
  if (
    (run.status === 'completed' || run.status === 'failed') &&
    run.finishedAt &&
    Date.parse(run.finishedAt) >= horizon &&
    isNotable(run)
  )
    missed.push({ event: 'finished', key: 'finished' });
  const approval = run.status === 'awaiting_approval' ? approvalKey(run) : undefined;
  if (approval) missed.push({ event: 'approval', key: approval });
  if (run.alert?.resolvedAt && Date.parse(run.alert.resolvedAt) >= horizon && !isCancelled(run))
    missed.push({ event: 'resolved', key: 'resolved' });
  return missed;
}
