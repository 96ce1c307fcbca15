/**
 * `POST /v1/alerts/alertmanager`: Alertmanager's webhook (payload version 4). Every
 * firing alert starts a run unless it repeats one already running or recently diagnosed;
 * resolved alerts are recorded on their run. 202 lists what each alert did. When the
 * queue has no room for a new run, 503 with Retry-After: Alertmanager retries 5xx, and
 * the alerts accepted meanwhile are recognised as repeats on the retry.
 */
import { sendError } from '../errors.ts';
import { BEARER, type RouteContext, type ZodApp } from '../route-context.ts';
import { alertmanagerPayloadSchema, alertsAcceptedSchema, errorResponses } from '../schemas.ts';

export function registerAlertRoutes(app: ZodApp, context: RouteContext): void {
  app.post(
    '/v1/alerts/alertmanager',
    {
      config: { scope: 'ingest' },
      schema: {
        summary: 'Alertmanager webhook: start a run per firing alert',
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
      request.log.info({ groupKey: request.body.groupKey, alerts: results.length, ...counts }, 'alertmanager notification');
      const refused = counts['queue-full'] ?? 0;
      if (refused > 0) {
        reply.header('retry-after', String(context.runs.retryAfterSeconds()));
        return sendError(reply, 503, {
          error: 'queue-full',
          message: `the run queue is full: ${refused} of ${results.length} alerts were not accepted; retry later`,
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
