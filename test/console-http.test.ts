/**
 * The web console over HTTP (app.inject): signing in and out, the session cookie's
 * attributes, CSRF and cross-origin refusals, the runs list's filters and paging, what a
 * read token and an approve token may do on a held action, and that what people, alerts
 * and the cluster wrote is escaped and redacted on every page.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { createHash, createHmac } from 'node:crypto';
import { buildServiceApp } from '../src/app/service.ts';
import { createAuthenticator } from '../src/server/auth.ts';
import { createLogger } from '../src/logger.ts';
import { openDatabase } from '../src/store/database.ts';
import { createRunStore } from '../src/store/run-store.ts';
import { createToolRegistry } from '../src/tools/registry.ts';
import { createRecordingTools, demoDiagnosis, unusedCluster } from './helpers/fake-tools.ts';
import { createInvestigatingModel, startTestApp, TEST_LIMITS, TOKENS, type TestApp } from './helpers/service-app.ts';

const undo = { id: 'call-undo', name: 'rollout_undo', input: { namespace: 'staging', name: 'checkout-api' } };
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const HOST = 'localhost:80';

/** The session cookie a sign-in with `token` sets (name=value only). */
async function signIn(app: TestApp, token: string): Promise<string> {
  const response = await post(app, '/login', { token, next: '/' });
  assert.equal(response.statusCode, 303, response.body);
  return sessionOf(response);
}

function sessionOf(response: LightMyRequestResponse): string {
  const header = String(response.headers['set-cookie'] ?? '');
  const match = /^(kubewhy_session=[^;]*)/.exec(header);
  assert.ok(match?.[1], `a session cookie is set: ${header}`);
  return match[1];
}

function post(
  app: TestApp,
  url: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return app.app.inject({
    method: 'POST',
    url,
    headers: { ...FORM, host: HOST, ...headers },
    payload: new URLSearchParams(fields).toString(),
  });
}

function page(app: TestApp, url: string, cookie?: string): Promise<LightMyRequestResponse> {
  return app.app.inject({ method: 'GET', url, headers: { host: HOST, ...(cookie ? { cookie } : {}) } });
}

function csrfOf(body: string): string {
  const match = /name="csrf" value="([0-9a-f]{64})"/.exec(body);
  assert.ok(match?.[1], 'the page carries a CSRF field');
  return match[1];
}

async function startHeldRun(
  app: TestApp,
  text = 'checkout-api in staging keeps restarting',
): Promise<{ runId: string; actionId: string }> {
  const response = await app.call({
    method: 'POST',
    url: '/v1/incidents',
    scope: 'ingestAct',
    body: { text, namespace: 'staging', rung: 'ACT' },
  });
  const runId = response.json().id as string;
  const held = await app.waitForRun(runId, (run) => run.status === 'awaiting_approval');
  return { runId, actionId: (held.actions as { id: string }[])[0]!.id };
}

test('a person without a session is sent to sign in, and comes back to the page they asked for', async (t) => {
  const app = await startTestApp(t);
  const response = await page(app, '/?status=completed');
  assert.equal(response.statusCode, 303);
  assert.equal(response.headers.location, `/login?next=${encodeURIComponent('/?status=completed')}`);

  const login = await page(app, '/login?next=%2F%3Fstatus%3Dcompleted');
  assert.equal(login.statusCode, 200);
  assert.match(String(login.headers['content-type']), /^text\/html/);
  assert.match(login.body, /<html lang="en">/);
  assert.match(login.body, /<label for="token">Token<\/label>/);
  assert.match(login.body, /<input id="token" name="token" type="password"/);
  assert.match(login.body, /name="next" value="\/\?status=completed"/);

  const signedIn = await post(app, '/login', { token: TOKENS.read, next: '/?status=completed' });
  assert.equal(signedIn.statusCode, 303);
  assert.equal(signedIn.headers.location, '/?status=completed');
});

test('the session cookie is HttpOnly, SameSite=Strict, Path=/, eight hours, and Secure only over https', async (t) => {
  const app = await startTestApp(t);
  const plain = await post(app, '/login', { token: TOKENS.read });
  assert.equal(
    plain.headers['set-cookie'],
    `kubewhy_session=${TOKENS.read}; HttpOnly; SameSite=Strict; Path=/; Max-Age=28800`,
  );
  const behindTls = await post(app, '/login', { token: TOKENS.approve }, { 'x-forwarded-proto': 'https' });
  assert.equal(
    behindTls.headers['set-cookie'],
    `kubewhy_session=${TOKENS.approve}; HttpOnly; SameSite=Strict; Path=/; Max-Age=28800; Secure`,
  );
});

test('a wrong token, or a token of another scope, gets the form again with a 401, no cookie and the same words', async (t) => {
  const app = await startTestApp(t);
  const wrong = await post(app, '/login', { token: 'not-a-token-at-all-0123456789' });
  const ingest = await post(app, '/login', { token: TOKENS.ingest });
  for (const response of [wrong, ingest]) {
    assert.equal(response.statusCode, 401);
    assert.equal(response.headers['set-cookie'], undefined);
    assert.match(response.body, /role="alert"[^>]*><p>That token was not accepted\. Check it and try again\.<\/p>/);
    assert.match(response.body, /<input id="token" name="token" type="password"/);
  }
  assert.equal(wrong.body, ingest.body, 'nothing tells a wrong token from one of another scope');
});

test('signing in sends a person only to a local path', async (t) => {
  const app = await startTestApp(t);
  for (const next of [
    '//evil.example/x',
    'https://evil.example/',
    '/\\evil.example',
    'javascript:alert(1)',
    '/login?next=/',
  ]) {
    const response = await post(app, '/login', { token: TOKENS.read, next });
    assert.equal(response.headers.location, '/', next);
  }
  assert.equal(
    (await post(app, '/login', { token: TOKENS.read, next: '/runs/abc?x=1' })).headers.location,
    '/runs/abc?x=1',
  );
});

test('every console page carries the security headers and nothing of it is in /openapi.json', async (t) => {
  const app = await startTestApp(t);
  const cookie = await signIn(app, TOKENS.read);
  for (const url of ['/login', '/', '/runs/no-such-run', '/console/assets/console.css']) {
    const response = await page(app, url, url === '/login' ? undefined : cookie);
    assert.equal(
      response.headers['content-security-policy'],
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
      url,
    );
    assert.equal(response.headers['x-content-type-options'], 'nosniff', url);
    assert.equal(response.headers['referrer-policy'], 'same-origin', url);
    assert.ok(response.headers['cache-control'], url);
  }
  assert.equal((await page(app, '/', cookie)).headers['cache-control'], 'no-store');
  const script = await page(app, '/console/assets/console.js');
  assert.match(String(script.headers['content-type']), /^text\/javascript/);
  assert.match(script.body, /fragment/);

  const paths = Object.keys((await page(app, '/openapi.json')).json().paths as Record<string, unknown>);
  assert.ok(paths.includes('/v1/runs') && paths.includes('/v1/runs/{id}/actions/{actionId}/approve'), paths.join(' '));
  assert.deepEqual(
    paths.filter(
      (path) =>
        path === '/' ||
        path.startsWith('/login') ||
        path.startsWith('/logout') ||
        path.startsWith('/runs') ||
        path.startsWith('/console'),
    ),
    [],
  );
  // The JSON API is where it was, and answers JSON.
  assert.deepEqual((await app.call({ method: 'GET', url: '/v1/runs' })).json(), { runs: [] });
});

test('an unknown run is a 404 page', async (t) => {
  const app = await startTestApp(t);
  const cookie = await signIn(app, TOKENS.read);
  const response = await page(app, '/runs/run-that-never-was', cookie);
  assert.equal(response.statusCode, 404);
  assert.match(String(response.headers['content-type']), /^text\/html/);
  assert.match(response.body, /<h1>Run not found<\/h1>/);
  assert.equal((await page(app, '/runs/run-that-never-was/actions/nope', cookie)).statusCode, 404);
});

test('a POST without the CSRF value, with a wrong one, from another origin or cross-site is refused with 403', async (t) => {
  const app = await startTestApp(t, {
    model: createInvestigatingModel({ firstCalls: [undo] }),
    actNamespaces: ['staging'],
  });
  const { runId, actionId } = await startHeldRun(app);
  const cookie = await signIn(app, TOKENS.approve);
  const csrf = csrfOf((await page(app, '/', cookie)).body);
  const expected = createHmac('sha256', createHash('sha256').update(TOKENS.approve).digest())
    .update('kubewhy-console-csrf')
    .digest('hex');
  assert.equal(csrf, expected, 'HMAC-SHA256(sha256(token), "kubewhy-console-csrf")');
  const decision = `/runs/${runId}/actions/${actionId}/decision`;
  const refusals: [string, Record<string, string>, Record<string, string>][] = [
    ['no csrf', { decision: 'approved' }, {}],
    ['wrong csrf', { decision: 'approved', csrf: csrf.replace(/^./, (first) => (first === 'a' ? 'b' : 'a')) }, {}],
    ['another origin', { decision: 'approved', csrf }, { origin: 'https://evil.example' }],
    ['cross-site', { decision: 'approved', csrf }, { 'sec-fetch-site': 'cross-site' }],
    ['Origin null', { decision: 'approved', csrf }, { origin: 'null' }],
  ];
  for (const [what, fields, headers] of refusals) {
    const response = await post(app, decision, fields, { cookie, ...headers });
    assert.equal(response.statusCode, 403, what);
    assert.match(response.body, /Form refused/, what);
  }
  assert.equal((await post(app, '/logout', {}, { cookie })).statusCode, 403, 'signing out needs the CSRF value too');
  assert.equal(
    (await post(app, '/login', { token: TOKENS.read }, { origin: 'https://evil.example' })).statusCode,
    403,
    'a cross-origin sign-in',
  );
  assert.equal((await post(app, '/login', { token: TOKENS.read }, { 'sec-fetch-site': 'cross-site' })).statusCode, 403);
  const run = await app.waitForRun(runId, () => true);
  assert.equal((run.actions as { status: string }[])[0]?.status, 'awaiting_approval', 'nothing was decided');

  const signedOut = await post(
    app,
    '/logout',
    { csrf },
    { cookie, origin: `http://${HOST}`, 'sec-fetch-site': 'same-origin' },
  );
  assert.equal(signedOut.statusCode, 303);
  assert.equal(signedOut.headers.location, '/login');
  assert.equal(signedOut.headers['set-cookie'], 'kubewhy_session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0');
});

test('a read token sees the held action and its diff but no buttons; an approve token approves it and the run completes', async (t) => {
  const app = await startTestApp(t, {
    model: createInvestigatingModel({ firstCalls: [undo] }),
    actNamespaces: ['staging'],
  });
  const { runId, actionId } = await startHeldRun(app);
  const actionPath = `/runs/${runId}/actions/${actionId}`;

  const reader = await signIn(app, TOKENS.read);
  const runPage = await page(app, `/runs/${runId}`, reader);
  assert.equal(runPage.statusCode, 200);
  assert.match(runPage.body, /awaiting approval/);
  assert.ok(runPage.body.includes(`href="${actionPath}"`), 'the held action links to its page');
  assert.match(runPage.body, /<code>rollout_undo<\/code>/, 'the trail shows the write call');
  const readView = await page(app, actionPath, reader);
  assert.match(readView.body, /app: image shop\/checkout:1\.5\.0 → shop\/checkout:1\.4\.2/, 'the dry run diff');
  assert.match(readView.body, /FATAL: password authentication failed/, 'the evidence');
  assert.doesNotMatch(readView.body, />Approve<\/button>|>Reject<\/button>/);
  assert.match(readView.body, /needs an <strong>approve<\/strong> token/);
  const readerCsrf = csrfOf(readView.body);
  const refused = await post(
    app,
    `${actionPath}/decision`,
    { decision: 'approved', csrf: readerCsrf },
    { cookie: reader },
  );
  assert.equal(refused.statusCode, 403, 'a read token cannot decide by posting the form anyway');

  const approver = await signIn(app, TOKENS.approve);
  const approveView = await page(app, actionPath, approver);
  assert.match(
    approveView.body,
    /<button type="submit" name="decision" value="approved" class="button button-approve">Approve<\/button>/,
  );
  assert.match(approveView.body, /<label for="reason">/);
  assert.match(approveView.body, /<label for="by">Your name/);
  const badName = await post(
    app,
    `${actionPath}/decision`,
    { decision: 'approved', by: '<script>', csrf: csrfOf(approveView.body) },
    { cookie: approver, origin: `http://${HOST}` },
  );
  assert.equal(badName.statusCode, 400, 'a name the API would refuse decides nothing');
  const decided = await post(
    app,
    `${actionPath}/decision`,
    { decision: 'approved', by: 'alice', reason: 'rollback is safe', csrf: csrfOf(approveView.body) },
    { cookie: approver, origin: `http://${HOST}` },
  );
  assert.equal(decided.statusCode, 303);
  assert.equal(decided.headers.location, `/runs/${runId}?notice=approved`);

  const run = await app.waitForRun(runId);
  assert.equal(run.status, 'completed');
  const action = (run.actions as { status: string; decidedBy?: string; decisionReason?: string }[])[0];
  assert.equal(action?.status, 'executed');
  assert.match(
    action?.decidedBy ?? '',
    /^alice \(approve#[0-9a-f]{8}\)$/,
    'the name given, beside the token, as the API records it',
  );
  assert.equal(action?.decisionReason, 'rollback is safe');
  assert.deepEqual(app.recording.executed, ['rollout_undo staging/checkout-api']);
  const after = await page(app, `/runs/${runId}?notice=approved`, approver);
  assert.match(after.body, /Approved: the action runs now/);
  assert.match(after.body, /<strong>Verified:<\/strong> the hash chain of \d+ events is intact/);

  const again = await post(
    app,
    `${actionPath}/decision`,
    { decision: 'rejected', csrf: csrfOf(approveView.body) },
    { cookie: approver },
  );
  assert.equal(again.headers.location, `/runs/${runId}?notice=not-pending`, 'deciding twice changes nothing');
});

test('a token rotated away stops working on the next page', async (t) => {
  const database = openDatabase(':memory:');
  const authenticator = createAuthenticator({ mode: 'tokens', tokens: { read: [TOKENS.read] } });
  const app = await buildServiceApp({
    database,
    agent: {
      model: createInvestigatingModel(),
      registry: createToolRegistry(createRecordingTools().tools),
      cluster: unusedCluster,
      policy: { actNamespaces: [] },
      limits: TEST_LIMITS,
    },
    runs: { concurrency: 1, queueSize: 10, dedupWindowMs: 1000, maxAttempts: 1, shutdownGraceMs: 1000 },
    auth: { mode: 'tokens', tokens: {} },
    authenticator,
    bodyLimitBytes: 64 * 1024,
    logger: createLogger({ level: 'silent' }),
    checkCluster: async () => ({ ok: true }),
  });
  t.after(async () => {
    await app.close();
    database.close();
  });
  const signedIn = await app.inject({
    method: 'POST',
    url: '/login',
    headers: { ...FORM, host: HOST },
    payload: `token=${TOKENS.read}`,
  });
  const cookie = String(signedIn.headers['set-cookie']).split(';')[0]!;
  assert.equal((await app.inject({ method: 'GET', url: '/', headers: { cookie } })).statusCode, 200);
  authenticator.replaceTokens({ read: ['read-token-rotated-0123456789'] });
  const after = await app.inject({ method: 'GET', url: '/', headers: { cookie } });
  assert.equal(after.statusCode, 303);
  assert.equal(after.headers.location, '/login?next=%2F');
  assert.equal(
    (await app.inject({ method: 'GET', url: '/?fragment=rows', headers: { cookie } })).statusCode,
    401,
    'the live update is told, not redirected',
  );
});

test('what a person or an alert wrote is shown as text: a hostile incident is escaped, a secret in it redacted', async (t) => {
  const app = await startTestApp(t);
  const hostile = '<img src=x onerror=alert(1)> checkout fails with password=Sup3rS3cretValue99';
  const id = (
    await app.call({
      method: 'POST',
      url: '/v1/incidents',
      scope: 'ingest',
      body: { text: hostile, namespace: 'staging' },
    })
  ).json().id as string;
  await app.waitForRun(id);
  const cookie = await signIn(app, TOKENS.read);
  for (const url of ['/', `/runs/${id}`, '/?fragment=rows']) {
    const body = (await page(app, url, cookie)).body;
    assert.ok(body.includes('&lt;img src=x onerror=alert(1)&gt;'), `${url} shows the text escaped`);
    assert.ok(!body.includes('<img'), `${url} has no img element`);
    assert.ok(!body.includes('Sup3rS3cretValue99'), `${url} never shows the secret`);
    assert.ok(body.includes('password=[REDACTED]'), `${url} shows it redacted`);
  }
});

test('the runs list filters by status, namespace, category and cluster, pages by cursor, and so does GET /v1/runs', async (t) => {
  const database = openDatabase(':memory:');
  t.after(() => database.close());
  // Runs stored before the app starts, ended already: the app lists them and runs none.
  const store = createRunStore(database);
  const clusters = [
    { source: 'kubeconfig' as const, context: 'prod-eu', server: 'https://prod-eu.example:6443' },
    { source: 'mock' as const, server: 'http://127.0.0.1:1', scenario: 'checkout-secret-rotation' },
  ];
  for (let index = 0; index < 56; index++) {
    const namespace = index % 2 === 0 ? 'staging' : 'shop';
    const id = `run-${String(index).padStart(3, '0')}`;
    store.create({
      id,
      trigger: { kind: 'incident', text: `incident ${index}`, namespace },
      source: 'api',
      rung: 'OBSERVE',
      now: new Date(Date.UTC(2026, 11, 1, 0, index)),
    });
    store.claim(id, { cluster: clusters[index % 3 === 0 ? 0 : 1] });
    const category = index % 4 === 0 ? 'oom-killed' : 'bad-credentials';
    store.finish(id, {
      status: index === 55 ? 'failed' : 'completed',
      diagnosis: { ...demoDiagnosis, category, evidence: [...demoDiagnosis.evidence], actions: [] },
    });
  }
  const app = await startTestApp(t, { database });
  const cookie = await signIn(app, TOKENS.read);
  const idsOn = (body: string): string[] => [...body.matchAll(/href="\/runs\/(run-\d+)"/g)].map((match) => match[1]!);

  const first = await page(app, '/', cookie);
  const firstIds = idsOn(first.body);
  assert.equal(firstIds.length, 50);
  assert.equal(firstIds[0], 'run-055', 'newest first');
  const older = /href="(\/\?cursor=\d+)" rel="next">Older runs</.exec(first.body);
  assert.ok(older?.[1], 'an Older runs link');
  assert.deepEqual(idsOn((await page(app, older[1], cookie)).body), [
    'run-005',
    'run-004',
    'run-003',
    'run-002',
    'run-001',
    'run-000',
  ]);

  const expected = (keep: (index: number) => boolean): string[] =>
    Array.from({ length: 56 }, (_, index) => index)
      .filter(keep)
      .reverse()
      .map((index) => `run-${String(index).padStart(3, '0')}`);
  const cases: [string, (index: number) => boolean][] = [
    ['status=failed', (index) => index === 55],
    ['namespace=shop&category=oom-killed', (index) => index % 2 === 1 && index % 4 === 0],
    ['category=oom-killed', (index) => index % 4 === 0],
    ['cluster=prod-eu&namespace=staging', (index) => index % 3 === 0 && index % 2 === 0],
    ['cluster=checkout-secret-rotation&category=oom-killed', (index) => index % 3 !== 0 && index % 4 === 0],
    ['cluster=https%3A%2F%2Fprod-eu.example%3A6443&status=completed', (index) => index % 3 === 0 && index !== 55],
  ];
  for (const [query, keep] of cases) {
    assert.deepEqual(
      idsOn((await page(app, `/?${query}`, cookie)).body),
      expected(keep).slice(0, 50),
      `console ${query}`,
    );
    const api = (await app.call({ method: 'GET', url: `/v1/runs?limit=200&${query}` })).json() as {
      runs: { id: string }[];
    };
    assert.deepEqual(
      api.runs.map((run) => run.id),
      expected(keep),
      `API ${query}`,
    );
  }
  const filtered = await page(app, '/?namespace=shop&category=oom-killed', cookie);
  assert.match(
    filtered.body,
    /<input id="filter-namespace" name="namespace" type="text" value="shop"/,
    'the form keeps the filters',
  );
  assert.match(filtered.body, /<option value="oom-killed" selected>/);
  assert.match(filtered.body, /<caption>Runs, newest first \(namespace shop, category oom-killed\)<\/caption>/);
  assert.equal((await app.call({ method: 'GET', url: '/v1/runs?category=not-a-category' })).statusCode, 400);

  const fragment = await page(app, '/?fragment=rows&status=failed', cookie);
  assert.match(fragment.body, /^<tr>/);
  assert.doesNotMatch(fragment.body, /<html/);
  assert.match(String(fragment.headers['x-rows-signature']), /^[0-9a-f]{16}$/);
});

test('with auth off nobody signs in: the person is anonymous and may decide', async (t) => {
  const app = await startTestApp(t, { auth: { mode: 'off' } });
  assert.equal((await page(app, '/login')).headers.location, '/');
  const list = await page(app, '/');
  assert.equal(list.statusCode, 200);
  assert.match(list.body, /Signed in as <strong>anonymous<\/strong> <span class="who-ability">\(may approve\)<\/span>/);
  assert.doesNotMatch(list.body, /Sign out/);
});
