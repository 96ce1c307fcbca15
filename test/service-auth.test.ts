import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { decideAuth, isLoopback } from '../src/server/listen-policy.ts';
import { loadConfig } from '../src/config.ts';
import { createAuthenticator } from '../src/server/auth.ts';
import { readTokens, TokenFileError, watchTokens, type TokenSet } from '../src/server/tokens.ts';
import { firingAlert, notification, startTestApp, TOKENS } from './helpers/service-app.ts';
import { pollUntil, startServiceProcess } from './helpers/service-process.ts';

const ACT_TOKEN = 'act-token-0123456789abcdef';

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

    const wrong = await call({
      method: route.method,
      url: route.url,
      scope: null,
      body,
      headers: { authorization: 'Bearer not-a-token-of-this-service' },
    });
    assert.equal(wrong.statusCode, 401, `${route.url} with a wrong token`);
    assert.deepEqual(wrong.json(), { error: 'unauthorized', message: 'the bearer token is not valid' });

    const other = route.scope === 'read' ? 'ingest' : 'read';
    const forbidden = await call({ method: route.method, url: route.url, scope: other, body });
    assert.equal(forbidden.statusCode, 403, `${route.url} with the ${other} token`);
    assert.deepEqual(forbidden.json(), {
      error: 'forbidden',
      message: `this token does not have the "${route.scope}" scope`,
    });

    const allowed = await call({ method: route.method, url: route.url, scope: route.scope, body });
    assert.ok(
      allowed.statusCode !== 401 && allowed.statusCode !== 403,
      `${route.url} with the ${route.scope} token: ${allowed.statusCode}`,
    );
  }
});

test('health, readiness, metrics and the OpenAPI document need no token', async (t) => {
  const { call } = await startTestApp(t);
  for (const url of ['/healthz', '/readyz', '/metrics', '/openapi.json']) {
    assert.equal((await call({ method: 'GET', url, scope: null })).statusCode, 200, url);
  }
});

test('a scheme other than Bearer, or a token with spaces, is not a token', () => {
  const authenticator = createAuthenticator({
    mode: 'tokens',
    tokens: { ingest: [TOKENS.ingest], read: [], approve: [] },
  });
  assert.equal(authenticator.check(`Basic ${TOKENS.ingest}`, 'ingest').ok, false);
  assert.equal(authenticator.check(`Bearer ${TOKENS.ingest} extra`, 'ingest').ok, false);
  assert.equal(authenticator.check(`bearer  ${TOKENS.ingest}`, 'ingest').ok, true);
});

test('a token is named in logs and audit by its scope and a hash prefix, never by itself', () => {
  const authenticator = createAuthenticator({
    mode: 'tokens',
    tokens: { ingest: [], read: [], approve: [TOKENS.approve] },
  });
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
  await writeFile(join(directory, 'act'), `${ACT_TOKEN}\n`);
  const tokens = await readTokens({ tokensDir: directory, tokens: { read: TOKENS.read } });
  assert.deepEqual(tokens, {
    ingest: [TOKENS.ingest, 'second-ingest-token-0123456789'],
    read: [TOKENS.read],
    approve: [TOKENS.approve],
    act: [ACT_TOKEN],
  });

  await writeFile(join(directory, 'read'), 'short\n');
  await assert.rejects(readTokens({ tokensDir: directory, tokens: {} }), TokenFileError);
});

test('without tokens the service serves loopback only, unauthenticated, and says so; elsewhere it refuses unless auth is off', () => {
  const none = { ingest: [], read: [], approve: [], act: [] };
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

  assert.deepEqual(['127.0.0.1', '127.1.2.3', '::1', 'localhost', '0.0.0.0', '10.0.0.1', '::'].map(isLoopback), [
    true,
    true,
    true,
    true,
    false,
    false,
    false,
  ]);
});

test('with auth off every route answers without a token', async (t) => {
  const { call } = await startTestApp(t, { auth: { mode: 'off' } });
  const response = await call({
    method: 'POST',
    url: '/v1/incidents',
    scope: null,
    body: { text: 'checkout is down' },
  });
  assert.equal(response.statusCode, 202);
  assert.equal((await call({ method: 'GET', url: '/v1/runs', scope: null })).statusCode, 200);
});

test('the act scope is a scope of its own: its token passes act and nothing else, and from the environment too', () => {
  const authenticator = createAuthenticator({ mode: 'tokens', tokens: { ingest: [TOKENS.ingest], act: [ACT_TOKEN] } });
  const act = authenticator.check(`Bearer ${ACT_TOKEN}`, 'act');
  assert.ok(act.ok);
  assert.match(act.identity, /^act#[0-9a-f]{8}$/);
  assert.deepEqual(authenticator.check(`Bearer ${TOKENS.ingest}`, 'act'), {
    ok: false,
    status: 403,
    error: 'forbidden',
    message: 'this token does not have the "act" scope',
  });
  assert.deepEqual(authenticator.check(`Bearer ${ACT_TOKEN}`, 'ingest'), {
    ok: false,
    status: 403,
    error: 'forbidden',
    message: 'this token does not have the "ingest" scope',
  });
  assert.equal(loadConfig({ KUBEWHY_TOKEN_ACT: ACT_TOKEN }).auth.tokens.act, ACT_TOKEN);
  assert.throws(() => loadConfig({ KUBEWHY_TOKEN_ACT: 'short' }), /KUBEWHY_TOKEN_ACT/);
});

test('replacing the token set takes effect at once and whole: old tokens stop working', () => {
  const authenticator = createAuthenticator({ mode: 'tokens', tokens: { read: [TOKENS.read] } });
  authenticator.replaceTokens({ read: ['read-token-rotated-0123456789'] });
  assert.equal(authenticator.check('Bearer read-token-rotated-0123456789', 'read').ok, true);
  assert.deepEqual(authenticator.check(`Bearer ${TOKENS.read}`, 'read'), {
    ok: false,
    status: 401,
    error: 'unauthorized',
    message: 'the bearer token is not valid',
  });
});

/** A tokens folder laid out as kubelet mounts a Secret: files are symlinks into `..data`, itself a symlink swapped on update. */
async function secretVolume(
  directory: string,
  files: Record<string, string>,
): Promise<(next: Record<string, string>) => Promise<void>> {
  let generation = 0;
  const publish = async (contents: Record<string, string>): Promise<void> => {
    generation += 1;
    const version = `..2026_12_01_00_00_0${generation}.000000000`;
    await mkdir(join(directory, version));
    for (const [name, text] of Object.entries(contents)) await writeFile(join(directory, version, name), text);
    await symlink(version, join(directory, '..data_tmp'));
    await rename(join(directory, '..data_tmp'), join(directory, '..data'));
  };
  await publish(files);
  for (const name of Object.keys(files)) await symlink(join('..data', name), join(directory, name));
  return publish;
}

test('token files rotate without a restart: the new token works within the poll interval, the old one gets 401, a broken update keeps the tokens in use', async (t) => {
  const directory = await mkdtemp(join(tmpdir(), 'kubewhy-rotate-'));
  t.after(() => rm(directory, { recursive: true, force: true }));
  const tokensDir = join(directory, 'tokens');
  await mkdir(tokensDir);
  const scopes = {
    ingest: `${TOKENS.ingest}\n`,
    read: `${TOKENS.read}\n`,
    approve: `${TOKENS.approve}\n`,
    act: `${ACT_TOKEN}\n`,
  };
  const publish = await secretVolume(tokensDir, scopes);
  const service = await startServiceProcess({
    KUBEWHY_DATA_DIR: join(directory, 'data'),
    KUBEWHY_TOKENS_DIR: tokensDir,
    KUBEWHY_TOKENS_POLL_SECONDS: '1',
  });
  t.after(() => service.kill());
  const readStatus = async (token: string): Promise<number> =>
    (await service.request({ path: '/v1/runs', token })).status;
  assert.equal(await readStatus(TOKENS.read), 200);

  const rotated = 'read-token-rotated-0123456789abcdef';
  const started = Date.now();
  await publish({ ...scopes, read: `${rotated}\n` });
  await pollUntil(async () => ((await readStatus(rotated)) === 200 ? true : undefined), {
    timeoutMs: 10_000,
    what: 'the rotated read token to work',
    intervalMs: 100,
  });
  const tookMs = Date.now() - started;
  t.diagnostic(`the rotated token worked ${tookMs} ms after the update`);
  assert.ok(tookMs < 5000, `the new token took ${tookMs} ms to work, with a poll interval of 1 s`);
  assert.equal(await readStatus(TOKENS.read), 401, 'the old token no longer works');
  assert.equal(await readStatus(TOKENS.ingest), 403, 'the other scopes are as they were');

  await publish({ ...scopes, read: 'short\n' });
  await pollUntil(async () => (/tokens not reloaded/.test(service.output()) ? true : undefined), {
    timeoutMs: 10_000,
    what: 'the failed reload to be logged',
  });
  assert.match(
    service.output(),
    new RegExp(
      `tokens not reloaded, the ones in use stay: ${join(tokensDir, 'read')}, token 1: a token is at least 16 characters`,
    ),
  );
  assert.equal(await readStatus(rotated), 200, 'a broken update keeps the tokens in use');
  assert.equal(await readStatus('short'), 401);
  assert.doesNotMatch(service.output(), new RegExp(rotated), 'tokens never reach the log');

  service.child.kill('SIGHUP');
  await pollUntil(
    async () => (/tokens not reloaded[^\n]*\n[^]*tokens not reloaded/.test(service.output()) ? true : undefined),
    { timeoutMs: 10_000, what: 'SIGHUP to re-read the tokens' },
  );
  assert.equal(await readStatus(rotated), 200, 'SIGHUP re-reads; it does not stop the service');
  assert.equal(await service.stop(), 0);
});

test('SIGHUP reloads at once, even when the files look unchanged; an unchanged set is not announced', async (t) => {
  const directory = await mkdtemp(join(tmpdir(), 'kubewhy-tokens-'));
  t.after(() => rm(directory, { recursive: true, force: true }));
  await writeFile(join(directory, 'read'), `${TOKENS.read}\n`);
  const settings = { tokensDir: directory, tokens: { ingest: TOKENS.ingest } };
  const changes: TokenSet[] = [];
  const errors: string[] = [];
  const watcher = watchTokens({
    settings,
    initial: await readTokens(settings),
    intervalMs: 3_600_000,
    onChange: (tokens) => changes.push(tokens),
    onError: (error) => errors.push(error.message),
  });
  t.after(() => watcher.stop());

  await watcher.reloadNow();
  assert.deepEqual(changes, [], 'the same tokens: nothing to swap');
  await writeFile(join(directory, 'read'), 'read-token-rotated-0123456789\n');
  await watcher.reloadNow();
  assert.deepEqual(changes, [
    { ingest: [TOKENS.ingest], read: ['read-token-rotated-0123456789'], approve: [], act: [] },
  ]);
  await writeFile(join(directory, 'read'), '');
  await watcher.reloadNow();
  assert.equal(changes.length, 2, 'the environment token is still a token');
  assert.deepEqual(errors, []);
});

test('a reload that would leave no token at all keeps the tokens in use', async (t) => {
  const directory = await mkdtemp(join(tmpdir(), 'kubewhy-tokens-'));
  t.after(() => rm(directory, { recursive: true, force: true }));
  await writeFile(join(directory, 'read'), `${TOKENS.read}\n`);
  const settings = { tokensDir: directory, tokens: {} };
  const changes: TokenSet[] = [];
  const errors: string[] = [];
  const watcher = watchTokens({
    settings,
    initial: await readTokens(settings),
    intervalMs: 3_600_000,
    onChange: (tokens) => changes.push(tokens),
    onError: (error) => errors.push(error.message),
  });
  t.after(() => watcher.stop());
  await rm(join(directory, 'read'));
  await watcher.reloadNow();
  assert.deepEqual(changes, []);
  assert.match(errors[0] ?? '', new RegExp(`no tokens left in ${directory}: keeping the tokens in use`));
});
