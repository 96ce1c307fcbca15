/**
 * The service's parts, made in one place: `createService(dependencies)` builds, over the
 * stores it is handed (or a SQLite database, whose stores it makes), the metrics, the model's
 * health, the run events and who listens to them (the notifier), the run service and the
 * retention sweeps; `start()` and `stop()` run them. The HTTP app (server/app.ts) is built
 * over a service and builds nothing itself: `buildServiceApp` does both, for `serve` and tests.
 *
 * The caller owns the database, the cluster and the model.
 */
import type { DatabaseSync } from 'node:sqlite';
import type { Logger } from 'pino';
import { retiredAnchorLogFields, unsignedAnchors, type AnchorSigner } from '../audit/anchors.ts';
import { createModelHealth, trackModelHealth, type ModelHealth } from '../agent/models/model-health.ts';
import { createMetrics, type Metrics } from '../metrics.ts';
import { createNotifier, type Notifier } from '../notify/notifier.ts';
import type { NotificationSettings } from '../notify/notify-config.ts';
import type { AgentDependencies } from '../runs/execute-run.ts';
import { createRunEvents, type RunEvents } from '../runs/run-events.ts';
import { createRunService, type RunService, type RunSettings } from '../runs/run-service.ts';
import { startRetention, type RetentionTimer } from '../store/retention.ts';
import { createSqliteStores } from '../store/sqlite-stores.ts';
import type { Stores } from '../store/ports.ts';
import { buildApp, type HttpSettings, type KubewhyApp } from '../server/app.ts';

export interface ServiceDependencies {
  /** The stores the service runs on; or `database`, a SQLite database whose stores are made here. */
  stores?: Stores;
  database?: DatabaseSync;
  agent: AgentDependencies;
  runs: RunSettings;
  logger: Logger;
  version?: string;
  /** Signs the audit head each ended run logs; default: logged unsigned. */
  auditAnchors?: AnchorSigner;
  /** Whether the model answers (for /readyz and a gauge); serve shares it with the agent workers, which report their model calls to it. */
  modelHealth?: ModelHealth;
  /** Finished runs older than `days` are removed, at start and every `intervalMs` (default hourly); days 0 or absent: kept forever. */
  retention?: { days: number; intervalMs?: number; now?: () => Date };
  /** Where diagnoses are sent (Slack, Teams, signed webhooks) and which go where; absent: none are sent. */
  notifications?: NotificationSettings;
}

export interface Service {
  stores: Stores;
  metrics: Metrics;
  modelHealth: ModelHealth;
  /** The agent's parts, its model reporting every call to `modelHealth`. */
  agent: AgentDependencies;
  events: RunEvents;
  runs: RunService;
  notifier?: Notifier;
  version?: string;
  /** Recovers unfinished runs, starts the queue, the notifier and the retention sweeps. */
  start(): Promise<void>;
  /** Answers every `?wait` still waiting, before the HTTP server closes. */
  releaseWaiters(): void;
  /** Stops the sweeps, then the runs (with their grace period), then the notifier. */
  stop(): Promise<void>;
}

export function createService(dependencies: ServiceDependencies): Service {
  const onAfterCommitError = (error: unknown): void =>
    dependencies.logger.error({ err: error }, 'after a committed write');
  const stores =
    dependencies.stores ??
    (dependencies.database ? createSqliteStores(dependencies.database, { onAfterCommitError }) : undefined);
  if (!stores) throw new TypeError('createService needs the stores, or a SQLite database');
  const { runs: store, audit, writes } = stores;
  // The gauges read the run service at scrape time; it needs the metrics to exist first.
  const scraped: { runs?: RunService } = {};
  // Every model call of this service's runs tells whether the model answers (for /readyz and a gauge).
  const modelHealth = dependencies.modelHealth ?? createModelHealth();
  const agent: AgentDependencies = {
    ...dependencies.agent,
    model: trackModelHealth(dependencies.agent.model, modelHealth),
  };
  const outbox = dependencies.notifications ? stores.outbox : undefined;
  const metrics = createMetrics({
    version: dependencies.version ?? 'unknown',
    gauges: {
      queueDepth: () => scraped.runs?.queueDepth() ?? 0,
      inProgress: () => scraped.runs?.inProgress() ?? 0,
      modelFailures: () => modelHealth.status().consecutiveFailures,
      ...(outbox ? { notificationsPending: () => outbox.pending() } : {}),
    },
  });
  const notifier =
    outbox && dependencies.notifications
      ? createNotifier({ outbox, store, settings: dependencies.notifications, metrics, logger: dependencies.logger })
      : undefined;
  // What happens to runs is told once (runs/run-events.ts); the notifier listens to a run's own end and to a recovery's, not to a merge or a cancellation.
  const events = createRunEvents(dependencies.logger);
  if (notifier) {
    events.on('ended', ({ run, cause }) =>
      cause === 'finished' || cause === 'recovered' ? notifier.runFinished(run) : undefined,
    );
    events.on('parked', ({ run }) => notifier.runParked(run));
    events.on('resolved', ({ run }) => notifier.alertsResolved(run));
  }
  const runs = createRunService({
    store,
    audit,
    writes,
    metrics,
    logger: dependencies.logger,
    agent,
    settings: dependencies.runs,
    ...(dependencies.auditAnchors ? { anchors: dependencies.auditAnchors } : {}),
    events,
    ...(stores.shared ? { shared: stores.shared } : {}),
  });
  scraped.runs = runs;

  let retention: RetentionTimer | undefined;
  return {
    stores,
    metrics,
    modelHealth,
    agent,
    events,
    runs,
    ...(notifier ? { notifier } : {}),
    ...(dependencies.version ? { version: dependencies.version } : {}),
    async start() {
      await runs.start();
      await notifier?.start();
      retention = startRetentionSweeps(dependencies, stores, metrics);
    },
    releaseWaiters: () => runs.releaseWaiters(),
    async stop() {
      await retention?.stop();
      await runs.stop();
      // After the runs: the notices of runs that end in the grace period are queued; what is not delivered now is at the next start.
      await notifier?.stop();
    },
  };
}

export type AppDependencies = ServiceDependencies & HttpSettings;

/** The service and the HTTP app over it, in one call: what `serve` and the in-process tests build. */
export async function buildServiceApp(dependencies: AppDependencies): Promise<KubewhyApp> {
  return buildApp(createService(dependencies), dependencies);
}

/** The retention timer, when runs are not kept forever: one log line and the counter per sweep. */
function startRetentionSweeps(
  dependencies: ServiceDependencies,
  stores: Stores,
  metrics: Metrics,
): RetentionTimer | undefined {
  const settings = dependencies.retention;
  if (!settings || settings.days === 0) return undefined;
  const logger = dependencies.logger;
  return startRetention({
    retention: stores.retention({
      days: settings.days,
      ...(settings.now ? { now: settings.now } : {}),
      // Each removed run's head, signed and marked retired: verify tells it from a run removed by hand.
      onRetired: (run) =>
        logger.info(
          {
            runId: run.runId,
            status: 'retired',
            ...retiredAnchorLogFields({ ...run, signer: dependencies.auditAnchors ?? unsignedAnchors }),
          },
          'run retired',
        ),
    }),
    ...(settings.intervalMs ? { intervalMs: settings.intervalMs } : {}),
    onSweep(report) {
      metrics.runsRetired.inc(report.retired);
      logger.info(
        { retention: { days: settings.days, ...report } },
        `retention: removed ${report.retired} finished run(s) that ended before ${report.cutoff}, in ${report.batches} batch(es)`,
      );
    },
    onError(error) {
      logger.error({ err: error }, 'retention: the sweep failed; the next one tries again');
    },
  });
}
