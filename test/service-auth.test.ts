import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { decideAuth, isLoopback } from '../src/server/listen-policy.ts';
import { loadConfig } from '../src/config.ts';
import { createAuthenticator } from '../src/server/auth.ts';
import { readTokens, TokenFileError } from '../src/server/tokens.ts';
import { firingAlert, notification, startTestApp, TOKENS } from './helpers/service-app.ts';

const routes = [
  { method: 'POST', url: '/v1/alerts/alertmanager', scope: 'ingest', body: notification([firingAlert()]) },
  { method: 'POST', url: '/v1/incidents', scope: 'ingest', body: { text: 'checkout is down' } },
  { method: 'GET', url: '/v1/runs', scope: 'read' },
  { method: 'GET', url: '/v1/runs/some-run', scope: 'read' },
  { method: 'GET', url: '/v1/runs/some-run/audit', scope: 'read' },
  { method: 'POST', url: '/v1/runs/some-run/actions/act-1/approve', scope: 'approve' },
  { method: 'POST', url: '/v1/runs/some-run/actions/act-1/reject', scope: 'approve' },
] as const;

test('every API route answers 401 without a token or with a wrong one, and 403 with another scope', async (t) => {
  const { call } = await startTestApp(t);
  for (const route of routes) {
    const body = 'body' in route ? route.body : undefined;
    const missing = await call({ method: route.method, url: route.url, scope: null, body });
    assert.equal(missing.statusCode, 401, `${route.url} without a token`);
    assert.equal(missing.json().error, 'unauthorized');
    assert.match(missing.json().message, new RegExp(`scope "${route.scope}"`));
    assert.match(String(missing.headers['www-authenticate']), /^Bearer /);

    const wrong = await call({ method: route.method, url: route.url, scope: null, body, headers: { authorization: 'Bearer not-a-token-of-this-service' } });
    assert.equal(wrong.statusCode, 401, `${route.url} with a wrong token`);
    assert.deepEqual(wrong.json(), { error: 'unauthorized', message: 'the bearer token is not valid' });

    const other = route.scope === 'read' ? 'ingest' : 'read';
    const forbidden = await call({ method: route.method, url: route.url, scope: other, body });
    assert.equal(forbidden.statusCode, 403, `${route.url} with the ${other} token`);
    assert.deepEqual(forbidden.json(), { error: 'forbidden', message: `this token does not have the "${route.scope}" scope` });

    const allowed = await call({ method: route.method, url: route.url, scope: route.scope, body });
    assert.ok(allowed.statusCode !== 401 && allowed.statusCode !== 403, `${route.url} with the ${route.scope} token: ${allowed.statusCode}`);
  }
});

test('health, readiness, metrics and the OpenAPI document need no token', async (t) => {
  const { call } = await startTestApp(t);
  for (const url of ['/healthz', '/readyz', '/metrics', '/openapi.json']) {
    assert.equal((await call({ method: 'GET', url, scope: null })).statusCode, 200, url);
  }
});

test('a scheme other than Bearer, or a token with spaces, is not a token', () => {
  const authenticator = createAuthenticator({ mode: 'tokens', tokens: { ingest: [TOKENS.ingest], read: [], approve: [] } });
  assert.equal(authenticator.check(`Basic ${TOKENS.ingest}`, 'ingest').ok, false);
  assert.equal(authenticator.check(`Bearer ${TOKENS.ingest} extra`, 'ingest').ok, false);
  assert.equal(authenticator.check(`bearer  ${TOKENS.ingest}`, 'ingest').ok, true);
});

test('a token is named in logs and audit by its scope and a hash prefix, never by itself', () => {
  const authenticator = createAuthenticator({ mode: 'tokens', tokens: { ingest: [], read: [], approve: [TOKENS.approve] } });
  const result = authenticator.check(`Bearer ${TOKENS.approve}`, 'approve');
  assert.ok(result.ok);
  assert.match(result.identity, /^approve#[0-9a-f]{8}$/);
  assert.ok(!result.identity.includes(TOKENS.approve));
});

test('tokens come from the environment and from one file per scope, one per line', async (t) => {
  const directory = await mkdtemp(join(tmpdir(), 'kubewhy-tokens-'));
  t.after(() => rm(directory, { recursive: true, force: true }));
  await writeFile(join(directory, 'ingest'), `# Alertmanager\n${TOKENS.ingest}\n\nsecond-ingest-token-0123456789\n`);
  await writeFile(join(directory, 'approve'), `${TOKENS.approve}\n`);
  const tokens = await readTokens({ mode: 'tokens', tokensDir: directory, tokens: { read: TOKENS.read } });
  assert.deepEqual(tokens, { ingest: [TOKENS.ingest, 'second-ingest-token-0123456789'], read: [TOKENS.read], approve: [TOKENS.approve] });

  await writeFile(join(directory, 'read'), 'short\n');
  await assert.rejects(readTokens({ mode: 'tokens', tokensDir: directory, tokens: {} }), TokenFileError);
});

test('without tokens the service serves loopback only, unauthenticated, and says so; elsewhere it refuses unless auth is off', () => {
  const none = { ingest: [], read: [], approve: [] };
  const loopback = decideAuth(loadConfig({ KUBEWHY_HOST: '127.0.0.1' }), none);
  assert.ok('settings' in loopback);
  assert.equal(loopback.settings.mode, 'off');
  assert.match(loopback.warning ?? '', /no tokens configured: listening on loopback/);

  const exposed = decideAuth(loadConfig({ KUBEWHY_HOST: '0.0.0.0' }), none);
  assert.ok('refusal' in exposed);
  assert.match(exposed.refusal, /refusing to listen on 0\.0\.0\.0 without tokens/);

  const off = decideAuth(loadConfig({ KUBEWHY_HOST: '0.0.0.0', KUBEWHY_AUTH: 'off' }), none);
  assert.ok('settings' in off);
  assert.equal(off.settings.mode, 'off');
  assert.match(off.warning ?? '', /authentication is off/);

  const withTokens = decideAuth(loadConfig({ KUBEWHY_HOST: '0.0.0.0' }), { ...none, ingest: [TOKENS.ingest] });
  assert.ok('settings' in withTokens);
  assert.equal(withTokens.settings.mode, 'tokens');
  assert.equal(withTokens.warning, undefined);

  assert.deepEqual(['127.0.0.1', '127.1.2.3', '::1', 'localhost', '0.0.0.0', '10.0.0.1', '::'].map(isLoopback), [true, true, true, true, false, false, false]);
});

test('with auth off every route answers without a token', async (t) => {
  const { call } = await startTestApp(t, { auth: { mode: 'off' } });
  const response = await call({ method: 'POST', url: '/v1/incidents', scope: null, body: { text: 'checkout is down' } });
  assert.equal(response.statusCode, 202);
  assert.equal((await call({ method: 'GET', url: '/v1/runs', scope: null })).statusCode, 200);
});
