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
import type { AlertKey, RunRecord, RunSource, RunStore, SharedQueue, TxStores } from '../store/ports.ts';
import type { WriteBatcher } from '../store/write-batch.ts';
import {
  CANCELLED_REASON,
  NotificationRefused,
  refusedResults,
  takeNotification,
  type AlertResult,
  type IncomingAlert,
  type IntakeReport,
} from './alert-intake.ts';
import { diagnosedCulpritKeys } from './correlate.ts';
import { executeRun, type AgentDependencies } from './execute-run.ts';
import { findNodeIncident, mayJoinNodeIncident, mergedReason, NODE_INCIDENT_HOLD_MS } from './node-incident.ts';
import type { RecoveryReport } from './recover-runs.ts';
import type { Claim, Dispatcher, Place } from './dispatch/dispatcher.ts';
import { createLocalDispatcher } from './dispatch/local.ts';
import { createSharedDispatcher } from './dispatch/shared.ts';
import { createServiceApprovals, type DecisionResult } from './service-approvals.ts';
import { createRunLifecycle } from './lifecycle.ts';
import { createRunEvents, type RunEvents } from './run-events.ts';
import { createRunWaiters } from './run-waiters.ts';

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
  submit(input: {
    trigger: Trigger;
    rung: Rung;
    source: RunSource;
  }): Promise<{ ok: true; run: RunRecord } | { ok: false; error: 'queue-full' }>;
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
  decideAction(input: {
    runId: string;
    actionId: string;
    decision: 'approved' | 'rejected';
    by: string;
    reason?: string;
  }): Promise<DecisionResult>;
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
  const logFailure = (what: string) => (error: unknown) => logger.error({ err: error }, what);
  const events = dependencies.events ?? createRunEvents(logger);
  const lifecycle = createRunLifecycle({ store, audit, metrics, logger, events, anchors });

  const waiters = createRunWaiters(store, logger);

  /** A run that found its culprit answers for it: the culprit's own alerts, arriving later, join it (correlate.ts). */
  const registerDiagnosedCulprit = async (run: RunRecord): Promise<void> => {
    // A diagnosis without a culprit (nothing found) answers for nothing.
    if (run.trigger.kind !== 'alert' || !run.diagnosis?.culprit || run.diagnosis.category === 'no-issue') return;
    try {
      await store.addCulpritKeys(run.id, diagnosedCulpritKeys(run.diagnosis.culprit, run.trigger.alert.labels));
    } catch (error) {
      logger.warn(
        { err: error, runId: run.id },
        'the diagnosed culprit could not be registered: its later alerts may start a run of their own',
      );
    }
  };

  /** Late correlation when a run is claimed: a run whose pods are on a node with an open or recent run ends, merged into it. */
  const joinIncident = async (run: RunRecord): Promise<boolean> => {
    // Only a run's first start: a retried or resumed run has done work of its own.
    if (run.attempts !== 1 || !mayJoinNodeIncident(run.trigger)) return false;
    const signal = AbortSignal.any([shutdown.signal, AbortSignal.timeout(JOIN_READ_TIMEOUT_MS)]);
    const incident = await findNodeIncident(run, {
      store,
      cluster: dependencies.agent.cluster,
      now: now(),
      dedupWindowMs: settings.dedupWindowMs,
      signal,
    }).catch((error: unknown) => {
      logger.warn({ err: error, runId: run.id }, "the run's node could not be read: it runs on its own");
      return undefined;
    });
    if (!incident) return false;
    const reason = mergedReason(incident);
    const merged = await writes.run(async (tx) => ({
      result: await tx.runs.mergeInto({ id: run.id, into: incident.runId, reason, now: now() }),
    }));
    if (!merged) return false;
    await lifecycle.endRun({
      run,
      cause: 'merged',
      status: 'completed',
      reason,
      steps: 0,
      mergedInto: { runId: incident.runId, node: incident.node },
    });
    logger.info(
      { runId: incident.runId, merged: run.id, node: incident.node },
      "a run about the node's pods joined this run's incident",
    );
    return true;
  };

  const execute = async (id: string, claim?: Claim): Promise<void> => {
    try {
      const result = await executeRun({
        id,
        ...(claim ? { claimed: claim.run } : {}),
        store,
        audit,
        metrics,
        logger,
        agent: dependencies.agent,
        // A run whose lease this replica lost stops as at a shutdown: its new holder goes on with it.
        shutdown: claim ? AbortSignal.any([shutdown.signal, claim.leaseLost]) : shutdown.signal,
        lifecycle,
        joinIncident,
        anchors,
      });
      if (result.kind === 'parked') {
        void approvals.expireDue().catch(logFailure('expiring held actions failed'));
        events.emit('parked', { run: result.run });
      }
      if (result.kind === 'retry') dispatcher.offer(result.run);
    } catch (error) {
      logger.error({ err: error, runId: id }, 'run could not be executed');
    }
  };

  const dispatcherInput = {
    concurrency: settings.concurrency,
    queueSize: settings.queueSize,
    holdMs: settings.nodeIncidentHoldMs ?? NODE_INCIDENT_HOLD_MS,
    recovery: { store, audit, maxAttempts: settings.maxAttempts, lifecycle },
    metrics,
    logger,
    now,
    run: execute,
    endedElsewhere: waiters.endedElsewhere,
  };
  const dispatcher: Dispatcher = shared
    ? createSharedDispatcher({
        ...dispatcherInput,
        queue: shared,
        ...(dependencies.agent.clusterIdentity ? { cluster: dependencies.agent.clusterIdentity } : {}),
      })
    : createLocalDispatcher(dispatcherInput);
  const approvals = createServiceApprovals({
    store,
    audit,
    metrics,
    now,
    onResumable: (run) => dispatcher.offer(run),
    onError: logFailure('expiring held actions failed'),
  });

  // Whoever waits for a run hears of its end here, and the other replicas' waiters through the dispatcher; a parked run's
  // caller hears of it too (it waits for a person, not for the service). A run that found its culprit answers for it.
  const ended = (run: RunRecord): void => {
    waiters.ended(run);
    dispatcher.ended(run.id);
  };
  events.on('ended', ({ run, cause }) => {
    if (cause === 'finished') void registerDiagnosedCulprit(run);
    ended(run);
  });
  events.on('parked', ({ run }) => ended(run));

  /** Inside a batch: stores a run in the place the dispatcher promised it; the place is given back if storing fails. */
  const createRun = async (
    runs: TxStores['runs'],
    input: {
      trigger: Trigger;
      rung: Rung;
      source: RunSource;
      alert?: AlertKey;
      culpritKeys?: readonly string[];
      earlierFailures?: number;
    },
  ): Promise<{ run: RunRecord; place: Place }> => {
    const createdAt = now();
    const place = dispatcher.reserve({ held: isHeld(input), at: createdAt });
    try {
      const run = await runs.create({
        id: newRunId(createdAt),
        trigger: input.trigger,
        source: input.source,
        rung: input.rung,
        ...(input.alert ? { alert: input.alert } : {}),
        ...(input.culpritKeys ? { culpritKeys: input.culpritKeys } : {}),
        earlierFailures: input.earlierFailures ?? 0,
        ...(place.notBefore ? { notBefore: place.notBefore } : {}),
        now: createdAt,
      });
      return { run, place };
    } catch (error) {
      place.rollback();
      throw error;
    }
  };

  /** A run the intake cancelled (its alert resolved before it started): ended in the store by the intake's batch, its chain and count here. */
  const finishCancelled = async (id: string): Promise<void> => {
    dispatcher.withdraw(id);
    const run = await store.get(id);
    if (run) await lifecycle.endRun({ run, cause: 'cancelled', status: 'failed', reason: CANCELLED_REASON, steps: 0 });
  };

  return {
    async start() {
      const report = await dispatcher.start();
      // Parked runs stay parked; actions that expired while the service was down expire now.
      await approvals.expireDue();
      return report;
    },
    submit({ trigger, rung, source }) {
      type Submitted = Awaited<ReturnType<RunService['submit']>>;
      return writes.run<Submitted>(async (tx) => {
        if (dispatcher.room() <= 0) return { result: { ok: false, error: 'queue-full' } };
        const { run, place } = await createRun(tx.runs, { trigger, rung, source });
        return {
          result: { ok: true, run },
          afterCommit: () => place.commit(run),
          afterRollback: () => place.rollback(),
        };
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
          const placed: { run: RunRecord; place: Place }[] = [];
          const rollback = (): void => {
            for (const { place } of placed) place.rollback();
          };
          let report: IntakeReport;
          try {
            report = await takeNotification(alerts, {
              store: tx.runs,
              now: now(),
              settings: intakeSettings,
              // Taken whole: with any room at all, every run the notification needs is taken, even past the queue's size.
              hasRoom: dispatcher.room() > 0,
              createRun: async (input) => {
                const created = await createRun(tx.runs, { ...input, rung: 'OBSERVE', source: 'alertmanager' });
                placed.push(created);
                return created.run;
              },
            });
          } catch (error) {
            rollback();
            throw error;
          }
          return {
            result: report.results,
            afterCommit() {
              for (const alert of alerts) metrics.alertsReceived.inc({ status: alert.status });
              for (const decision of report.decisions) metrics.alertOutcomes.inc({ outcome: decision });
              const deduplicated = report.decisions.filter(
                (decision) => decision === 'duplicate' || decision === 'backoff',
              ).length;
              if (deduplicated > 0) metrics.alertsDeduplicated.inc(deduplicated);
              for (const { run, place } of placed) place.commit(run);
              for (const id of report.cancelled)
                void finishCancelled(id).catch(logFailure('ending a cancelled run failed'));
              for (const id of report.resolved) {
                void store
                  .get(id)
                  .then((run) => run && events.emit('resolved', { run }))
                  .catch(logFailure('reading a resolved run failed'));
              }
            },
            afterRollback: rollback,
          };
        })
        .catch((error: unknown): AlertResult[] => {
          if (!(error instanceof NotificationRefused)) throw error;
          metrics.alertOutcomes.inc({ outcome: 'refused' }, alerts.length);
          return refusedResults(alerts);
        });
    },
    waitForEnd: (id, timeoutMs) => waiters.waitForEnd(id, timeoutMs),
    releaseWaiters: () => waiters.release(),
    decideAction(input) {
      return approvals.decide(input);
    },
    expireDue: () => approvals.expireDue(),
    async stop() {
      dispatcher.pause();
      approvals.close();
      const idle = dispatcher.idle();
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), settings.shutdownGraceMs);
      });
      const result = await Promise.race([idle.then(() => 'idle' as const), graceOver]);
      clearTimeout(timer);
      if (result === 'timeout') {
        logger.warn(
          { running: dispatcher.active() },
          'shutdown grace period over: stopping running runs; they resume at the next start',
        );
        shutdown.abort();
        await idle;
      }
      await dispatcher.close();
    },
    queueDepth: () => dispatcher.depth(),
    inProgress: () => dispatcher.active(),
    retryAfterSeconds() {
      // Roughly the time for the workers to take one queue's worth of room, bounded for Alertmanager's backoff.
      return Math.min(300, Math.max(5, Math.ceil((dispatcher.depth() / Math.max(1, settings.concurrency)) * 2)));
    },
  };
}

/** An alert's run about a workload or a pod waits a moment before it starts, for its node's alert to arrive (node-incident.ts). */
function isHeld(run: { source: RunSource; trigger: Trigger }): boolean {
  return run.source === 'alertmanager' && mayJoinNodeIncident(run.trigger);
}
