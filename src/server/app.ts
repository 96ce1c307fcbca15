/**
 * `buildApp(service, http)`: the Fastify app with every route and hook over a service
 * (app/service.ts), never listening. It builds nothing of the service: it registers the
 * routes, the authentication hook and the request metrics, starts the service when the app
 * is ready, and stops it gracefully when the app closes.
 */
import { randomUUID } from 'node:crypto';
import fastifySwagger from '@fastify/swagger';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import type { Service } from '../app/service.ts';
import type { Notifier } from '../notify/notifier.ts';
import type { RunService } from '../runs/run-service.ts';
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

type ClusterAnswer = { ok: boolean; message?: string };
type ClusterCheck = (signal: AbortSignal) => Promise<ClusterAnswer>;

/** What the HTTP side needs besides the service. */
export interface HttpSettings {
  auth: AuthSettings;
  bodyLimitBytes: number;
  /** The Alertmanager webhook's own body limit (default WEBHOOK_BODY_LIMIT_BYTES): one notification is a whole alert group. */
  webhookBodyLimitBytes?: number;
  logger: Logger;
  /** Whether the cluster answers; default: a get of namespace `default` (any API answer, even 403, counts). */
  checkCluster?: ClusterCheck;
  /** Checks the tokens instead of one built from `auth`: serve passes one whose tokens it reloads when the files change. */
  authenticator?: Authenticator;
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

export async function buildApp(service: Service, http: HttpSettings): Promise<KubewhyApp> {
  const { runs: runService, notifier, metrics, stores, agent } = service;
  const { runs: store, audit } = stores;
  const authenticator = http.authenticator ?? createAuthenticator(http.auth);

  const app = Fastify({
    loggerInstance: http.logger as FastifyBaseLogger,
    bodyLimit: http.bodyLimitBytes,
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
  installErrorHandlers(app, { bodyLimitBytes: http.bodyLimitBytes });
  // The API speaks JSON only: any other body is a 415, not a string that fails validation.
  app.removeContentTypeParser('text/plain');
  app.decorateRequest('identity', 'anonymous');
  app.decorateRequest('logSummary', undefined);
  app.decorate('runService', runService);
  app.decorate('notifier', notifier);

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'kubewhy',
        version: service.version ?? 'unknown',
        description: 'Answers "why did this alert fire?" for Kubernetes.',
      },
      components: {
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description: 'A token of the scope the route names (ingest, read, approve, act)',
          },
        },
      },
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
    checkCluster: cachedClusterCheck(http.checkCluster ?? defaultClusterCheck(agent.cluster)),
    ...(stores.shared ? { lease: { owner: stores.shared.owner, ms: stores.shared.leaseMs } } : {}),
  };
  registerAlertRoutes(app, context, {
    bodyLimitBytes: http.webhookBodyLimitBytes ?? Math.max(WEBHOOK_BODY_LIMIT_BYTES, http.bodyLimitBytes),
  });
  registerIncidentRoutes(app, context);
  registerRunRoutes(app, context);
  registerApprovalRoutes(app, context);
  registerSystemRoutes(app, context, { modelHealth: service.modelHealth });
  registerConsole(app, context, { authenticator });
  registerMcpRoutes(app, context, {
    authenticator,
    agent,
    ...(service.version ? { version: service.version } : {}),
    events: service.events,
  });

  app.addHook('onReady', () => service.start());
  app.addHook('preClose', async () => service.releaseWaiters());
  app.addHook('onClose', () => service.stop());
  return app as unknown as KubewhyApp;
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

/** A get of namespace `default`: any answer of the API, even a 403 or a 404, says the cluster answers. */
function defaultClusterCheck(cluster: Service['agent']['cluster']): ClusterCheck {
  return async (signal) => {
    const result = await cluster.get('Namespace', { name: 'default' }, { signal });
    if (result.ok || result.error.kind === 'not-found' || result.error.kind === 'forbidden') return { ok: true };
    return { ok: false, message: `${result.error.kind}: ${result.error.message}` };
  };
}

function cachedClusterCheck(check: ClusterCheck): () => Promise<ClusterAnswer> {
  let cached: { at: number; result: ClusterAnswer } | undefined;
  return async () => {
    if (cached && Date.now() - cached.at < READINESS_CACHE_MS) return cached.result;
    const result = await check(AbortSignal.timeout(3000)).catch((error: unknown) => ({
      ok: false,
      message: error instanceof Error ? error.message : String(error),
    }));
    cached = { at: Date.now(), result };
    return result;
  };
}
