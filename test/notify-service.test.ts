/**
 * Notifications end to end: `kubewhy serve` with a notifications file, the real Slack,
 * Teams and signed-webhook channels, and local servers that speak each receiver's wire.
 * A run held for approval tells Slack, Teams and the webhook; its end replies in the
 * Slack thread; a 429 is honoured; receivers that are down while the process is killed
 * with SIGKILL lose nothing once both are back.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  startFakeSlack,
  startFakeTeams,
  startSignedReceiver,
  type FakeSlack,
  type SignedReceiver,
} from './helpers/notify-receivers.ts';
import { pollUntil, startServiceProcess, type ServiceProcess } from './helpers/service-process.ts';

const INGEST_ACT = 'notify-ingest-act-token-0123456789';
const READ = 'notify-read-token-0123456789';
const APPROVE = 'notify-approve-token-0123456789';
const SLACK_TOKEN = 'xoxb-263594206564-2343594206574-FGqddMF8t08v8N7Oq4i57vs1';
const SIGNING_SECRET = 'notify-signing-secret-0123456789';
const ARTIFACTS = fileURLToPath(new URL('../test-artifacts/notifications/', import.meta.url));

interface Receivers {
  slack: FakeSlack;
  teams: Awaited<ReturnType<typeof startFakeTeams>>;
  hook: SignedReceiver;
}

async function startReceivers(t: TestContext): Promise<Receivers> {
  const [slack, teams, hook] = await Promise.all([
    startFakeSlack({ token: SLACK_TOKEN, channels: ['C0ONCALL'] }),
    startFakeTeams(),
    startSignedReceiver({ secret: SIGNING_SECRET }),
  ]);
  t.after(() => Promise.all([slack.close(), teams.close(), hook.close()]));
  return { slack, teams, hook };
}

async function writeNotificationsFile(directory: string, receivers: Receivers): Promise<string> {
  await writeFile(join(directory, 'slack-token'), `${SLACK_TOKEN}\n`);
  const path = join(directory, 'notifications.yaml');
  await writeFile(
    path,
    `consoleUrl: https://kubewhy.example.com
delivery: { backoffSeconds: 1, backoffMaxSeconds: 2 }
destinations:
  - { name: oncall, type: slack-bot, channel: C0ONCALL, apiUrl: "${receivers.slack.apiUrl}", token: { file: ${join(directory, 'slack-token')} }, timeoutSeconds: 5 }
  - { name: platform, type: teams, url: { env: TEAMS_URL }, timeoutSeconds: 5 }
  - { name: tickets, type: webhook, url: "${receivers.hook.url}", secret: { env: HOOK_SECRET }, timeoutSeconds: 5 }
routes:
  - { match: { namespaces: [staging] }, to: [oncall, platform] }
  - { to: [tickets] }
`,
  );
  return path;
}

async function startService(t: TestContext, directory: string, receivers: Receivers): Promise<ServiceProcess> {
  const service = await startServiceProcess({
    KUBEWHY_DATA_DIR: directory,
    KUBEWHY_MODEL: 'offline',
    KUBEWHY_TOKEN_INGEST: INGEST_ACT,
    KUBEWHY_TOKEN_ACT: INGEST_ACT,
    KUBEWHY_TOKEN_READ: READ,
    KUBEWHY_TOKEN_APPROVE: APPROVE,
    KUBEWHY_ACT_NAMESPACES: 'staging',
    KUBEWHY_NOTIFICATIONS_FILE: await writeNotificationsFile(directory, receivers),
    TEAMS_URL: receivers.teams.url,
    HOOK_SECRET: SIGNING_SECRET,
  });
  t.after(() => service.kill());
  return service;
}

async function waitForRun(
  service: ServiceProcess,
  id: string,
  done: (run: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown>> {
  return pollUntil(
    async () => {
      const run = (await service.request({ path: `/v1/runs/${id}`, token: READ })).body as Record<string, unknown>;
      return done(run) ? run : undefined;
    },
    { timeoutMs: 60_000, what: `run ${id}` },
  );
}

async function metric(service: ServiceProcess, pattern: RegExp): Promise<number> {
  const text = (await service.request({ path: '/metrics' })).text;
  return [...text.matchAll(new RegExp(pattern.source, 'gm'))].reduce((sum, match) => sum + Number(match[1]), 0);
}

test(
  'a held action and the end of its run reach Slack (threaded), Teams and the signed webhook, with the link to the run',
  { timeout: 180_000 },
  async (t) => {
    const directory = await mkdtemp(join(tmpdir(), 'kubewhy-notify-'));
    t.after(() => rm(directory, { recursive: true, force: true }));
    const receivers = await startReceivers(t);
    const service = await startService(t, directory, receivers);
    // Slack is rate limiting when the first message goes out: it waits the second Retry-After asks for.
    receivers.slack.failNext({ count: 1, status: 429, retryAfter: '1' });
    const limitedAt = Date.now();

    const created = await service.request({
      method: 'POST',
      path: '/v1/incidents',
      token: INGEST_ACT,
      body: { text: 'checkout-api in staging keeps restarting', namespace: 'staging', rung: 'ACT' },
    });
    assert.equal(created.status, 202, created.text);
    const runId = (created.body as { id: string }).id;
    const held = await waitForRun(service, runId, (run) => run.status === 'awaiting_approval');
    const action = (held.actions as { id: string; tool: string; status: string }[]).find(
      (candidate) => candidate.status === 'awaiting_approval',
    );
    assert.ok(action, 'an action awaits approval');

    const approvalMessage = await pollUntil(
      async () => receivers.slack.received.find((message) => message.via === 'api'),
      { timeoutMs: 30_000, what: 'the approval message in Slack' },
    );
    assert.ok(
      Date.now() - limitedAt >= 1000,
      'the first attempt was refused with Retry-After: 1, and the next came no sooner',
    );
    assert.equal(approvalMessage.channel, 'C0ONCALL');
    assert.match(JSON.stringify(approvalMessage.blocks), new RegExp(`https://kubewhy.example.com/runs/${runId}`));
    assert.match(JSON.stringify(approvalMessage.blocks), new RegExp(action.tool));
    // The approval links the held action's page in the console, where its diff and the buttons are.
    assert.ok(
      JSON.stringify(approvalMessage.blocks).includes(`https://kubewhy.example.com/runs/${runId}/actions/${action.id}`),
    );

    const approved = await service.request({
      method: 'POST',
      path: `/v1/runs/${runId}/actions/${action.id}/approve`,
      token: APPROVE,
      body: { by: 'alice' },
    });
    assert.equal(approved.status, 200, approved.text);
    await waitForRun(service, runId, (run) => run.status === 'completed');

    const reply = await pollUntil(async () => receivers.slack.received.filter((message) => message.via === 'api')[1], {
      timeoutMs: 30_000,
      what: 'the finished message in Slack',
    });
    // Kept as test artifacts: what Slack received for a real run of the demo incident.
    await mkdir(ARTIFACTS, { recursive: true });
    await writeFile(
      join(ARTIFACTS, 'slack-approval.json'),
      `${JSON.stringify({ text: approvalMessage.text, blocks: approvalMessage.blocks }, null, 2)}\n`,
    );
    await writeFile(
      join(ARTIFACTS, 'slack-finished-reply.json'),
      `${JSON.stringify({ thread_ts: reply.thread_ts, text: reply.text, blocks: reply.blocks }, null, 2)}\n`,
    );
    assert.equal(
      reply.thread_ts,
      approvalMessage.ts,
      'the end of the run replies in the thread of its approval message',
    );
    assert.match(reply.text ?? '', /bad-credentials/);
    // The end of the run says what was done with the action, and who decided.
    assert.match(
      JSON.stringify(reply.blocks),
      /`rollout_undo` on `[^`]*checkout-api` — executed \(approved by alice \(approve#[0-9a-f]{8}\)\)/,
    );

    await pollUntil(async () => (receivers.teams.received.length >= 2 ? true : undefined), {
      timeoutMs: 30_000,
      what: 'two Teams cards',
    });
    assert.deepEqual(receivers.teams.received[0]!.card.actions, [
      {
        type: 'Action.OpenUrl',
        title: `Review ${action.tool}`,
        url: `https://kubewhy.example.com/runs/${runId}/actions/${action.id}`,
      },
      { type: 'Action.OpenUrl', title: 'Open run in kubewhy', url: `https://kubewhy.example.com/runs/${runId}` },
    ]);
    const deliveries = await pollUntil(
      async () => (receivers.hook.received.length >= 2 ? receivers.hook.received : undefined),
      { timeoutMs: 30_000, what: 'two signed deliveries' },
    );
    assert.deepEqual(
      deliveries.map((delivery) => [delivery.event, delivery.deliveryId]),
      [
        ['approval', `${runId}/approval:${action.id}/tickets`],
        ['finished', `${runId}/finished/tickets`],
      ],
    );
    assert.equal(
      (deliveries[1]!.body as { run: { diagnosis: { category: string } } }).run.diagnosis.category,
      'bad-credentials',
    );
    assert.deepEqual(receivers.hook.rejected, []);

    // Nothing the service sent or logged carries the bot token or the signing secret.
    const everything =
      JSON.stringify([receivers.slack.received, receivers.teams.received, receivers.hook.received]) + service.output();
    assert.ok(!everything.includes(SLACK_TOKEN) && !everything.includes(SIGNING_SECRET));
    assert.equal(
      await metric(service, /^kubewhy_notifications_sent_total\{[^}]*destination="oncall"[^}]*\} (\d+)$/),
      2,
    );
    assert.equal(
      await metric(
        service,
        /^kubewhy_notifications_failed_total\{[^}]*destination="oncall"[^}]*outcome="retrying"[^}]*\} (\d+)$/,
      ),
      1,
    );
  },
);

test(
  'receivers down, the process killed with SIGKILL, then both back: every notice arrives, none is lost',
  { timeout: 240_000 },
  async (t) => {
    const directory = await mkdtemp(join(tmpdir(), 'kubewhy-notify-crash-'));
    t.after(() => rm(directory, { recursive: true, force: true }));
    const receivers = await startReceivers(t);
    receivers.slack.setDown('unavailable');
    receivers.teams.setDown('reset');
    receivers.hook.setDown('reset');
    const first = await startService(t, directory, receivers);

    const texts = [
      'checkout-api in staging keeps restarting',
      'payments is failing in staging',
      'orders are slow in staging',
    ];
    const ids: string[] = [];
    for (const text of texts) {
      const created = await first.request({
        method: 'POST',
        path: '/v1/incidents',
        token: INGEST_ACT,
        body: { text, namespace: 'staging' },
      });
      assert.equal(created.status, 202, created.text);
      ids.push((created.body as { id: string }).id);
    }
    for (const id of ids) await waitForRun(first, id, (run) => run.status === 'completed' || run.status === 'failed');
    // Every notice is queued and failing; the gauge shows them waiting.
    await pollUntil(
      async () =>
        (await metric(first, /^kubewhy_notifications_failed_total\{[^}]*destination="tickets"[^}]*\} (\d+)$/)) >= 3
          ? true
          : undefined,
      {
        timeoutMs: 30_000,
        what: 'failed attempts to the webhook',
      },
    );
    assert.equal(await metric(first, /^kubewhy_notifications_pending\{destination="tickets"\} (\d+)$/), 3);
    await first.kill();

    receivers.slack.setDown(false);
    receivers.teams.setDown(false);
    receivers.hook.setDown(false);
    const second = await startService(t, directory, receivers);
    await pollUntil(
      async () =>
        new Set(receivers.hook.received.map((delivery) => delivery.deliveryId)).size >= 3 ? true : undefined,
      { timeoutMs: 60_000, what: 'every webhook delivery' },
    );
    await pollUntil(
      async () => (receivers.slack.received.length >= 3 && receivers.teams.received.length >= 3 ? true : undefined),
      { timeoutMs: 60_000, what: 'every Slack and Teams message' },
    );
    assert.deepEqual(
      new Set(receivers.hook.received.map((delivery) => delivery.deliveryId)),
      new Set(ids.map((id) => `${id}/finished/tickets`)),
    );
    for (const id of ids) {
      assert.ok(
        receivers.slack.received.some((message) => JSON.stringify(message.blocks).includes(`/runs/${id}`)),
        `Slack has the message of run ${id}`,
      );
      assert.ok(
        receivers.teams.received.some((message) => JSON.stringify(message.card).includes(`/runs/${id}`)),
        `Teams has the card of run ${id}`,
      );
    }
    await pollUntil(
      async () => ((await metric(second, /^kubewhy_notifications_pending\{[^}]*\} (\d+)$/)) === 0 ? true : undefined),
      { timeoutMs: 30_000, what: 'an empty outbox' },
    );
  },
);
