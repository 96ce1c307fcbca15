/**
 * Who is looking at the console, from the session cookie, and the checks every POST
 * passes. The cookie holds the token itself (HttpOnly, SameSite=Strict): each request
 * checks it again with the app's authenticator, so a token rotated away stops working on
 * the next page. The CSRF value is derived from the token (HMAC-SHA256 keyed by its
 * sha256), so it needs no server state and holds across restarts and replicas.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Authenticator } from '../server/auth.ts';

export const SESSION_COOKIE = 'kubewhy_session';
/** Eight hours: one on-call shift. */
export const SESSION_MAX_AGE_SECONDS = 8 * 3600;
const CSRF_MESSAGE = 'kubewhy-console-csrf';

export interface Person {
  /** The token's identity (`approve#1a2b3c4d`), or `anonymous` with auth off. */
  identity: string;
  /** May decide held actions. */
  canApprove: boolean;
  /** The value every POST form of this person carries. */
  csrf: string;
  /** False with auth off: there is nothing to sign out of. */
  signedIn: boolean;
}

export interface Sessions {
  /** The person behind the request's cookie, or undefined when there is none or its token no longer passes. */
  personOf(request: FastifyRequest): Person | undefined;
  /** The person a token makes, or undefined when it is neither a read nor an approve token. */
  personForToken(token: string): Person | undefined;
  readonly authOff: boolean;
}

export function createSessions(authenticator: Authenticator): Sessions {
  // With auth off there is no token to derive the CSRF value from: a per-process key
  // stands in (a form left open across a restart is refused once and works on reload).
  const anonymousCsrf = createHmac('sha256', randomBytes(32)).update(CSRF_MESSAGE).digest('hex');
  const personForToken = (token: string): Person | undefined => {
    if (token === '' || /\s/.test(token)) return undefined;
    const authorization = `Bearer ${token}`;
    // A person trusted to decide must see the evidence they decide on: an approve token may also look.
    const approve = authenticator.check(authorization, 'approve');
    if (approve.ok) return { identity: approve.identity, canApprove: true, csrf: csrfFor(token), signedIn: true };
    const read = authenticator.check(authorization, 'read');
    if (read.ok) return { identity: read.identity, canApprove: false, csrf: csrfFor(token), signedIn: true };
    return undefined;
  };
  return {
    authOff: authenticator.mode === 'off',
    personForToken,
    personOf(request) {
      if (authenticator.mode === 'off')
        return { identity: 'anonymous', canApprove: true, csrf: anonymousCsrf, signedIn: false };
      const token = readCookie(request.headers.cookie, SESSION_COOKIE);
      return token === undefined ? undefined : personForToken(token);
    },
  };
}

/** HMAC-SHA256(key = sha256(token), "kubewhy-console-csrf"), hex. */
export function csrfFor(token: string): string {
  const key = createHash('sha256').update(token).digest();
  return createHmac('sha256', key).update(CSRF_MESSAGE).digest('hex');
}

/** Whether a submitted CSRF value is the person's, compared in constant time. */
export function isValidCsrf(person: Person, submitted: unknown): boolean {
  if (typeof submitted !== 'string' || submitted.length !== person.csrf.length) return false;
  return timingSafeEqual(Buffer.from(submitted), Buffer.from(person.csrf));
}

/**
 * Whether a POST may come from where it says: refused when the browser says it is
 * cross-site (`Sec-Fetch-Site: cross-site`) or sends an `Origin` whose host is not the
 * one the request was made to (`Origin: null` included). A request without either header
 * (curl, an old browser) passes this check and still needs the CSRF value.
 */
export function isSameOriginPost(request: FastifyRequest): boolean {
  if (request.headers['sec-fetch-site'] === 'cross-site') return false;
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  try {
    const url = new URL(origin);
    // Parsed with the origin's scheme, so that a default port (`host:80`) compares equal to none.
    if (url.host !== new URL(`${url.protocol}//${request.host}`).host) return false;
    return !isHttps(request) || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * Whether the person reached us over https: the connection itself (`request.protocol`,
 * which honours Fastify's trustProxy as configured), or a TLS-terminating proxy's
 * `X-Forwarded-Proto: https`. The header is only used to add `Secure` to the cookie and
 * to require an https Origin: a forged one can only make this person's cookie stricter.
 */
export function isHttps(request: FastifyRequest): boolean {
  if (request.protocol === 'https') return true;
  const forwarded = request.headers['x-forwarded-proto'];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim().toLowerCase();
  return first === 'https';
}

/** The Set-Cookie value that starts a session holding `token`. */
export function sessionCookie(token: string, options: { secure: boolean }): string {
  return `${SESSION_COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${SESSION_MAX_AGE_SECONDS}${options.secure ? '; Secure' : ''}`;
}

/** The Set-Cookie value that ends the session. */
export function clearedSessionCookie(options: { secure: boolean }): string {
  return `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0${options.secure ? '; Secure' : ''}`;
}

/** One cookie's value from a Cookie header; undefined when it is absent or not decodable. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const separator = part.indexOf('=');
    if (separator < 0 || part.slice(0, separator).trim() !== name) continue;
    try {
      return decodeURIComponent(part.slice(separator + 1).trim());
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * Where to go after signing in: a local path (`/runs/x?y=1`) and nothing else; anything
 * that could leave this origin (`//evil`, `/\evil`, `https://…`) falls back to `/`.
 */
export function safeNextPath(next: unknown): string {
  if (
    typeof next !== 'string' ||
    !next.startsWith('/') ||
    next.startsWith('//') ||
    next.startsWith('/\\') ||
    next.length > 2048
  )
    return '/';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(next)) return '/';
  const base = 'http://console.invalid';
  try {
    const url = new URL(next, base);
    if (url.origin !== base || url.pathname.startsWith('/login')) return '/';
    return `${url.pathname}${url.search}`;
  } catch {
    return '/';
  }
}
