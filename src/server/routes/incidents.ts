/**
 * `POST /v1/incidents`: a person's sentence starts a run. 202 with the run as stored
 * (queued); with `?wait=SECONDS`, 200 with the finished run when it ends in time, else
 * 202 with its state then. 503 with Retry-After when the queue is full.
 *
 * The rung is never the payload's alone: `rung: ACT` also needs a token with the `act`
 * scope (403 otherwise), and policy still caps it per namespace.
 */
import { sendError } from '../errors.ts';
import { BEARER, type RouteContext, type ZodApp } from '../route-context.ts';
import { toRunView } from '../../runs/run-view.ts';
import { errorResponses, incidentBodySchema, incidentQuerySchema, runViewSchema } from '../schemas.ts';
import { isFinished } from '../../store/run-store.ts';

export function registerIncidentRoutes(app: ZodApp, context: RouteContext): void {
  app.post(
    '/v1/incidents',
    {
      config: { scope: 'ingest' },
      schema: {
        summary: 'Diagnose an incident described in a sentence',
        tags: ['ingest'],
        security: BEARER,
        body: incidentBodySchema,
        querystring: incidentQuerySchema,
        response: {
          200: runViewSchema,
          202: runViewSchema,
          ...errorResponses([400, 401, 403, 413, 415, 503] as const),
        },
      },
    },
    async (request, reply) => {
      const { text, namespace, rung } = request.body;
      if (rung === 'ACT' && !context.hasScope(request.headers.authorization, 'act')) {
        return sendError(reply, 403, {
          error: 'forbidden',
          message: 'rung ACT needs a token that also has the "act" scope; ask for OBSERVE, or use a token granted act',
        });
      }
      const submitted = await context.runs.submit({
        trigger: { kind: 'incident', text, ...(namespace ? { namespace } : {}) },
        rung,
        source: 'api',
      });
      if (!submitted.ok) {
        reply.header('retry-after', String(context.runs.retryAfterSeconds()));
        return sendError(reply, 503, { error: 'queue-full', message: 'the run queue is full; retry later' });
      }
      const id = submitted.run.id;
      request.log.info({ runId: id, rung }, 'incident accepted');
      reply.header('location', `/v1/runs/${id}`);
      const waitSeconds = request.query.wait ?? 0;
      const run =
        waitSeconds > 0 ? ((await context.runs.waitForEnd(id, waitSeconds * 1000)) ?? submitted.run) : submitted.run;
      return reply.code(isFinished(run.status) ? 200 : 202).send(toRunView(run));
    },
  );
}
