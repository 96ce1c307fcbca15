/**
 * Routes without a token: `GET /healthz` (the process answers), `GET /readyz` (the store
 * and the cluster answer), `GET /metrics` (Prometheus text format) and
 * `GET /openapi.json` (this API's OpenAPI document).
 *
 * While the model keeps failing, `/readyz` answers 200 with `status: degraded` and the
 * model's last error, not 503: ingest still works (alerts are stored and queued, runs
 * fall back to the offline engine), and a model outage hits every replica at once, so a
 * 503 would take them all out of the Service and lose the alerts that still arrive.
 */
import { z } from 'zod';
import type { ModelHealth } from '../../agent/models/model-health.ts';
import type { RouteContext, ZodApp } from '../route-context.ts';

const healthSchema = z.object({
  status: z.enum(['ok', 'degraded', 'unavailable']),
  checks: z.record(z.string(), z.string()).optional(),
});

export function registerSystemRoutes(
  app: ZodApp,
  context: RouteContext,
  extras: { modelHealth?: ModelHealth } = {},
): void {
  // Probes and scrapes come every few seconds: their request lines would drown the log.
  const quiet = { logLevel: 'warn' as const };
  app.get(
    '/healthz',
    { ...quiet, schema: { summary: 'Liveness', tags: ['system'], response: { 200: healthSchema } } },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      ...quiet,
      schema: {
        summary: 'Readiness: the store and the cluster answer',
        tags: ['system'],
        response: { 200: healthSchema, 503: healthSchema },
      },
    },
    async (request, reply) => {
      const checks: Record<string, string> = {};
      let ready = true;
      try {
        await context.store.ping();
        checks.store = 'ok';
      } catch (error) {
        ready = false;
        checks.store = error instanceof Error ? error.message : String(error);
      }
      const cluster = await context.checkCluster();
      checks.cluster = cluster.ok ? 'ok' : (cluster.message ?? 'unreachable');
      ready &&= cluster.ok;
      // The model is no readiness check (it never turns this 503); it is named only while it fails.
      const model = extras.modelHealth?.status();
      if (model?.state === 'degraded')
        checks.model = `degraded: ${model.consecutiveFailures} calls failed in a row since ${model.failingSince?.toISOString() ?? 'unknown'}; last error: ${model.lastError ?? 'unknown'}`;
      if (!ready) request.log.warn({ checks }, 'not ready');
      return reply
        .code(ready ? 200 : 503)
        .send({ status: ready ? (model?.state === 'degraded' ? 'degraded' : 'ok') : 'unavailable', checks });
    },
  );

  app.get(
    '/metrics',
    { ...quiet, schema: { summary: 'Prometheus metrics (text format)', tags: ['system'] } },
    async (_request, reply) => {
      const text = await context.metrics.registry.metrics();
      return reply.type(context.metrics.registry.contentType).send(text);
    },
  );

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
