/**
 * `POST /v1/alerts/alertmanager`: Alertmanager's webhook (payload version 4). One
 * notification is one alert group, and Alertmanager never retries a 4xx: so the route
 * has a body limit of its own, sized for the largest group the schema takes (10,000
 * alerts of about 1.2 KB each as kube-prometheus-stack labels them: 12 MB), and a
 * notification is taken whole or refused whole. Firing alerts are correlated into
 * incidents (one run each), repeats start nothing, resolved alerts are recorded on their
 * run; 202 lists what each alert did. When a new run is needed and the queue has no
 * room, 503 with Retry-After for the whole notification, so that Alertmanager retries
 * all of it.
 */
import { sendError } from '../errors.ts';
import { BEARER, type RouteContext, type ZodApp } from '../route-context.ts';
import { alertmanagerPayloadSchema, alertsAcceptedSchema, errorResponses } from '../schemas.ts';

export function registerAlertRoutes(app: ZodApp, context: RouteContext, options: { bodyLimitBytes: number }): void {
  app.post(
    '/v1/alerts/alertmanager',
    {
      config: { scope: 'ingest' },
      bodyLimit: options.bodyLimitBytes,
      // The answer is built below from AlertResult, the schema's own shape: on the hot path of a storm it is
      // written as it is rather than checked against the schema again (which stays, for the OpenAPI document).
      serializerCompiler: () => (data) => JSON.stringify(data),
      schema: {
        summary: 'Alertmanager webhook: one run per incident among the firing alerts',
        tags: ['ingest'],
        security: BEARER,
        body: alertmanagerPayloadSchema,
        response: { 202: alertsAcceptedSchema, ...errorResponses([400, 401, 403, 413, 415, 503] as const) },
      },
    },
    async (request, reply) => {
      const results = await context.runs.ingestAlerts(
        request.body.alerts.map((alert) => ({
          status: alert.status,
          labels: alert.labels,
          annotations: alert.annotations,
          startsAt: alert.startsAt,
          ...(alert.endsAt !== undefined ? { endsAt: alert.endsAt } : {}),
          ...(alert.fingerprint !== undefined ? { fingerprint: alert.fingerprint } : {}),
          ...(alert.generatorURL !== undefined ? { generatorURL: alert.generatorURL } : {}),
        })),
      );
      const counts = countOutcomes(results.map((result) => result.outcome));
      request.logSummary = { groupKey: request.body.groupKey, alerts: results.length, ...counts };
      if ((counts['queue-full'] ?? 0) > 0) {
        reply.header('retry-after', String(context.runs.retryAfterSeconds()));
        return sendError(reply, 503, {
          error: 'queue-full',
          message: `the run queue is full: none of the ${results.length} alerts was accepted; retry the whole notification later`,
          details: { runs: results },
        });
      }
      return reply.code(202).send({ runs: results });
    },
  );
}

function countOutcomes(outcomes: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const outcome of outcomes) counts[outcome] = (counts[outcome] ?? 0) + 1;
  return counts;
}
