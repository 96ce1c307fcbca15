import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { test } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { createAuthenticator } from '../server/auth.ts';
import {
  clearedSessionCookie,
  createSessions,
  csrfFor,
  isSameOriginPost,
  isValidCsrf,
  readCookie,
  safeNextPath,
  sessionCookie,
} from './session.ts';

const READ = 'read-token-0123456789abcdef';
const APPROVE = 'approve-token-0123456789abcdef';

function request(headers: Record<string, string>, protocol: 'http' | 'https' = 'http'): FastifyRequest {
  return { headers, protocol, host: headers.host ?? 'kubewhy.example' } as unknown as FastifyRequest;
}

test('the CSRF value is HMAC-SHA256 keyed by the sha256 of the token, over "kubewhy-console-csrf"', () => {
  const expected = createHmac('sha256', createHash('sha256').update(READ).digest())
    .update('kubewhy-console-csrf')
    .digest('hex');
  assert.equal(csrfFor(READ), expected);
  assert.notEqual(csrfFor(APPROVE), expected);
});

test('a read token may look; an approve token may look and decide; any other token is no one', () => {
  const sessions = createSessions(
    createAuthenticator({
      mode: 'tokens',
      tokens: { read: [READ], approve: [APPROVE], ingest: ['ingest-token-0123456789abcdef'] },
    }),
  );
  const reader = sessions.personForToken(READ);
  assert.deepEqual(
    { ...reader, identity: reader?.identity.split('#')[0] },
    { identity: 'read', canApprove: false, csrf: csrfFor(READ), signedIn: true },
  );
  assert.equal(sessions.personForToken(APPROVE)?.canApprove, true);
  assert.equal(sessions.personForToken('ingest-token-0123456789abcdef'), undefined);
  assert.equal(sessions.personForToken(''), undefined);
  assert.equal(
    sessions.personOf(request({ cookie: `other=1; kubewhy_session=${encodeURIComponent(APPROVE)}` }))?.canApprove,
    true,
  );
  assert.equal(sessions.personOf(request({})), undefined);
});

test('with auth off everyone is anonymous and may decide', () => {
  const person = createSessions(createAuthenticator({ mode: 'off' })).personOf(request({}));
  assert.equal(person?.identity, 'anonymous');
  assert.equal(person?.canApprove, true);
  assert.equal(person?.signedIn, false);
});

test("a submitted CSRF value must be the person's own", () => {
  const person = { identity: 'read#1', canApprove: false, csrf: csrfFor(READ), signedIn: true };
  assert.equal(isValidCsrf(person, csrfFor(READ)), true);
  assert.equal(isValidCsrf(person, csrfFor(APPROVE)), false);
  assert.equal(isValidCsrf(person, undefined), false);
  assert.equal(isValidCsrf(person, 'short'), false);
});

test('a POST passes the origin check from this host only, and never when the browser says cross-site', () => {
  assert.equal(isSameOriginPost(request({})), true, 'no Origin header (curl): the CSRF value still decides');
  assert.equal(isSameOriginPost(request({ origin: 'http://kubewhy.example' })), true);
  assert.equal(isSameOriginPost(request({ origin: 'http://kubewhy.example:80', host: 'kubewhy.example' })), true);
  assert.equal(isSameOriginPost(request({ origin: 'http://evil.example' })), false);
  assert.equal(isSameOriginPost(request({ origin: 'null' })), false);
  assert.equal(isSameOriginPost(request({ 'sec-fetch-site': 'cross-site' })), false);
  assert.equal(
    isSameOriginPost(request({ origin: 'http://kubewhy.example' }, 'https')),
    false,
    'an http page may not post to the https console',
  );
  assert.equal(isSameOriginPost(request({ origin: 'https://kubewhy.example', 'x-forwarded-proto': 'https' })), true);
});

test('cookies: set with every attribute, cleared the same way, read back by name', () => {
  assert.equal(
    sessionCookie('a b;c', { secure: false }),
    'kubewhy_session=a%20b%3Bc; HttpOnly; SameSite=Strict; Path=/; Max-Age=28800',
  );
  assert.equal(
    clearedSessionCookie({ secure: true }),
    'kubewhy_session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0; Secure',
  );
  assert.equal(readCookie('x=1; kubewhy_session=a%20b%3Bc', 'kubewhy_session'), 'a b;c');
  assert.equal(readCookie('kubewhy_session=%E0%A4%A', 'kubewhy_session'), undefined);
  assert.equal(readCookie(undefined, 'kubewhy_session'), undefined);
});

test('after signing in, only a local path is followed', () => {
  for (const [next, expected] of [
    ['/runs/abc?x=1', '/runs/abc?x=1'],
    ['/', '/'],
    ['//evil.example', '/'],
    ['/\\evil.example', '/'],
    ['https://evil.example/', '/'],
    ['javascript:alert(1)', '/'],
    ['/login?next=/x', '/'],
    ['/runs/\nx', '/'],
    [undefined, '/'],
  ] as const) {
    assert.equal(safeNextPath(next), expected, String(next));
  }
});
