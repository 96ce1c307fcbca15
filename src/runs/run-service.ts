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
import { anchorLogFields, unsignedAnchors, type AnchorSigner } from '../audit/anchors.ts';
import type { AuditStore } from '../audit/audit-store.ts';
import type { Rung } from '../gate/rung.ts';
import type { Metrics } from '../metrics.ts';
import { newRunId } from '../store/run-ids.ts';
import { isFinished, type AlertKey, type RunRecord, type RunSource, type RunStore } from '../store/run-store.ts';
import type { WriteBatcher } from '../store/write-batch.ts';
import { CANCELLED_REASON, NotificationRefused, refusedResults, takeNotification, type AlertResult, type IncomingAlert, type IntakeReport } from './alert-intake.ts';
import { diagnosedCulpritKeys } from './correlate.ts';
import { executeRun, type AgentDependencies } from './execute-run.ts';
import { findNodeIncident, mayJoinNodeIncident, mergedReason, NODE_INCIDENT_HOLD_MS } from './node-incident.ts';
import { recoverRuns, type RecoveryReport } from './recover-runs.ts';
import { ensureRunCreated } from './run-created.ts';
import { createRunQueue } from './run-queue.ts';
import type { RunNotices } from '../notify/notifier.ts';
import { createServiceApprovals, type DecisionResult } from './service-approvals.ts';

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
  /** Recovers unfinished runs and starts working the queue. */
  start(): RecoveryReport;
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
  decideAction(input: { runId: string; actionId: string; decision: 'approved' | 'rejected'; by: string; reason?: string }): DecisionResult;
  /** Sets the approval expiry timer again after a run was parked outside the queue (a write an MCP client asked for, src/mcp/hold-run.ts). */
  expireDue(): void;
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
  /** Hears when a run ends, parks for approval, or has its alerts all resolve (notifications). */
  notices?: RunNotices;
}

export function createRunService(dependencies: RunServiceDependencies): RunService {
  const { store, audit, writes, metrics, logger, settings } = dependencies;
  const now = dependencies.now ?? (() => new Date());
  const anchors = dependencies.anchors ?? unsignedAnchors;
  const shutdown = new AbortController();
  const waiters = new Map<string, Set<(run: RunRecord | undefined) => void>>();
  let closing = false;
  // Places promised to runs stored in a transaction not yet committed, or held before they are queued.
  let reserved = 0;
  const holdMs = settings.nodeIncidentHoldMs ?? NODE_INCIDENT_HOLD_MS;

  const notifyFinished = (run: RunRecord): void => {
    const set = waiters.get(run.id);
    if (!set) return;
    waiters.delete(run.id);
    for (const resolve of set) resolve(run);
  };

  const delayedStarts = new Set<NodeJS.Timeout>();
  /** Queues a stored queued run now, or when its `notBefore` comes. */
  const offerWhenDue = (id: string, notBefore?: string): void => {
    const delay = notBefore ? Date.parse(notBefore) - now().getTime() : 0;
    offerAfter(id, delay);
  };
  /** Queues a stored run after `delayMs` (at once when it is not positive); `before` runs just before it is offered. */
  const offerAfter = (id: string, delayMs: number, before?: () => void): void => {
    if (!(delayMs > 0)) {
      before?.();
      queue.offer(id, { force: true });
      return;
    }
    const timer = setTimeout(() => {
      delayedStarts.delete(timer);
      before?.();
      queue.offer(id, { force: true });
    }, Math.min(delayMs, 2 ** 31 - 1));
    // A pending start must not keep a stopping process alive.
    timer.unref();
    delayedStarts.add(timer);
  };
  /** A run that found its culprit answers for it: the culprit's own alerts, arriving later, join it (correlate.ts). */
  const registerDiagnosedCulprit = (run: RunRecord): void => {
    // A diagnosis without a culprit (nothing found) answers for nothing.
    if (run.trigger.kind !== 'alert' || !run.diagnosis?.culprit || run.diagnosis.category === 'no-issue') return;
    try {
      store.addCulpritKeys(run.id, diagnosedCulpritKeys(run.diagnosis.culprit, run.trigger.alert.labels));
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
    const merged = await writes.run(() => ({ result: store.mergeInto({ id: run.id, into: incident.runId, reason, now: now() }) }));
    if (!merged) return false;
    ensureRunCreated(audit, run);
    audit.append({ runId: run.id, type: 'run-finished', payload: { status: 'completed', reason, mergedInto: incident.runId, steps: 0 } });
    metrics.runs.inc({ trigger: run.trigger.kind, outcome: 'merged' });
    logger.info({ runId: run.id, joined: incident.runId, node: incident.node, reason, ...anchorLogFields({ audit, runId: run.id, signer: anchors }) }, 'run finished');
    logger.info({ runId: incident.runId, merged: run.id, node: incident.node }, "a run about the node's pods joined this run's incident");
    const ended = store.get(run.id);
    if (ended) notifyFinished(ended);
    return true;
  };

  const approvals = createServiceApprovals({ store, audit, metrics, now, onResumable: (run) => queue.offer(run.id, { force: true }) });

  const queue = createRunQueue({
    concurrency: settings.concurrency,
    queueSize: settings.queueSize,
    start: (id) =>
      executeRun({
        id,
        store,
        audit,
        metrics,
        logger,
        agent: dependencies.agent,
        shutdown: shutdown.signal,
        onFinished: (run) => {
          registerDiagnosedCulprit(run);
          notifyFinished(run);
          dependencies.notices?.runFinished(run);
        },
        joinIncident,
        onParked: (run) => {
          approvals.expireDue();
          // A caller waiting for the run hears of it now: it waits for a person, not for the service.
          notifyFinished(run);
          dependencies.notices?.runParked(run);
        },
        onRetry: (run) => offerWhenDue(run.id, run.notBefore),
        anchors,
      }).catch((error: unknown) => {
        logger.error({ err: error, runId: id }, 'run could not be executed');
      }),
  });
  queue.pause();
  // A free worker takes a new run at once, so it counts as room too.
  const room = (): number => queue.room() + Math.max(0, settings.concurrency - queue.active()) - reserved;

  /** Inside a batch: stores a run and reserves its place in the queue. */
  const createRun = (input: { trigger: Trigger; rung: Rung; source: RunSource; alert?: AlertKey; culpritKeys?: readonly string[]; earlierFailures?: number }): RunRecord => {
    const createdAt = now();
    const run = store.create({
      id: newRunId(createdAt),
      trigger: input.trigger,
      source: input.source,
      rung: input.rung,
      ...(input.alert ? { alert: input.alert } : {}),
      ...(input.culpritKeys ? { culpritKeys: input.culpritKeys } : {}),
      earlierFailures: input.earlierFailures ?? 0,
      now: createdAt,
    });
    reserved++;
    return run;
  };

  /** After the batch commits: queue the runs it stored; an alert's run about a workload or a pod after the hold (it keeps its place in `reserved` meanwhile). */
  const enqueue = (runs: readonly RunRecord[]): void => {
    for (const run of runs) {
      const held = run.source === 'alertmanager' && mayJoinNodeIncident(run.trigger);
      offerAfter(run.id, held ? holdMs : 0, () => void reserved--);
    }
  };

  const finishCancelled = (id: string): void => {
    queue.remove(id);
    const run = store.get(id);
    if (!run) return;
    ensureRunCreated(audit, run);
    audit.append({ runId: id, type: 'run-finished', payload: { status: 'failed', reason: CANCELLED_REASON, cancelled: true, steps: 0 } });
    metrics.runs.inc({ trigger: run.trigger.kind, outcome: 'cancelled' });
    logger.info({ runId: id, status: 'failed', reason: CANCELLED_REASON, cancelled: true, ...anchorLogFields({ audit, runId: id, signer: anchors }) }, 'run finished');
    notifyFinished(run);
  };

  return {
    start() {
      const report = recoverRuns({ store, audit, maxAttempts: settings.maxAttempts });
      for (const failed of report.failed) {
        metrics.runs.inc({ trigger: store.get(failed.id)?.trigger.kind ?? 'unknown', outcome: 'failed' });
        logger.info({ runId: failed.id, status: 'failed', reason: failed.reason, ...anchorLogFields({ audit, runId: failed.id, signer: anchors }) }, 'run finished');
      }
      // Recovered runs were accepted before: they are queued even beyond the queue's size.
      for (const id of report.queue) offerWhenDue(id, store.get(id)?.notBefore);
      queue.resume();
      // Parked runs stay parked; actions that expired while the service was down expire now.
      approvals.expireDue();
      if (report.queue.length + report.failed.length > 0) {
        logger.info({ queued: report.queue.length - report.resumed.length, resumed: report.resumed.length, failed: report.failed.length }, 'recovered unfinished runs');
      }
      return report;
    },
    submit({ trigger, rung, source }) {
      type Submitted = Awaited<ReturnType<RunService['submit']>>;
      return writes.run<Submitted>(() => {
        if (room() <= 0) return { result: { ok: false, error: 'queue-full' } };
        const run = createRun({ trigger, rung, source });
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
        .run(() => {
          let reservedHere = 0;
          let report: IntakeReport;
          try {
            report = takeNotification(alerts, {
              store,
              now: now(),
              settings: intakeSettings,
              // Taken whole: with any room at all, every run the notification needs is taken, even past the queue's size.
              hasRoom: room() > 0,
              createRun: (input) => {
                reservedHere++;
                return createRun({ ...input, rung: 'OBSERVE', source: 'alertmanager' });
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
              for (const id of report.cancelled) finishCancelled(id);
              for (const id of report.resolved) {
                const run = dependencies.notices ? store.get(id) : undefined;
                if (run) dependencies.notices?.alertsResolved(run);
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
    waitForEnd(id, timeoutMs) {
      const current = store.get(id);
      if (!current || isFinished(current.status) || timeoutMs <= 0 || closing) return Promise.resolve(current);
      return new Promise((resolve) => {
        const set = waiters.get(id) ?? new Set();
        waiters.set(id, set);
        const timer = setTimeout(() => {
          set.delete(settle);
          if (set.size === 0) waiters.delete(id);
          resolve(store.get(id));
        }, timeoutMs);
        const settle = (run: RunRecord | undefined): void => {
          clearTimeout(timer);
          resolve(run ?? store.get(id));
        };
        set.add(settle);
      });
    },
    releaseWaiters() {
      closing = true;
      for (const [id, set] of [...waiters]) {
        waiters.delete(id);
        const run = store.get(id);
        for (const resolve of set) resolve(run);
      }
    },
    decideAction(input) {
      return approvals.decide(input);
    },
    expireDue: () => approvals.expireDue(),
    async stop() {
      queue.pause();
      approvals.close();
      for (const timer of delayedStarts) clearTimeout(timer);
      const idle = queue.idle();
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), settings.shutdownGraceMs);
      });
      const result = await Promise.race([idle.then(() => 'idle' as const), graceOver]);
      clearTimeout(timer);
      if (result === 'timeout') {
        logger.warn({ running: queue.active() }, 'shutdown grace period over: stopping running runs; they resume at the next start');
        shutdown.abort();
        await idle;
      }
    },
    queueDepth: () => queue.depth(),
    inProgress: () => queue.active(),
    retryAfterSeconds() {
      // Roughly the time for the workers to take one queue's worth of room, bounded for Alertmanager's backoff.
      return Math.min(300, Math.max(5, Math.ceil((queue.depth() / Math.max(1, settings.concurrency)) * 2)));
    },
  };
}
