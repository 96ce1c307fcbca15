/**
 * Deciding a held action: `POST /v1/runs/:id/actions/:actionId/approve` and `…/reject`
 * (scope `approve`). 404 for an unknown run or action, 409 when the action is not
 * awaiting approval (proposed only, decided already, expired) or not yet put to a person
 * (a held action is, with the run's diagnosis, once the model has submitted it). The decision is stored on
 * the parked run and audited with who decided: the token's identity, and the `by` name
 * when the body gives one; once no action of the run awaits a decision, the run resumes.
 */
import { sendError } from '../errors.ts';
import { BEARER, type RouteContext, type ZodApp } from '../route-context.ts';
import { actionParamsSchema, decisionBodySchema, decisionResultSchema, errorResponses } from '../schemas.ts';

export function registerApprovalRoutes(app: ZodApp, context: RouteContext): void {
  for (const [verb, decision] of [
    ['approve', 'approved'],
    ['reject', 'rejected'],
  ] as const) {
    app.post(
      `/v1/runs/:id/actions/:actionId/${verb}`,
      {
        config: { scope: 'approve' },
        schema: {
          summary:
            verb === 'approve'
              ? 'Approve a held action: it is dry-run, then executed'
              : 'Reject a held action: it never runs',
          tags: ['approvals'],
          security: BEARER,
          params: actionParamsSchema,
          body: decisionBodySchema,
          response: { 200: decisionResultSchema, ...errorResponses([400, 401, 403, 404, 409] as const) },
        },
      },
      async (request, reply) => {
        const { id, actionId } = request.params;
        const run = await context.store.get(id);
        if (!run) return sendError(reply, 404, { error: 'not-found', message: `no run ${id}` });
        if (!run.actions.some((candidate) => candidate.id === actionId))
          return sendError(reply, 404, { error: 'not-found', message: `run ${id} has no action ${actionId}` });
        const by = request.body?.by ? `${request.body.by} (${request.identity})` : request.identity;
        const result = await context.runs.decideAction({
          runId: id,
          actionId,
          decision,
          by,
          ...(request.body?.reason ? { reason: request.body.reason } : {}),
        });
        if (result.outcome === 'not-found')
          return sendError(reply, 404, { error: 'not-found', message: `run ${id} has no action ${actionId}` });
        if (result.outcome === 'not-pending') {
          const status =
            result.status !== 'awaiting_approval'
              ? result.status
              : run.status === 'running'
                ? 'not yet put to a person (it is, with the diagnosis, once the run has one)'
                : 'no longer held (the run stopped waiting)';
          return sendError(reply, 409, {
            error: 'conflict',
            message: `action ${actionId} is not awaiting approval: it is ${status}`,
            details: { status: result.status },
          });
        }
        request.log.info({ runId: id, actionId, decision, by }, 'action decided');
        return { runId: id, actionId, decision, by, decidedAt: result.decidedAt };
      },
    );
  }
}
