/**
 * The console in a real browser against a real `kubewhy serve` (mock cluster, offline
 * engine, ACT allowed in staging): sign in with a read token and see a held rollback
 * without buttons; sign in with an approve token, read the diff, approve, and the mock
 * cluster's Deployment is rolled back. Keyboard, axe-core, no JavaScript, and no request
 * to another origin are checked on the way; screenshots land in test-artifacts/console/
 * (and in docs/console/ with KUBEWHY_UPDATE_SCREENSHOTS=1).
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { chromiumSkipReason, launchChromium, seriousAxeViolations } from './helpers/browser.ts';
import { pollUntil, startServiceProcess, writeTokensDir, type ServiceProcess } from './helpers/service-process.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DEMO = 'mock-cluster/scenarios/checkout-secret-rotation';
const ARTIFACTS = join(ROOT, 'test-artifacts', 'console');
const TOKENS = {
  ingestAct: 'console-ingest-act-token-0123456789',
  read: 'console-read-token-0123456789abcdef',
  approve: 'console-approve-token-0123456789abc',
};

interface RunJson {
  id: string;
  status: string;
  cluster?: { server: string };
  actions: { id: string; tool: string; status: string }[];
}

async function startHeldIncident(service: ServiceProcess): Promise<RunJson> {
  const created = await service.request({
    method: 'POST',
    path: '/v1/incidents',
    token: TOKENS.ingestAct,
    body: { text: 'checkout-api in staging keeps restarting', namespace: 'staging', rung: 'ACT' },
  });
  assert.equal(created.status, 202, created.text);
  const id = (created.body as { id: string }).id;
  return waitForRun(service, id, (run) => run.status === 'awaiting_approval');
}

function waitForRun(service: ServiceProcess, id: string, done: (run: RunJson) => boolean): Promise<RunJson> {
  return pollUntil(
    async () => {
      const run = (await service.request({ path: `/v1/runs/${id}`, token: TOKENS.read })).body as RunJson;
      if (run.status === 'failed') throw new Error(`run ${id} failed: ${JSON.stringify(run)}`);
      return done(run) ? run : undefined;
    },
    { timeoutMs: 60_000, what: `run ${id}`, intervalMs: 200 },
  );
}

/** The Deployment as the mock cluster holds it: its revision and its pod template. */
async function readDeployment(server: string): Promise<{ revision: string; template: string }> {
  const response = await fetch(`${server}/apis/apps/v1/namespaces/staging/deployments/checkout-api`);
  assert.equal(response.status, 200);
  const deployment = (await response.json()) as {
    metadata: { annotations?: Record<string, string> };
    spec: { template: unknown };
  };
  return {
    revision: deployment.metadata.annotations?.['deployment.kubernetes.io/revision'] ?? '',
    template: JSON.stringify(deployment.spec.template),
  };
}

async function signIn(page: Page, token: string): Promise<void> {
  await page.getByLabel('Token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForLoadState('domcontentloaded');
}

async function screenshot(page: Page, name: string): Promise<void> {
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  if (process.env.KUBEWHY_UPDATE_SCREENSHOTS === '1') {
    mkdirSync(join(ROOT, 'docs', 'console'), { recursive: true });
    copyFileSync(path, join(ROOT, 'docs', 'console', `${name}.png`));
  }
}

async function assertAccessible(page: Page, what: string): Promise<void> {
  const violations = await seriousAxeViolations(page);
  assert.deepEqual(
    violations,
    [],
    `${what}: axe-core found serious or critical violations:\n${JSON.stringify(violations, null, 2)}`,
  );
}

/** Records every URL a context's pages ask for. */
function recordRequests(context: BrowserContext): string[] {
  const urls: string[] = [];
  context.on('request', (request) => urls.push(request.url()));
  return urls;
}

test(
  'in a browser: a read token sees a held rollback without buttons; an approve token reads the diff, approves, and the cluster is rolled back',
  { skip: chromiumSkipReason(), timeout: 240_000 },
  async (t) => {
    const directory = mkdtempSync(join(tmpdir(), 'kubewhy-console-browser-'));
    t.after(() => rmSync(directory, { recursive: true, force: true }));
    mkdirSync(ARTIFACTS, { recursive: true });
    const tokens = await writeTokensDir(directory, {
      ingest: TOKENS.ingestAct,
      act: TOKENS.ingestAct,
      read: TOKENS.read,
      approve: TOKENS.approve,
    });
    const service = await startServiceProcess({
      KUBEWHY_DATA_DIR: join(directory, 'data'),
      KUBEWHY_TOKENS_DIR: tokens,
      KUBEWHY_MOCK_SCENARIO: DEMO,
      KUBEWHY_MODEL: 'offline',
      KUBEWHY_ACT_NAMESPACES: 'staging',
      KUBEWHY_SHUTDOWN_GRACE_SECONDS: '0',
    });
    t.after(() => service.stop());
    const browser = await launchChromium();
    t.after(() => browser.close());

    // Two held rollbacks: one approved with JavaScript, one rejected without.
    const first = await startHeldIncident(service);
    const second = await startHeldIncident(service);
    const held = first.actions.find((action) => action.status === 'awaiting_approval');
    const heldSecond = second.actions.find((action) => action.status === 'awaiting_approval');
    assert.ok(held && heldSecond, 'each run holds an action');
    assert.equal(held.tool, 'rollout_undo');
    assert.ok(first.cluster?.server, 'the run records the mock cluster it read');
    const before = await readDeployment(first.cluster.server);

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const requested = recordRequests(context);
    const page = await context.newPage();

    await page.goto(`${service.url}/`);
    assert.equal(new URL(page.url()).pathname, '/login', 'not signed in: sent to sign in');
    await assertAccessible(page, 'the sign-in page');
    await signIn(page, TOKENS.read);
    assert.equal(new URL(page.url()).pathname, '/');

    // Keyboard only: the first Tab reaches the skip link, which moves focus to the main content; Tab goes on to the filter form.
    await page.keyboard.press('Tab');
    assert.equal(await page.locator(':focus').textContent(), 'Skip to main content');
    await page.keyboard.press('Enter');
    assert.equal(await page.locator(':focus').getAttribute('id'), 'main');
    let reachedFilter = false;
    for (let press = 0; press < 12 && !reachedFilter; press++) {
      await page.keyboard.press('Tab');
      reachedFilter = (await page.locator(':focus').getAttribute('id')) === 'filter-status';
    }
    assert.ok(reachedFilter, 'Tab reaches the status filter');

    const firstRow = page.locator('tr', { has: page.locator(`a[href="/runs/${first.id}"]`) });
    assert.match(await firstRow.innerText(), /awaiting approval/);
    await assertAccessible(page, 'the runs list');
    await screenshot(page, 'runs');

    await page.locator(`a[href="/runs/${first.id}"]`).click();
    await page.waitForURL(`**/runs/${first.id}`);
    await assertAccessible(page, 'a run');
    await screenshot(page, 'run');
    await page.getByRole('link', { name: /Review the held action/ }).click();
    await page.waitForURL(`**/runs/${first.id}/actions/${held.id}`);
    assert.equal(await page.getByRole('button', { name: 'Approve' }).count(), 0, 'a read token sees no Approve button');
    assert.match(await page.locator('main').innerText(), /needs an approve token/);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/login');

    await page.goto(`${service.url}/runs/${first.id}/actions/${held.id}`);
    assert.equal(new URL(page.url()).pathname, '/login');
    await signIn(page, TOKENS.approve);
    assert.equal(new URL(page.url()).pathname, `/runs/${first.id}/actions/${held.id}`, 'back to the page asked for');
    const diff = await page.locator('ul.diff').innerText();
    assert.match(diff, /checkout-api/, diff);
    await assertAccessible(page, 'a held action');
    await screenshot(page, 'held-action');

    // A second page on the list, left open: its rows update by themselves.
    const watcher = await context.newPage();
    await watcher.goto(`${service.url}/`);

    await page.getByLabel(/Your name/).fill('alice');
    await page.getByLabel(/Reason/).fill('rollback to the last good revision');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL(`**/runs/${first.id}?notice=approved`);
    assert.match(await page.locator('main').innerText(), /Approved: the action runs now/);

    const done = await waitForRun(service, first.id, (run) => run.status === 'completed');
    assert.equal(done.actions.find((action) => action.id === held.id)?.status, 'executed');
    assert.match(
      String((done.actions.find((action) => action.id === held.id) as { decidedBy?: string } | undefined)?.decidedBy),
      /^alice \(approve#[0-9a-f]{8}\)$/,
    );
    const after = await readDeployment(first.cluster.server);
    assert.notEqual(after.template, before.template, 'the rollback changed the pod template');
    assert.notEqual(after.revision, before.revision, 'the rollback made a new revision');

    await pollUntil(
      async () =>
        (await watcher.locator('tr', { has: watcher.locator(`a[href="/runs/${first.id}"]`) }).innerText()).includes(
          'completed',
        )
          ? true
          : undefined,
      {
        timeoutMs: 20_000,
        what: 'the open list to show the run completed',
        intervalMs: 250,
      },
    );
    assert.match(await watcher.locator('#live-status').innerText(), /Runs updated/);

    // Without JavaScript: the list, the run and the decision form all still work.
    const noScript = await browser.newContext({ viewport: { width: 1280, height: 900 }, javaScriptEnabled: false });
    const requestedWithoutScript = recordRequests(noScript);
    const plain = await noScript.newPage();
    await plain.goto(`${service.url}/`);
    await signIn(plain, TOKENS.approve);
    await plain.getByLabel('Status').selectOption('awaiting_approval');
    await plain.getByRole('button', { name: 'Apply filters' }).click();
    await plain.waitForURL('**/?status=awaiting_approval**');
    await plain.locator(`a[href="/runs/${second.id}"]`).click();
    await plain.getByRole('link', { name: /Review and decide/ }).click();
    await plain.getByRole('button', { name: 'Reject' }).click();
    await plain.waitForURL(`**/runs/${second.id}?notice=rejected`);
    const rejected = await waitForRun(service, second.id, (run) => run.status === 'completed');
    assert.equal(rejected.actions.find((action) => action.id === heldSecond.id)?.status, 'rejected');
    await noScript.close();

    const elsewhere = [...requested, ...requestedWithoutScript].filter((url) => !url.startsWith(`${service.url}/`));
    assert.deepEqual(elsewhere, [], 'no page asks another origin for anything');
    await context.close();
  },
);
