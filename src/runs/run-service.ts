/**
 * The run lifecycle behind the HTTP API: a run is stored (committed) before anyone is
 * told about it, queued in a bounded queue, started by at most `concurrency` workers,
 * and ended with its outcome stored. Firing alerts are deduplicated on fingerprint and
 * startsAt; a start recovers what the last process left unfinished; `stop` lets running
 * runs finish within a grace period.
 *
 * Ingestion is the hot path of an alert storm, so it does the least that is durable:
 * the run's row, group-committed with the other requests of the same moment. The run's
 * `run-created` audit event (stamped with the run's creation time) is appended when the
 * run starts, is cancelled, or is found at a restart: always first in its chain.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Trigger } from '../agent/trigger.ts';
import type { AuditStore } from '../audit/audit-store.ts';
import type { Rung } from '../gate/rung.ts';
import type { Metrics } from '../metrics.ts';
import { isFinished, type AlertKey, type RunRecord, type RunSource, type RunStore } from '../store/run-store.ts';
import type { WriteBatcher } from '../store/write-batch.ts';
import { alertKeyOf, alertTrigger, isRepeatOf, resolvedTime, type AlertResult, type IncomingAlert } from './alert-intake.ts';
import { executeRun, type AgentDependencies } from './execute-run.ts';
import { recoverRuns, type RecoveryReport } from './recover-runs.ts';
import { ensureRunCreated } from './run-created.ts';
import { createRunQueue } from './run-queue.ts';
import type { ServiceApprovalBroker } from './service-approvals.ts';

export interface RunSettings {
  concurrency: number;
  queueSize: number;
  dedupWindowMs: number;
  maxAttempts: number;
  shutdownGraceMs: number;
}

export interface RunService {
  /** Recovers unfinished runs and starts working the queue. */
  start(): RecoveryReport;
  /** Stores and queues an incident's run; `queue-full` when there is no room (nothing is stored then). */
  submit(input: { trigger: Trigger; rung: Rung; source: RunSource }): Promise<{ ok: true; run: RunRecord } | { ok: false; error: 'queue-full' }>;
  /** One Alertmanager notification, alert by alert, in order. Resolves once every change is committed. */
  ingestAlerts(alerts: readonly IncomingAlert[]): Promise<AlertResult[]>;
  /** Resolves with the run once it has ended, or with its current state after `timeoutMs`. */
  waitForEnd(id: string, timeoutMs: number): Promise<RunRecord | undefined>;
  /** Answers every pending `waitForEnd` now with the run as it is, and every later one at once. */
  releaseWaiters(): void;
  /** Stops starting runs, waits up to the grace period for running ones, then aborts them (they resume at the next start). */
  stop(): Promise<void>;
  queueDepth(): number;
  inProgress(): number;
  /** Seconds a client should wait before retrying when the queue is full. */
  retryAfterSeconds(): number;
}

export interface RunServiceDependencies {
  store: RunStore;
  audit: AuditStore;
  writes: WriteBatcher;
  approvals: ServiceApprovalBroker;
  metrics: Metrics;
  logger: Logger;
  agent: AgentDependencies;
  settings: RunSettings;
  now?: () => Date;
}

const CANCELLED_REASON = 'cancelled: the alert was resolved before the run started';

export function createRunService(dependencies: RunServiceDependencies): RunService {
  const { store, audit, writes, metrics, logger, settings } = dependencies;
  const now = dependencies.now ?? (() => new Date());
  const shutdown = new AbortController();
  const waiters = new Map<string, Set<(run: RunRecord | undefined) => void>>();
  let closing = false;
  // Places promised to runs stored in a transaction not yet committed.
  let reserved = 0;

  const notifyFinished = (run: RunRecord): void => {
    const set = waiters.get(run.id);
    if (!set) return;
    waiters.delete(run.id);
    for (const resolve of set) resolve(run);
  };

  const queue = createRunQueue({
    concurrency: settings.concurrency,
    queueSize: settings.queueSize,
    start: (id) =>
      executeRun({ id, store, audit, approvals: dependencies.approvals, metrics, logger, agent: dependencies.agent, shutdown: shutdown.signal, onFinished: notifyFinished }).catch((error: unknown) => {
        logger.error({ err: error, runId: id }, 'run could not be executed');
      }),
  });
  queue.pause();
  // A free worker takes a new run at once, so it counts as room too.
  const room = (): number => queue.room() + Math.max(0, settings.concurrency - queue.active()) - reserved;

  /** Inside a batch: stores a run and reserves its place in the queue. */
  const createRun = (input: { trigger: Trigger; rung: Rung; source: RunSource; alert?: AlertKey }): RunRecord => {
    const run = store.create({ id: randomUUID(), trigger: input.trigger, source: input.source, rung: input.rung, ...(input.alert ? { alert: input.alert } : {}), now: now() });
    reserved++;
    return run;
  };

  /** After the batch commits: queue the runs it stored. */
  const enqueue = (runs: readonly RunRecord[]): void => {
    reserved -= runs.length;
    for (const run of runs) queue.offer(run.id, { force: true });
  };

  const finishCancelled = (id: string): void => {
    queue.remove(id);
    const run = store.get(id);
    if (!run) return;
    ensureRunCreated(audit, run);
    audit.append({ runId: id, type: 'run-finished', payload: { status: 'failed', reason: CANCELLED_REASON, cancelled: true, steps: 0 } });
    metrics.runs.inc({ trigger: run.trigger.kind, outcome: 'cancelled' });
    notifyFinished(run);
  };

  return {
    start() {
      const report = recoverRuns({ store, audit, maxAttempts: settings.maxAttempts });
      for (const failed of report.failed) metrics.runs.inc({ trigger: store.get(failed.id)?.trigger.kind ?? 'unknown', outcome: 'failed' });
      // Recovered runs were accepted before: they are queued even beyond the queue's size.
      for (const id of report.queue) queue.offer(id, { force: true });
      queue.resume();
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
      return writes.run(() => {
        const results: AlertResult[] = [];
        const created: RunRecord[] = [];
        const cancelled: string[] = [];
        let deduplicated = 0;
        try {
          for (const alert of alerts) {
            const key = alertKeyOf(alert);
            const existing = store.findByAlert(key);
            if (alert.status === 'resolved') {
              if (!existing) {
                results.push({ fingerprint: key.fingerprint, status: 'resolved', outcome: 'unmatched' });
                continue;
              }
              store.recordResolved(existing.id, resolvedTime(alert, now()));
              const cancel = existing.status === 'queued' && store.cancelQueued(existing.id, CANCELLED_REASON, now());
              if (cancel) cancelled.push(existing.id);
              results.push({ fingerprint: key.fingerprint, status: 'resolved', outcome: cancel ? 'cancelled' : 'resolved', runId: existing.id });
              continue;
            }
            if (existing && isRepeatOf(existing, { now: now(), dedupWindowMs: settings.dedupWindowMs })) {
              store.recordRepeat(existing.id);
              deduplicated++;
              results.push({ fingerprint: key.fingerprint, status: 'firing', outcome: 'duplicate', runId: existing.id });
              continue;
            }
            if (room() <= 0) {
              results.push({ fingerprint: key.fingerprint, status: 'firing', outcome: 'queue-full' });
              continue;
            }
            const run = createRun({ trigger: alertTrigger(alert, key), rung: 'OBSERVE', source: 'alertmanager', alert: key });
            created.push(run);
            results.push({ fingerprint: key.fingerprint, status: 'firing', outcome: 'created', runId: run.id });
          }
        } catch (error) {
          reserved -= created.length;
          throw error;
        }
        return {
          result: results,
          afterCommit() {
            for (const alert of alerts) metrics.alertsReceived.inc({ status: alert.status });
            if (deduplicated > 0) metrics.alertsDeduplicated.inc(deduplicated);
            enqueue(created);
            for (const id of cancelled) finishCancelled(id);
          },
          afterRollback: () => void (reserved -= created.length),
        };
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
    async stop() {
      queue.pause();
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
