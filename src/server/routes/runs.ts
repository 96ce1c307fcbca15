/**
 * Reading runs: `GET /v1/runs` (newest first, paged by cursor, optionally by status,
 * namespace, diagnosis category and cluster),
 * `GET /v1/runs/:id` (one run with its diagnosis, usage and actions), and
 * `GET /v1/runs/:id/audit` (its audit events in order; NDJSON on request).
 */
import { z } from 'zod';
import { sendError } from '../errors.ts';
import { BEARER, type RouteContext, type ZodApp } from '../route-context.ts';
import { toRunView } from '../../runs/run-view.ts';
import {
  auditEventSchema,
  auditQuerySchema,
  errorResponses,
  runIdParamsSchema,
  runListQuerySchema,
  runListSchema,
  runViewSchema,
} from '../schemas.ts';

export function registerRunRoutes(app: ZodApp, context: RouteContext): void {
  app.get(
    '/v1/runs',
    {
      config: { scope: 'read' },
      schema: {
        summary: 'List runs, newest first',
        tags: ['runs'],
        security: BEARER,
        querystring: runListQuerySchema,
        response: { 200: runListSchema, ...errorResponses([400, 401, 403] as const) },
      },
    },
    async (request) => {
      const { limit, cursor, status, namespace, category, cluster } = request.query;
      const page = await context.store.list({
        limit,
        ...(cursor !== undefined ? { before: cursor } : {}),
        ...(status ? { status } : {}),
        ...(namespace ? { namespace } : {}),
        ...(category ? { category } : {}),
        ...(cluster ? { cluster } : {}),
      });
      return {
        runs: page.runs.map(toRunView),
        ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}),
      };
    },
  );

  app.get(
    '/v1/runs/:id',
    {
      config: { scope: 'read' },
      schema: {
        summary: 'One run with its diagnosis',
        tags: ['runs'],
        security: BEARER,
        params: runIdParamsSchema,
        response: { 200: runViewSchema, ...errorResponses([400, 401, 403, 404] as const) },
      },
    },
    async (request, reply) => {
      const run = await context.store.get(request.params.id);
      if (!run) return sendError(reply, 404, { error: 'not-found', message: `no run ${request.params.id}` });
      return toRunView(run);
    },
  );

  app.get(
    '/v1/runs/:id/audit',
    {
      config: { scope: 'read' },
      schema: {
        summary:
          "A run's audit events, in order (JSON array, or NDJSON with Accept: application/x-ndjson or ?format=ndjson)",
        tags: ['runs'],
        security: BEARER,
        params: runIdParamsSchema,
        querystring: auditQuerySchema,
        response: { 200: z.array(auditEventSchema), ...errorResponses([400, 401, 403, 404] as const) },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const events = await context.audit.list(id);
      if (events.length === 0 && !(await context.store.get(id)))
        return sendError(reply, 404, { error: 'not-found', message: `no run ${id}` });
      const ndjson =
        request.query.format === 'ndjson' ||
        (request.query.format === undefined && (request.headers.accept ?? '').includes('application/x-ndjson'));
      if (ndjson) {
        const text = events.map((event) => JSON.stringify(event)).join('\n') + (events.length > 0 ? '\n' : '');
        // A string is sent as it is, past the JSON response schema.
        return reply.type('application/x-ndjson; charset=utf-8').send(text as never);
      }
      return events;
    },
  );
}
