/**
 * How console routes answer: HTML pages, 303 redirects, the sign-in redirect for a person
 * without a session, and the refusal of a POST that did not come from a console page.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { renderErrorPage } from './pages/layout.ts';
import { isSameOriginPost, isValidCsrf, type Person, type Sessions } from './session.ts';

/** Set on every console answer (plugin.ts): only this origin's assets, no framing, nothing cached. */
export const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
} as const;

export function sendPage(reply: FastifyReply, status: number, page: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(page);
}

/** 303 See Other: after a POST, and to the sign-in page. */
export function seeOther(reply: FastifyReply, location: string): FastifyReply {
  return reply.redirect(location, 303);
}

/** The person behind the request, or undefined after answering with a redirect to sign in (back to this page afterwards). */
export function requirePerson(request: FastifyRequest, reply: FastifyReply, sessions: Sessions): Person | undefined {
  const person = sessions.personOf(request);
  if (person) {
    request.identity = person.identity;
    return person;
  }
  void seeOther(reply, `/login?next=${encodeURIComponent(request.url)}`);
  return undefined;
}

/** A 403 page for a POST that came from elsewhere or without the page's CSRF value. */
export function refuseForgedPost(reply: FastifyReply, person?: Person): FastifyReply {
  return sendPage(
    reply,
    403,
    renderErrorPage({
      title: 'Form refused',
      message:
        'This form did not come from a current page of this console (it may have been open since before a restart, or sent from another site). Nothing was changed. Go back, reload the page and try again.',
      ...(person ? { person } : {}),
    }),
  );
}

/** Whether a POST from a signed-in page passes the origin check and carries the person's CSRF value. */
export function isGenuinePost(request: FastifyRequest, person: Person, body: Record<string, string>): boolean {
  return isSameOriginPost(request) && isValidCsrf(person, body.csrf);
}

/** A form body as the console's parser gives it: one string per field, nothing else. */
export function formFields(body: unknown): Record<string, string> {
  if (body === null || typeof body !== 'object') return {};
  return Object.fromEntries(
    Object.entries(body).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}
