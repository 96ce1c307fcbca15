/**
 * `buildApp(dependencies)`: the Fastify app with every route and hook, never listening.
 * It creates what belongs to one app instance (its metrics Registry, approval broker and
 * run service) over the stores it is handed (SQLite's or PostgreSQL's, src/store/stores.ts;
 * or a SQLite database, whose stores it makes); the caller owns the database, the
 * cluster and the model. Unfinished runs are recovered and the
 * queue starts when the app is ready; closing the app stops the runs gracefully.
 */
import { randomUUID } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import fastifySwagger from '@fastify/swagger';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import { retiredAnchorLogFields, unsignedAnchors, type AnchorSigner } from '../audit/anchors.ts';
import { createModelHealth, trackModelHealth, type ModelHealth } from '../agent/model-health.ts';
import { createMetrics } from '../metrics.ts';
import { createNotifier, type Notifier } from '../notify/notifier.ts';
import type { NotificationSettings } from '../notify/notify-config.ts';
import type { AgentDependencies } from '../runs/execute-run.ts';
import { createRunEvents } from '../runs/run-events.ts';
import { createRunService, type RunService, type RunSettings } from '../runs/run-service.ts';
import { startRetention, type RetentionTimer } from '../store/retention.ts';
import { createSqliteStores } from '../store/sqlite-stores.ts';
import type { Stores } from '../store/stores.ts';
import { createAuthenticator, type Authenticator, type AuthSettings } from './auth.ts';
import { installErrorHandlers, sendError } from './errors.ts';
import type { RouteContext } from './route-context.ts';
import { registerAlertRoutes } from './routes/alerts.ts';
import { registerApprovalRoutes } from './routes/approvals.ts';
import { registerIncidentRoutes } from './routes/incidents.ts';
import { registerRunRoutes } from './routes/runs.ts';
import { registerSystemRoutes } from './routes/system.ts';
import { registerConsole } from '../console/plugin.ts';
import { registerMcpRoutes } from '../mcp/http.ts';

export interface AppDependencies {
  /** The stores the app runs on; or `database`, a SQLite database whose stores the app makes. */
  stores?: Stores;
  database?: DatabaseSync;
  agent: AgentDependencies;
  runs: RunSettings;
  auth: AuthSettings;
  bodyLimitBytes: number;
  /** The Alertmanager webhook's own body limit (default WEBHOOK_BODY_LIMIT_BYTES): one notification is a whole alert group. */
  webhookBodyLimitBytes?: number;
  logger: Logger;
  version?: string;
  /** Whether the cluster answers; default: a get of namespace `default` (any API answer, even 403, counts). */
  checkCluster?: (signal: AbortSignal) => Promise<{ ok: boolean; message?: string }>;
  /** Signs the audit head each ended run logs; default: logged unsigned. */
  auditAnchors?: AnchorSigner;
  /** Checks the tokens instead of one built from `auth`: serve passes one whose tokens it reloads when the files change. */
  authenticator?: Authenticator;
  /** Whether the model answers (for /readyz and a gauge); serve shares it with the agent workers, which report their model calls to it. */
  modelHealth?: ModelHealth;
  /** Finished runs older than `days` are removed, at start and every `intervalMs` (default hourly); days 0 or absent: kept forever. */
  retention?: { days: number; intervalMs?: number; now?: () => Date };
  /** Where diagnoses are sent (Slack, Teams, signed webhooks) and which go where; absent: none are sent. */
  notifications?: NotificationSettings;
}

export type KubewhyApp = FastifyInstance & { runService: RunService; notifier?: Notifier };

/**
 * A notification of 10,000 alerts (the most the webhook's schema takes) labelled as
 * kube-prometheus-stack labels them measures 12 MB (1.2 KB an alert): 32 MiB leaves room
 * for alerts with more labels and longer annotations. Alertmanager does not retry a 413.
 */
export const WEBHOOK_BODY_LIMIT_BYTES = 32 * 1024 * 1024;

const INGEST_ROUTES = new Set(['/v1/alerts/alertmanager', '/v1/incidents']);
const REQUEST_ID = /^[\w.:-]{1,128}$/;
const READINESS_CACHE_MS = 5000;

export async function buildApp(dependencies: AppDependencies): Promise<KubewhyApp> {
  const onAfterCommitError = (error: unknown): void => dependencies.logger.error({ err: error }, 'after a committed write');
  const stores = dependencies.stores ?? (dependencies.database ? createSqliteStores(dependencies.database, { onAfterCommitError }) : undefined);
  if (!stores) throw new TypeError('buildApp needs the stores, or a SQLite database');
  const { runs: store, audit, writes } = stores;
  // The gauges read the run service at scrape time; it needs the metrics to exist first.
  const scraped: { runs?: RunService } = {};
  // Every model call of this app's runs tells whether the model answers (for /readyz and a gauge).
  const modelHealth = dependencies.modelHealth ?? createModelHealth();
  const agent: AgentDependencies = { ...dependencies.agent, model: trackModelHealth(dependencies.agent.model, modelHealth) };
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
    outbox && dependencies.notifications ? createNotifier({ outbox, store, settings: dependencies.notifications, metrics, logger: dependencies.logger }) : undefined;
  // What happens to runs is told once (runs/run-events.ts); the notifier listens to a run's own end and to a recovery's, not to a merge or a cancellation.
  const events = createRunEvents(dependencies.logger);
  if (notifier) {
    events.on('ended', ({ run, cause }) => (cause === 'finished' || cause === 'recovered' ? notifier.runFinished(run) : undefined));
    events.on('parked', ({ run }) => notifier.runParked(run));
    events.on('resolved', ({ run }) => notifier.alertsResolved(run));
  }
  const runService = createRunService({
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
  scraped.runs = runService;
  const authenticator = dependencies.authenticator ?? createAuthenticator(dependencies.auth);

  const app = Fastify({
    loggerInstance: dependencies.logger as FastifyBaseLogger,
    bodyLimit: dependencies.bodyLimitBytes,
    requestIdHeader: false,
    // A caller's request id is kept when it is a plain token, so its logs and ours join up.
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    return503OnClosing: true,
    logController: new OneLinePerRequest(),
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandlers(app, { bodyLimitBytes: dependencies.bodyLimitBytes });
  // The API speaks JSON only: any other body is a 415, not a string that fails validation.
  app.removeContentTypeParser('text/plain');
  app.decorateRequest('identity', 'anonymous');
  app.decorateRequest('logSummary', undefined);
  app.decorate('runService', runService);
  app.decorate('notifier', notifier);

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'kubewhy', version: dependencies.version ?? 'unknown', description: 'Answers "why did this alert fire?" for Kubernetes.' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'A token of the scope the route names (ingest, read, approve, act)' } } },
    },
    transform: jsonSchemaTransform,
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    const scope = request.routeOptions.config.scope;
    if (!scope) return;
    const result = authenticator.check(request.headers.authorization, scope);
    if (result.ok) {
      request.identity = result.identity;
      return;
    }
    if (result.status === 401) reply.header('www-authenticate', `Bearer realm="kubewhy", scope="${scope}"`);
    return sendError(reply, result.status, { error: result.error, message: result.message });
  });

  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url;
    if (route && INGEST_ROUTES.has(route)) metrics.webhookRequests.inc({ route, outcome: outcomeOf(reply.statusCode) });
  });

  const context: RouteContext = {
    runs: runService,
    store,
    audit,
    metrics,
    hasScope: (authorization, scope) => authenticator.check(authorization, scope).ok,
    checkCluster: cachedClusterCheck(dependencies),
    ...(stores.shared ? { lease: { owner: stores.shared.owner, ms: stores.shared.leaseMs } } : {}),
  };
  registerAlertRoutes(app, context, { bodyLimitBytes: dependencies.webhookBodyLimitBytes ?? Math.max(WEBHOOK_BODY_LIMIT_BYTES, dependencies.bodyLimitBytes) });
  registerIncidentRoutes(app, context);
  registerRunRoutes(app, context);
  registerApprovalRoutes(app, context);
  registerSystemRoutes(app, context, { modelHealth });
  registerConsole(app, context, { authenticator });
  registerMcpRoutes(app, context, { authenticator, agent, ...(dependencies.version ? { version: dependencies.version } : {}), events });

  let retention: RetentionTimer | undefined;
  app.addHook('onReady', async () => {
    await runService.start();
    await notifier?.start();
    retention = startRetentionSweeps(dependencies, stores, metrics);
  });
  app.addHook('preClose', async () => {
    runService.releaseWaiters();
  });
  app.addHook('onClose', async () => {
    await retention?.stop();
    await runService.stop();
    // After the runs: the notices of runs that end in the grace period are queued; what is not delivered now is at the next start.
    await notifier?.stop();
  });
  return app as unknown as KubewhyApp;
}

/** The retention timer, when runs are not kept forever: one log line and the counter per sweep. */
function startRetentionSweeps(dependencies: AppDependencies, stores: Stores, metrics: ReturnType<typeof createMetrics>): RetentionTimer | undefined {
  const settings = dependencies.retention;
  if (!settings || settings.days === 0) return undefined;
  const logger = dependencies.logger;
  return startRetention({
    retention: stores.retention({
      days: settings.days,
      ...(settings.now ? { now: settings.now } : {}),
      // Each removed run's head, signed and marked retired: verify tells it from a run removed by hand.
      onRetired: (run) => logger.info({ runId: run.runId, status: 'retired', ...retiredAnchorLogFields({ ...run, signer: dependencies.auditAnchors ?? unsignedAnchors }) }, 'run retired'),
    }),
    ...(settings.intervalMs ? { intervalMs: settings.intervalMs } : {}),
    onSweep(report) {
      metrics.runsRetired.inc(report.retired);
      logger.info({ retention: { days: settings.days, ...report } }, `retention: removed ${report.retired} finished run(s) that ended before ${report.cutoff}, in ${report.batches} batch(es)`);
    },
    onError(error) {
      logger.error({ err: error }, 'retention: the sweep failed; the next one tries again');
    },
  });
}

/**
 * One line per request, when it completes, with what the route did (`request.logSummary`)
 * and what the request was: an alert storm is thousands of requests, and the line Fastify
 * writes when a request comes in says nothing the completed line does not.
 */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const fields = { req: request, res: reply, responseTime: reply.elapsedTime, ...request.logSummary };
    if (error) reply.log.error({ ...fields, err: error }, 'request errored');
    else reply.log.info(fields, 'request completed');
  }
}

function outcomeOf(status: number): string {
  if (status < 300) return 'accepted';
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 503) return 'unavailable';
  if (status < 500) return 'invalid';
  return 'error';
}

function cachedClusterCheck(dependencies: AppDependencies): () => Promise<{ ok: boolean; message?: string }> {
  const check =
    dependencies.checkCluster ??
    (async (signal: AbortSignal) => {
      const result = await dependencies.agent.cluster.get('Namespace', { name: 'default' }, { signal });
      if (result.ok || result.error.kind === 'not-found' || result.error.kind === 'forbidden') return { ok: true };
      return { ok: false, message: `${result.error.kind}: ${result.error.message}` };
    });
  let cached: { at: number; result: { ok: boolean; message?: string } } | undefined;
  return async () => {
    if (cached && Date.now() - cached.at < READINESS_CACHE_MS) return cached.result;
    const result = await check(AbortSignal.timeout(3000)).catch((error: unknown) => ({ ok: false, message: error instanceof Error ? error.message : String(error) }));
    cached = { at: Date.now(), result };
    return result;
  };
}
