/**
 * `GET /login`, `POST /login` and `POST /logout`. Signing in checks the token with the
 * app's authenticator (a read or an approve token) and keeps it in the session cookie;
 * a wrong token gets the form again with a 401 and no hint of why. With auth off there is
 * nothing to sign in to: the sign-in page sends you to the runs.
 */
import type { ZodApp } from '../server/route-context.ts';
import { renderLoginPage } from './pages/login.ts';
import { formFields, isGenuinePost, refuseForgedPost, seeOther, sendPage } from './respond.ts';
import {
  clearedSessionCookie,
  isHttps,
  isSameOriginPost,
  safeNextPath,
  sessionCookie,
  type Sessions,
} from './session.ts';

const HIDDEN = { schema: { hide: true } };

export function registerSignInRoutes(app: ZodApp, sessions: Sessions): void {
  app.get('/login', HIDDEN, async (request, reply) => {
    const next = safeNextPath((request.query as Record<string, unknown>).next);
    if (sessions.authOff || sessions.personOf(request)) return seeOther(reply, next);
    return sendPage(reply, 200, renderLoginPage({ next }));
  });

  app.post('/login', HIDDEN, async (request, reply) => {
    if (!isSameOriginPost(request)) return refuseForgedPost(reply);
    const fields = formFields(request.body);
    const next = safeNextPath(fields.next);
    if (sessions.authOff) return seeOther(reply, next);
    const token = (fields.token ?? '').trim();
    const person = sessions.personForToken(token);
    if (!person) {
      request.log.warn('console sign-in refused: the token is not a read or approve token');
      return sendPage(
        reply,
        401,
        renderLoginPage({ next, error: 'That token was not accepted. Check it and try again.' }),
      );
    }
    request.identity = person.identity;
    request.log.info({ identity: person.identity }, 'console sign-in');
    reply.header('set-cookie', sessionCookie(token, { secure: isHttps(request) }));
    return seeOther(reply, next);
  });

  app.post('/logout', HIDDEN, async (request, reply) => {
    const person = sessions.personOf(request);
    // A session that is already gone (rotated token) may still clear its cookie; a live one needs the form's CSRF value.
    if (person ? !isGenuinePost(request, person, formFields(request.body)) : !isSameOriginPost(request))
      return refuseForgedPost(reply, person);
    reply.header('set-cookie', clearedSessionCookie({ secure: isHttps(request) }));
    return seeOther(reply, sessions.authOff ? '/' : '/login');
  });
}
