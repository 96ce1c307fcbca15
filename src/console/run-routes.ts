/**
 * The console's run pages: the list at `/` (and its `?fragment=rows` for live updates),
 * a run at `/runs/:id`, an action at `/runs/:id/actions/:actionId`, and the decision a
 * person with the approve ability posts from it. Everything shown passes `toRunView`
 * (redacted) or, for audit payloads, the redactor (trail.ts), and is escaped (html.ts).
 */
import { deciderNameSchema } from '../server/schemas.ts';
import type { RouteContext, ZodApp } from '../server/route-context.ts';
import { toRunView } from '../runs/run-view.ts';
import { renderActionPage } from './pages/action.ts';
import { renderErrorPage } from './pages/layout.ts';
import { NOTICES, renderRunPage, type NoticeCode } from './pages/run.ts';
import { parseRunFilters, renderRunRows, renderRunsPage, rowsSignature } from './pages/runs-list.ts';
import { formFields, isGenuinePost, refuseForgedPost, requirePerson, seeOther, sendPage } from './respond.ts';
import type { Person, Sessions } from './session.ts';
import { buildTrail } from './trail.ts';

const HIDDEN = { schema: { hide: true } };
const PAGE_SIZE = 50;
const REASON_MAX = 1000;

interface RunParams {
  id: string;
  actionId?: string;
}

export function registerRunPages(app: ZodApp, context: RouteContext, sessions: Sessions): void {
  app.get('/', HIDDEN, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const fragment = query.fragment === 'rows';
    // Live updates are a script's fetch: a redirect to the sign-in page would land in the table, so it gets a 401.
    const person = fragment ? sessions.personOf(request) : requirePerson(request, reply, sessions);
    if (!person) return fragment ? reply.code(401).type('text/plain; charset=utf-8').send('signed out') : reply;
    const { filters, cursor } = parseRunFilters(query);
    const page = await context.store.list({
      limit: PAGE_SIZE,
      ...(cursor !== undefined ? { before: cursor } : {}),
      ...filters,
    });
    const runs = page.runs.map(toRunView);
    if (fragment) {
      const rows = renderRunRows(runs);
      return reply.type('text/html; charset=utf-8').header('x-rows-signature', rowsSignature(rows)).send(rows.value);
    }
    return sendPage(
      reply,
      200,
      renderRunsPage({
        person,
        runs,
        filters,
        ...(cursor !== undefined ? { cursor } : {}),
        ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}),
      }),
    );
  });

  app.get('/runs/:id', HIDDEN, async (request, reply) => {
    const person = requirePerson(request, reply, sessions);
    if (!person) return reply;
    const { id } = request.params as RunParams;
    const run = await context.store.get(id);
    if (!run)
      return notFound(
        reply,
        person,
        'Run not found',
        'There is no run with this id: it may have been removed by retention.',
      );
    const events = await context.audit.list(id);
    const problems = (await context.audit.verify(id)).problems.map((problem) =>
      problem.seq !== undefined ? `event ${problem.seq}: ${problem.problem}` : problem.problem,
    );
    const notice = (request.query as Record<string, unknown>).notice;
    return sendPage(
      reply,
      200,
      renderRunPage({
        person,
        view: toRunView(run),
        trail: buildTrail(events),
        chain: { events: events.map(({ seq, type, time, hash }) => ({ seq, type, time, hash })), problems },
        ...(typeof notice === 'string' && Object.hasOwn(NOTICES, notice) ? { notice: notice as NoticeCode } : {}),
      }),
    );
  });

  app.get('/runs/:id/actions/:actionId', HIDDEN, async (request, reply) => {
    const person = requirePerson(request, reply, sessions);
    if (!person) return reply;
    const { id, actionId } = request.params as RunParams;
    const run = await context.store.get(id);
    const view = run ? toRunView(run) : undefined;
    const action = view?.actions.find((candidate) => candidate.id === actionId);
    if (!view || !action)
      return notFound(
        reply,
        person,
        'Action not found',
        view ? `Run ${view.id} has no such action.` : 'There is no run with this id.',
      );
    return sendPage(reply, 200, renderActionPage({ person, view, action }));
  });

  app.post('/runs/:id/actions/:actionId/decision', HIDDEN, async (request, reply) => {
    const { id, actionId = '' } = request.params as RunParams;
    const person = sessions.personOf(request);
    if (!person) return seeOther(reply, `/login?next=${encodeURIComponent(`/runs/${id}/actions/${actionId}`)}`);
    request.identity = person.identity;
    const fields = formFields(request.body);
    if (!isGenuinePost(request, person, fields)) return refuseForgedPost(reply, person);
    if (!person.canApprove) {
      return sendPage(
        reply,
        403,
        renderErrorPage({
          title: 'Not allowed',
          message: 'Deciding a held action needs an approve token. Sign out and sign in with one.',
          person,
        }),
      );
    }
    const decision = fields.decision;
    const reason = (fields.reason ?? '').trim();
    const name = (fields.by ?? '').trim();
    if (
      (decision !== 'approved' && decision !== 'rejected') ||
      reason.length > REASON_MAX ||
      (name !== '' && !deciderNameSchema.safeParse(name).success)
    ) {
      return sendPage(
        reply,
        400,
        renderErrorPage({
          title: 'Nothing was decided',
          message: `Choose Approve or Reject; a name is up to 100 letters, digits, spaces and . @ + - _; a reason up to ${REASON_MAX} characters.`,
          person,
        }),
      );
    }
    // As the API records it: the name the person gave, beside the token that was used.
    const by = name ? `${name} (${person.identity})` : person.identity;
    const result = await context.runs.decideAction({
      runId: id,
      actionId,
      decision,
      by,
      ...(reason ? { reason } : {}),
    });
    if (result.outcome === 'not-found')
      return notFound(reply, person, 'Action not found', 'There is no such run or action.');
    const runPath = `/runs/${encodeURIComponent(id)}`;
    if (result.outcome === 'not-pending') return seeOther(reply, `${runPath}?notice=not-pending`);
    request.log.info({ runId: id, actionId, decision, by, via: 'console' }, 'action decided');
    return seeOther(reply, `${runPath}?notice=${decision}`);
  });
}

function notFound(
  reply: Parameters<typeof sendPage>[0],
  person: Person,
  title: string,
  message: string,
): ReturnType<typeof sendPage> {
  return sendPage(reply, 404, renderErrorPage({ title, message, person }));
}
