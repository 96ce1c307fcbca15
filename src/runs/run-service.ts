/**
 * The run lifecycle behind the HTTP API: a run is stored (committed) before anyone is
 * told about it, queued in a bounded queue, started by at most `concurrency` workers,
 * and ended with its outcome stored. Firing alerts are deduplicated on fingerprint and
 * startsAt; a start recovers what the last process left unfinished; `stop` lets running
 * runs finish within a grace period.
 *
 * An alert's run about a workload or a pod waits a moment before it is queued and, once
 * claimed, ends merged into its node's run when its pods are on a node with an open
 * incident (node-incident.ts); a run that diagnosed its culprit answers for it from then on.
 *
 * A run that holds an action for a person's approval parks: its checkpoint is stored, its
 * worker goes on to the next run, and a decision (or the action's expiry) queues it again
 * to resume. A run whose model failed in a way that may pass is queued again to start
 * after a delay.
 *
 * Ingestion is the hot path of an alert storm, so it does the least that is durable:
 * the run's row, group-committed with the other requests of the same moment. The run's
 * `run-created` audit event (stamped with the run's creation time) is appended when the
 * run starts, is cancelled, or is found at a restart: always first in its chain.
 */
import type { Logger } from 'pino';
import type { Trigger } from '../agent/trigger.ts';
import { unsignedAnchors, type AnchorSigner } from '../audit/anchors.ts';
import type { AuditStore } from '../audit/audit-store.ts';
import type { Rung } from '../gate/rung.ts';
import type { Metrics } from '../metrics.ts';
import { newRunId } from '../store/run-ids.ts';
import { isFinished, type AlertKey, type RunRecord, type RunSource, type RunStore } from '../store/run-store.ts';
import type { SharedQueue, TxStores } from '../store/stores.ts';
import type { WriteBatcher } from '../store/write-batch.ts';
import { CANCELLED_REASON, NotificationRefused, refusedResults, takeNotification, type AlertResult, type IncomingAlert, type IntakeReport } from './alert-intake.ts';
import { diagnosedCulpritKeys } from './correlate.ts';
import { executeRun, type AgentDependencies } from './execute-run.ts';
import { findNodeIncident, mayJoinNodeIncident, mergedReason, NODE_INCIDENT_HOLD_MS } from './node-incident.ts';
import { recoverInterrupted, recoverRuns, type RecoveryReport } from './recover-runs.ts';
import { createSharedDispatch } from './shared-dispatch.ts';
import { createRunQueue } from './run-queue.ts';
import { createServiceApprovals, type DecisionResult } from './service-approvals.ts';
import { createRunLifecycle } from './lifecycle.ts';
import { createRunEvents, type RunEvents } from './run-events.ts';

export interface RunSettings {
  concurrency: number;
  queueSize: number;
  dedupWindowMs: number;
  maxAttempts: number;
  shutdownGraceMs: number;
  /** The wait after a run fails before its incident starts another (default 1 min), doubled per failure in a row. */
  failureBackoffMs?: number;
  /** The longest that wait grows to (default 1 h). */
  failureBackoffMaxMs?: number;
  /** How long an alert's run about a workload or a pod waits before it starts, for its node's alert to arrive (node-incident.ts). */
  nodeIncidentHoldMs?: number;
}

const DEFAULT_FAILURE_BACKOFF_MS = 60_000;
const DEFAULT_FAILURE_BACKOFF_MAX_MS = 3_600_000;
/** The longest the read of a claimed run's pods may take before the run runs on its own. */
const JOIN_READ_TIMEOUT_MS = 5_000;

export interface RunService {
  /** Recovers unfinished runs and starts working the queue (with a shared queue: takes over runs whose replica is gone). */
  start(): Promise<RecoveryReport>;
  /** Stores and queues an incident's run; `queue-full` when there is no room (nothing is stored then). */
  submit(input: { trigger: Trigger; rung: Rung; source: RunSource }): Promise<{ ok: true; run: RunRecord } | { ok: false; error: 'queue-full' }>;
  /**
   * One Alertmanager notification, alert by alert, in order, correlated into incidents.
   * Resolves once every change is committed. Taken whole or not at all: when it needs a
   * new run and the queue has no room, nothing of it is kept and every result is `queue-full`.
   */
  ingestAlerts(alerts: readonly IncomingAlert[]): Promise<AlertResult[]>;
  /** Resolves with the run once it has ended, or with its current state after `timeoutMs`. */
  waitForEnd(id: string, timeoutMs: number): Promise<RunRecord | undefined>;
  /** Answers every pending `waitForEnd` now with the run as it is, and every later one at once. */
  releaseWaiters(): void;
  /** Stops starting runs, waits up to the grace period for running ones, then aborts them (they resume at the next start). */
  stop(): Promise<void>;
  /** A person's decision on a held action of a parked run; the run resumes once none awaits a decision. */
  decideAction(input: { runId: string; actionId: string; decision: 'approved' | 'rejected'; by: string; reason?: string }): Promise<DecisionResult>;
  /** Sets the approval expiry timer again after a run was parked outside the queue (a write an MCP client asked for, src/mcp/hold-run.ts). */
  expireDue(): Promise<void>;
  queueDepth(): number;
  inProgress(): number;
  /** Seconds a client should wait before retrying when the queue is full. */
  retryAfterSeconds(): number;
}

export interface RunServiceDependencies {
  store: RunStore;
  audit: AuditStore;
  writes: WriteBatcher;
  metrics: Metrics;
  logger: Logger;
  agent: AgentDependencies;
  settings: RunSettings;
  now?: () => Date;
  /** Signs the audit head each ended run logs (default: logged unsigned). */
  anchors?: AnchorSigner;
  /** Where the service tells that a run ended, parked for approval, or had its alerts all resolve (the notifier listens there); default its own. */
  events?: RunEvents;
  /** The queue across replicas, when several share the database; absent: this process queues in memory. */
  shared?: SharedQueue;
}

export function createRunService(dependencies: RunServiceDependencies): RunService {
  const { store, audit, writes, metrics, logger, settings, shared } = dependencies;
  const now = dependencies.now ?? (() => new Date());
  const anchors = dependencies.anchors ?? unsignedAnchors;
  const shutdown = new AbortController();
  const waiters = new Map<string, Set<(run: RunRecord | undefined) => void>>();
  let closing = false;
  // Places promised to runs stored in a transaction not yet committed, or held before they are queued.
  let reserved = 0;
  const holdMs = settings.nodeIncidentHoldMs ?? NODE_INCIDENT_HOLD_MS;
  const logFailure = (what: string) => (error: unknown) => logger.error({ err: error }, what);
  const events = dependencies.events ?? createRunEvents(logger);
  const lifecycle = createRunLifecycle({ store, audit, metrics, logger, events, anchors });

  const notifyFinished = (run: RunRecord): void => {
    const set = waiters.get(run.id);
    if (!set) return;
    waiters.delete(run.id);
    for (const resolve of set) resolve(run);
  };
  /** A run ended or parked here: callers waiting for it on this replica answer now, those on others when they hear of it. */
  const ended = (run: RunRecord): void => {
    notifyFinished(run);
    if (shared) void shared.notifyEnded(run.id).catch(logFailure('telling the other replicas that a run ended failed'));
  };
  /** Another replica ended or parked a run: callers waiting for it here answer with it as stored. */
  const endedElsewhere = (runId: string): void => {
    if (!waiters.has(runId)) return;
    void store
      .get(runId)
      .then((run) => {
        if (run && (isFinished(run.status) || run.parked)) notifyFinished(run);
      })
      .catch(logFailure('reading a run another replica ended failed'));
  };

  const delayedStarts = new Set<NodeJS.Timeout>();
  /** Queues a stored queued run now, or when its `notBefore` comes. */
  const offerWhenDue = (id: string, notBefore?: string): void => {
    const delay = notBefore ? Date.parse(notBefore) - now().getTime() : 0;
    offerAfter(id, delay);
  };
  /** Runs `work` after `delayMs`, at once when it is not positive; `stop` cancels what is still pending. */
  const later = (delayMs: number, work: () => void): void => {
    if (!(delayMs > 0)) {
      work();
      return;
    }
    const timer = setTimeout(() => {
      delayedStarts.delete(timer);
      work();
    }, Math.min(delayMs, 2 ** 31 - 1));
    // A pending start must not keep a stopping process alive.
    timer.unref();
    delayedStarts.add(timer);
  };
  /** Queues a stored run after `delayMs` (at once when it is not positive); `before` runs just before it is offered. */
  const offerAfter = (id: string, delayMs: number, before?: () => void): void => {
    later(delayMs, () => {
      before?.();
      if (dispatch) dispatch.wake();
      else queue.offer(id, { force: true });
    });
  };
  /** Runs were queued in the shared database: every replica is woken, and this one claims (after `delayMs`, a hold, when given). */
  const announceQueued = (delayMs = 0): void => {
    void shared?.notifyQueued().catch(logFailure('waking the other replicas failed; they find the runs at their next poll'));
    dispatch?.wake();
    if (delayMs > 0) later(delayMs, () => dispatch?.wake());
  };
  /** A run queued (or queued again) is offered: here, or to every replica. */
  const offerQueued = (run: RunRecord): void => {
    if (dispatch) announceQueued();
    else queue.offer(run.id, { force: true });
  };
  /** A run that found its culprit answers for it: the culprit's own alerts, arriving later, join it (correlate.ts). */
  const registerDiagnosedCulprit = async (run: RunRecord): Promise<void> => {
    // A diagnosis without a culprit (nothing found) answers for nothing.
    if (run.trigger.kind !== 'alert' || !run.diagnosis?.culprit || run.diagnosis.category === 'no-issue') return;
    try {
      await store.addCulpritKeys(run.id, diagnosedCulpritKeys(run.diagnosis.culprit, run.trigger.alert.labels));
    } catch (error) {
      logger.warn({ err: error, runId: run.id }, 'the diagnosed culprit could not be registered: its later alerts may start a run of their own');
    }
  };

  /** Late correlation when a run is claimed: a run whose pods are on a node with an open or recent run ends, merged into it. */
  const joinIncident = async (run: RunRecord): Promise<boolean> => {
    // Only a run's first start: a retried or resumed run has done work of its own.
    if (run.attempts !== 1 || !mayJoinNodeIncident(run.trigger)) return false;
    const signal = AbortSignal.any([shutdown.signal, AbortSignal.timeout(JOIN_READ_TIMEOUT_MS)]);
    const incident = await findNodeIncident(run, { store, cluster: dependencies.agent.cluster, now: now(), dedupWindowMs: settings.dedupWindowMs, signal }).catch((error: unknown) => {
      logger.warn({ err: error, runId: run.id }, "the run's node could not be read: it runs on its own");
      return undefined;
    });
    if (!incident) return false;
    const reason = mergedReason(incident);
    const merged = await writes.run(async (tx) => ({ result: await tx.runs.mergeInto({ id: run.id, into: incident.runId, reason, now: now() }) }));
    if (!merged) return false;
    await lifecycle.endRun({ run, cause: 'merged', status: 'completed', reason, steps: 0, mergedInto: { runId: incident.runId, node: incident.node } });
    logger.info({ runId: incident.runId, merged: run.id, node: incident.node }, "a run about the node's pods joined this run's incident");
    return true;
  };

  const approvals = createServiceApprovals({ store, audit, metrics, now, onResumable: offerQueued, onError: logFailure('expiring held actions failed') });

  // Whoever waits for a run hears of its end here, and the other replicas' waiters through the database; a parked run's
  // caller hears of it too (it waits for a person, not for the service). A run that found its culprit answers for it.
  events.on('ended', ({ run, cause }) => {
    if (cause === 'finished') void registerDiagnosedCulprit(run);
    ended(run);
  });
  events.on('parked', ({ run }) => ended(run));

  const execute = async (id: string, claimed?: RunRecord): Promise<void> => {
    const leaseLost = claimed ? dispatch?.leaseSignal(claimed.id) : undefined;
    try {
      const result = await executeRun({
        id,
        ...(claimed ? { claimed } : {}),
        store,
        audit,
        metrics,
        logger,
        agent: dependencies.agent,
        // A run whose lease this replica lost stops as at a shutdown: its new holder goes on with it.
        shutdown: leaseLost ? AbortSignal.any([shutdown.signal, leaseLost]) : shutdown.signal,
        lifecycle,
        joinIncident,
        anchors,
      });
      if (result.kind === 'parked') {
        void approvals.expireDue().catch(logFailure('expiring held actions failed'));
        events.emit('parked', { run: result.run });
      }
      if (result.kind === 'retry') offerWhenDue(result.run.id, result.run.notBefore);
    } catch (error) {
      logger.error({ err: error, runId: id }, 'run could not be executed');
    }
  };

  const queue = createRunQueue({ concurrency: settings.concurrency, queueSize: settings.queueSize, start: (id) => execute(id) });
  queue.pause();
  const dispatch = shared
    ? createSharedDispatch({
        queue: shared,
        concurrency: settings.concurrency,
        ...(dependencies.agent.clusterIdentity ? { cluster: dependencies.agent.clusterIdentity } : {}),
        logger,
        run: (run) => execute(run.id, run),
        recover: async (run) => {
          const outcome = await recoverInterrupted(run, { store, audit, maxAttempts: settings.maxAttempts, cause: 'lease', lifecycle });
          if (outcome.failed || outcome.requeued || outcome.ended) metrics.runsTakenOver.inc({ outcome: outcome.requeued ? 'requeued' : outcome.ended ? 'ended' : 'failed' });
          if (outcome.requeued) offerQueued(run);
        },
        ended: endedElsewhere,
        now,
      })
    : undefined;
  // A free worker takes a new run at once, so it counts as room too.
  const room = (): number =>
    dispatch
      ? settings.queueSize - dispatch.depth() + Math.max(0, settings.concurrency - dispatch.active()) - reserved
      : queue.room() + Math.max(0, settings.concurrency - queue.active()) - reserved;

  /** Inside a batch: stores a run and reserves its place in the queue. */
  const createRun = async (
    runs: TxStores['runs'],
    input: { trigger: Trigger; rung: Rung; source: RunSource; alert?: AlertKey; culpritKeys?: readonly string[]; earlierFailures?: number },
  ): Promise<RunRecord> => {
    const createdAt = now();
    // With a shared queue the hold is in the database: no replica claims the run before its node's alert may arrive.
    const held = shared !== undefined && isHeld(input);
    reserved++;
    try {
      return await runs.create({
        id: newRunId(createdAt),
        trigger: input.trigger,
        source: input.source,
        rung: input.rung,
        ...(input.alert ? { alert: input.alert } : {}),
        ...(input.culpritKeys ? { culpritKeys: input.culpritKeys } : {}),
        earlierFailures: input.earlierFailures ?? 0,
        ...(held ? { notBefore: new Date(createdAt.getTime() + holdMs) } : {}),
        now: createdAt,
      });
    } catch (error) {
      reserved--;
      throw error;
    }
  };

  /** After the batch commits: queue the runs it stored; an alert's run about a workload or a pod after the hold (it keeps its place in `reserved` meanwhile). */
  const enqueue = (runs: readonly RunRecord[]): void => {
    if (dispatch) {
      reserved -= runs.length;
      // Held runs are due after the hold: the poll finds them, this replica a little sooner.
      if (runs.length > 0) announceQueued(runs.some(isHeld) ? holdMs : 0);
      return;
    }
    for (const run of runs) offerAfter(run.id, isHeld(run) ? holdMs : 0, () => void reserved--);
  };

  /** A run the intake cancelled (its alert resolved before it started): ended in the store by the intake's batch, its chain and count here. */
  const finishCancelled = async (id: string): Promise<void> => {
    queue.remove(id);
    const run = await store.get(id);
    if (run) await lifecycle.endRun({ run, cause: 'cancelled', status: 'failed', reason: CANCELLED_REASON, steps: 0 });
  };

  return {
    async start() {
      if (dispatch) {
        // The other replicas' runs are theirs while their leases last: only expired ones are recovered (by the dispatch).
        await dispatch.start();
        await approvals.expireDue();
        return { queue: [], resumed: [], failed: [], ended: [] };
      }
      const report = await recoverRuns({ store, audit, maxAttempts: settings.maxAttempts, lifecycle });
      // Recovered runs were accepted before: they are queued even beyond the queue's size.
      for (const id of report.queue) offerWhenDue(id, (await store.get(id))?.notBefore);
      queue.resume();
      // Parked runs stay parked; actions that expired while the service was down expire now.
      await approvals.expireDue();
      if (report.queue.length + report.failed.length + report.ended.length > 0) {
        logger.info({ queued: report.queue.length - report.resumed.length, resumed: report.resumed.length, failed: report.failed.length, ended: report.ended.length }, 'recovered unfinished runs');
      }
      return report;
    },
    submit({ trigger, rung, source }) {
      type Submitted = Awaited<ReturnType<RunService['submit']>>;
      return writes.run<Submitted>(async (tx) => {
        if (room() <= 0) return { result: { ok: false, error: 'queue-full' } };
        const run = await createRun(tx.runs, { trigger, rung, source });
        return { result: { ok: true, run }, afterCommit: () => enqueue([run]), afterRollback: () => void (reserved -= 1) };
      });
    },
    ingestAlerts(alerts) {
      const intakeSettings = {
        dedupWindowMs: settings.dedupWindowMs,
        failureBackoffMs: settings.failureBackoffMs ?? DEFAULT_FAILURE_BACKOFF_MS,
        failureBackoffMaxMs: settings.failureBackoffMaxMs ?? DEFAULT_FAILURE_BACKOFF_MAX_MS,
      };
      return writes
        .run(async (tx) => {
          let reservedHere = 0;
          let report: IntakeReport;
          try {
            report = await takeNotification(alerts, {
              store: tx.runs,
              now: now(),
              settings: intakeSettings,
              // Taken whole: with any room at all, every run the notification needs is taken, even past the queue's size.
              hasRoom: room() > 0,
              createRun: async (input) => {
                const run = await createRun(tx.runs, { ...input, rung: 'OBSERVE', source: 'alertmanager' });
                reservedHere++;
                return run;
              },
            });
          } catch (error) {
            reserved -= reservedHere;
            throw error;
          }
          return {
            result: report.results,
            afterCommit() {
              for (const alert of alerts) metrics.alertsReceived.inc({ status: alert.status });
              for (const decision of report.decisions) metrics.alertOutcomes.inc({ outcome: decision });
              const deduplicated = report.decisions.filter((decision) => decision === 'duplicate' || decision === 'backoff').length;
              if (deduplicated > 0) metrics.alertsDeduplicated.inc(deduplicated);
              enqueue(report.created);
              for (const id of report.cancelled) void finishCancelled(id).catch(logFailure('ending a cancelled run failed'));
              for (const id of report.resolved) {
                void store
                  .get(id)
                  .then((run) => run && events.emit('resolved', { run }))
                  .catch(logFailure('reading a resolved run failed'));
              }
            },
            afterRollback: () => void (reserved -= report.created.length),
          };
        })
        .catch((error: unknown): AlertResult[] => {
          if (!(error instanceof NotificationRefused)) throw error;
          metrics.alertOutcomes.inc({ outcome: 'refused' }, alerts.length);
          return refusedResults(alerts);
        });
    },
    async waitForEnd(id, timeoutMs) {
      const current = await store.get(id);
      if (!current || isFinished(current.status) || timeoutMs <= 0 || closing) return current;
      return new Promise((resolve) => {
        const set = waiters.get(id) ?? new Set();
        waiters.set(id, set);
        const timer = setTimeout(() => {
          set.delete(settle);
          if (set.size === 0) waiters.delete(id);
          void store.get(id).then(resolve, () => resolve(undefined));
        }, timeoutMs);
        const settle = (run: RunRecord | undefined): void => {
          clearTimeout(timer);
          if (run) resolve(run);
          else void store.get(id).then(resolve, () => resolve(undefined));
        };
        set.add(settle);
      });
    },
    releaseWaiters() {
      closing = true;
      for (const [id, set] of [...waiters]) {
        waiters.delete(id);
        void store.get(id).then(
          (run) => {
            for (const resolve of set) resolve(run);
          },
          () => {
            for (const resolve of set) resolve(undefined);
          },
        );
      }
    },
    decideAction(input) {
      return approvals.decide(input);
    },
    expireDue: () => approvals.expireDue(),
    async stop() {
      queue.pause();
      dispatch?.pause();
      approvals.close();
      for (const timer of delayedStarts) clearTimeout(timer);
      const idle = dispatch ? dispatch.idle() : queue.idle();
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), settings.shutdownGraceMs);
      });
      const result = await Promise.race([idle.then(() => 'idle' as const), graceOver]);
      clearTimeout(timer);
      if (result === 'timeout') {
        logger.warn({ running: dispatch ? dispatch.active() : queue.active() }, 'shutdown grace period over: stopping running runs; they resume at the next start');
        shutdown.abort();
        await idle;
      }
      await dispatch?.close();
    },
    queueDepth: () => (dispatch ? dispatch.depth() : queue.depth()),
    inProgress: () => (dispatch ? dispatch.active() : queue.active()),
    retryAfterSeconds() {
      // Roughly the time for the workers to take one queue's worth of room, bounded for Alertmanager's backoff.
      const depth = dispatch ? dispatch.depth() : queue.depth();
      return Math.min(300, Math.max(5, Math.ceil((depth / Math.max(1, settings.concurrency)) * 2)));
    },
  };
}

/** An alert's run about a workload or a pod waits a moment before it starts, for its node's alert to arrive (node-incident.ts). */
function isHeld(run: { source: RunSource; trigger: Trigger }): boolean {
  return run.source === 'alertmanager' && mayJoinNodeIncident(run.trigger);
}
