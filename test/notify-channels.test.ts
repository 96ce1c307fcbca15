/**
 * Each notification channel through its real client (`@slack/web-api`, `@slack/webhook`,
 * `fetch`) against a local server that speaks the receiver's wire: what is delivered, and
 * the outcome the outbox gets when the receiver rate-limits, refuses, is down or is slow.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { createChannel } from '../src/notify/channels/index.ts';
import { createSignedWebhookChannel } from '../src/notify/channels/signed-webhook.ts';
import { createSlackBotChannel, createSlackWebhookChannel } from '../src/notify/channels/slack.ts';
import { createTeamsChannel } from '../src/notify/channels/teams.ts';
import type { Channel, Notice, SendOutcome } from '../src/notify/notice.ts';
import { buildNotice } from './helpers/notify-notices.ts';
import {
  startFakeSlack,
  startFakeTeams,
  startSignedReceiver,
  type ReceiverFaults,
} from './helpers/notify-receivers.ts';

const SLACK_TOKEN = 'xoxb-1234567890-TOKENSECRET';
const SLACK_HOOK_SECRET = 'HOOKSECRETx7f2';
const TEAMS_SIGNATURE = 'TEAMSSIGSECRET';
const SIGNING_SECRET = 'whsec_SIGNINGSECRET';
const SECRETS = [SLACK_TOKEN, SLACK_HOOK_SECRET, TEAMS_SIGNATURE, SIGNING_SECRET];
/** Short enough that a test waiting for a timeout finishes quickly; long enough for a loaded machine to answer a live server. */
const SHORT_TIMEOUT_MS = 300;

/** One attempt, as the outbox makes it; every outcome is checked for credentials on the way out. */
async function deliver(
  channel: Channel,
  notice: Notice,
  options: { thread?: string; deliveryId?: string; signal?: AbortSignal } = {},
): Promise<SendOutcome> {
  const outcome = await channel.send({
    body: channel.render(notice),
    deliveryId: options.deliveryId ?? 'delivery-1',
    signal: options.signal ?? new AbortController().signal,
    ...(options.thread ? { thread: options.thread } : {}),
  });
  const text = JSON.stringify(outcome);
  for (const secret of SECRETS) assert.ok(!text.includes(secret), `the outcome ${text} holds a credential`);
  return outcome;
}

function assertRetryable(outcome: SendOutcome, expected: { retryAfterMs?: number; error: RegExp }): void {
  assert.equal(outcome.ok, false);
  if (outcome.ok) return;
  assert.equal(outcome.retryable, true, outcome.error);
  assert.equal(outcome.retryAfterMs, expected.retryAfterMs);
  assert.match(outcome.error, expected.error);
}

function assertFinal(outcome: SendOutcome, error: RegExp): void {
  assert.equal(outcome.ok, false);
  if (outcome.ok) return;
  assert.equal(outcome.retryable, false, outcome.error);
  assert.match(outcome.error, error);
}

/** 429 with Retry-After, 500, a receiver that resets connections, one answering 503, one that never answers: all retryable. */
async function assertTransientFailuresRetry(input: {
  faults: ReceiverFaults;
  send: () => Promise<SendOutcome>;
  timeoutSend: () => Promise<SendOutcome>;
}): Promise<void> {
  input.faults.failNext({ count: 1, status: 429, retryAfter: '7' });
  assertRetryable(await input.send(), { retryAfterMs: 7000, error: /429/ });
  input.faults.failNext({ count: 1, status: 500 });
  assertRetryable(await input.send(), { error: /500/ });
  input.faults.setDown('reset');
  assertRetryable(await input.send(), { error: /could not be reached/ });
  input.faults.setDown('unavailable');
  assertRetryable(await input.send(), { error: /503/ });
  input.faults.setDown(false);
  input.faults.hangNext(1);
  assertRetryable(await input.timeoutSend(), { error: new RegExp(`timed out after ${SHORT_TIMEOUT_MS} ms`) });
  assert.equal((await input.send()).ok, true, 'up again');
}

async function startSlack(t: TestContext) {
  const slack = await startFakeSlack({ token: SLACK_TOKEN, channels: ['C0ONCALL'], webhookSecret: SLACK_HOOK_SECRET });
  t.after(() => slack.close());
  return slack;
}

test('the Slack bot posts through chat.postMessage and threads the run’s later notices under the first', async (t) => {
  const slack = await startSlack(t);
  const channel = createSlackBotChannel({
    name: 'oncall',
    token: SLACK_TOKEN,
    channel: 'C0ONCALL',
    apiUrl: slack.apiUrl,
  });
  const first = await deliver(channel, buildNotice('finished'));
  assert.equal(first.ok && first.thread, slack.received[0]?.ts);
  const reply = await deliver(channel, buildNotice('resolved'), { thread: first.ok ? first.thread : '' });
  assert.deepEqual(reply, first, 'a reply keeps the thread it went to');
  const [top, threaded] = slack.received;
  assert.equal(top?.thread_ts, undefined);
  assert.equal(threaded?.thread_ts, top?.ts);
  assert.match(
    top?.contentType ?? '',
    /^application\/x-www-form-urlencoded/,
    'the SDK posts form-encoded, blocks as JSON',
  );
  assert.deepEqual({ text: top?.text, blocks: top?.blocks }, channel.render(buildNotice('finished')));
});

test('the Slack bot: a 429 is retried after Retry-After (seconds or a date); 5xx, a receiver down or slow are retried', async (t) => {
  const slack = await startSlack(t);
  const options = { name: 'oncall', token: SLACK_TOKEN, channel: 'C0ONCALL', apiUrl: slack.apiUrl };
  const channel = createSlackBotChannel(options);
  const slow = createSlackBotChannel({ ...options, timeoutMs: SHORT_TIMEOUT_MS });
  await assertTransientFailuresRetry({
    faults: slack,
    send: () => deliver(channel, buildNotice('finished')),
    timeoutSend: () => deliver(slow, buildNotice('finished')),
  });
  slack.failNext({ count: 1, status: 429, retryAfter: new Date(Date.now() + 60_000).toUTCString() });
  const dated = await deliver(channel, buildNotice('finished'));
  assert.ok(
    !dated.ok &&
      dated.retryable &&
      dated.retryAfterMs !== undefined &&
      dated.retryAfterMs > 55_000 &&
      dated.retryAfterMs <= 60_000,
    JSON.stringify(dated),
  );
  assertRetryable(await deliver(channel, buildNotice('finished'), { signal: AbortSignal.abort() }), {
    error: /aborted/,
  });
});

test('the Slack bot: a wrong token, an unknown channel or broken blocks are final, and the error names Slack’s code only', async (t) => {
  const slack = await startSlack(t);
  const options = { name: 'oncall', token: SLACK_TOKEN, channel: 'C0ONCALL', apiUrl: slack.apiUrl };
  assertFinal(
    await deliver(createSlackBotChannel({ ...options, token: 'xoxb-revoked' }), buildNotice('finished')),
    /refused the message: invalid_auth$/,
  );
  assertFinal(
    await deliver(createSlackBotChannel({ ...options, channel: 'C0GONE' }), buildNotice('finished')),
    /refused the message: channel_not_found$/,
  );
  const channel = createSlackBotChannel(options);
  const broken = await channel.send({
    body: { text: 'x', blocks: Array.from({ length: 51 }, () => ({ type: 'divider' })) },
    deliveryId: 'd',
    signal: new AbortController().signal,
  });
  assertFinal(broken, /invalid_blocks/);
  assertFinal(
    await channel.send({ body: 'not a message', deliveryId: 'd', signal: new AbortController().signal }),
    /not a Slack message/,
  );
  assert.equal(slack.received.length, 0);
});

test('the Slack webhook posts the blocks and answers no thread; 429, 5xx, down and slow are retried', async (t) => {
  const slack = await startSlack(t);
  const channel = createSlackWebhookChannel({ name: 'platform', url: slack.webhookUrl });
  assert.deepEqual(await deliver(channel, buildNotice('approval')), { ok: true });
  assert.equal(channel.threads, false);
  assert.deepEqual(
    { text: slack.received[0]?.text, blocks: slack.received[0]?.blocks },
    channel.render(buildNotice('approval')),
  );
  const slow = createSlackWebhookChannel({ name: 'platform', url: slack.webhookUrl, timeoutMs: SHORT_TIMEOUT_MS });
  await assertTransientFailuresRetry({
    faults: slack,
    send: () => deliver(channel, buildNotice('finished')),
    timeoutSend: () => deliver(slow, buildNotice('finished')),
  });
});

test('the Slack webhook: a revoked URL or a refused payload is final, and the URL’s secret is never named', async (t) => {
  const slack = await startSlack(t);
  const revoked = createSlackWebhookChannel({
    name: 'platform',
    url: slack.webhookUrl.replace(SLACK_HOOK_SECRET, `${SLACK_HOOK_SECRET}-old`),
  });
  const outcome = await deliver(revoked, buildNotice('finished'));
  assertFinal(outcome, /^Slack webhook http:\/\/127\.0\.0\.1:\d+\/services\/… answered HTTP 404 \(no_service\)$/);
  const channel = createSlackWebhookChannel({ name: 'platform', url: slack.webhookUrl });
  const broken = await channel.send({
    body: { text: 'x', blocks: [{ type: 'section' }] },
    deliveryId: 'd',
    signal: new AbortController().signal,
  });
  assertFinal(broken, /HTTP 400 \(invalid_blocks\)/);
});

test('Teams: the Adaptive Card is accepted (202); a body that is not one is refused for good; 429, 5xx, down and slow are retried', async (t) => {
  const teams = await startFakeTeams({ signature: TEAMS_SIGNATURE });
  t.after(() => teams.close());
  const channel = createTeamsChannel({ name: 'platform', url: teams.url });
  assert.deepEqual(await deliver(channel, buildNotice('finished')), { ok: true });
  assert.equal(teams.received[0]?.card.type, 'AdaptiveCard');
  const refused = await channel.send({
    body: { text: 'a Slack body' },
    deliveryId: 'd',
    signal: new AbortController().signal,
  });
  assertFinal(
    refused,
    /^Teams workflow http:\/\/127\.0\.0\.1:\d+\/workflows\/… answered HTTP 400 \(InvalidRequestContent\)$/,
  );
  assertFinal(
    await deliver(
      createTeamsChannel({ name: 'platform', url: teams.url.replace(TEAMS_SIGNATURE, 'expired') }),
      buildNotice('finished'),
    ),
    /HTTP 401/,
  );
  const slow = createTeamsChannel({ name: 'platform', url: teams.url, timeoutMs: SHORT_TIMEOUT_MS });
  await assertTransientFailuresRetry({
    faults: teams,
    send: () => deliver(channel, buildNotice('finished')),
    timeoutSend: () => deliver(slow, buildNotice('finished')),
  });
});

test('the signed webhook: the receiver verifies the delivery, refuses the same request replayed, and keeps a retry of a delivered id as a duplicate', async (t) => {
  const receiver = await startSignedReceiver({ secret: SIGNING_SECRET });
  t.after(() => receiver.close());
  // Each attempt is a second later, as retries are, so each carries a new signature.
  let clock = Date.now();
  const channel = createSignedWebhookChannel({
    name: 'tickets',
    url: receiver.url,
    secret: SIGNING_SECRET,
    now: () => (clock += 1000),
  });
  const notice = buildNotice('finished');
  assert.deepEqual(await deliver(channel, notice, { deliveryId: 'delivery-7' }), { ok: true });
  const [delivered] = receiver.received;
  assert.deepEqual(
    { deliveryId: delivered?.deliveryId, event: delivered?.event, duplicate: delivered?.duplicate },
    { deliveryId: 'delivery-7', event: 'finished', duplicate: false },
  );
  assert.deepEqual(delivered?.body, JSON.parse(JSON.stringify(channel.render(notice))));
  assert.match(delivered?.headers['kubewhy-signature'] ?? '', /^t=\d+,v1=[0-9a-f]{64}$/);

  const replay = await fetch(receiver.url, {
    method: 'POST',
    headers: delivered?.headers ?? {},
    body: delivered?.raw ?? '',
  });
  assert.equal(replay.status, 401);
  assert.deepEqual(await replay.json(), { reason: 'replayed signature' });

  assert.deepEqual(await deliver(channel, notice, { deliveryId: 'delivery-7' }), { ok: true });
  assert.deepEqual(
    receiver.received.map((entry) => [entry.deliveryId, entry.duplicate]),
    [
      ['delivery-7', false],
      ['delivery-7', true],
    ],
  );
});

test('the signed webhook: a wrong secret or a clock outside the tolerance is refused for good; 429, 5xx, down and slow are retried', async (t) => {
  const receiver = await startSignedReceiver({ secret: SIGNING_SECRET });
  t.after(() => receiver.close());
  const url = receiver.url;
  assertFinal(
    await deliver(
      createSignedWebhookChannel({ name: 'tickets', url, secret: 'whsec_rotated_away' }),
      buildNotice('approval'),
    ),
    /HTTP 401/,
  );
  assertFinal(
    await deliver(
      createSignedWebhookChannel({ name: 'tickets', url, secret: SIGNING_SECRET, now: () => Date.now() - 10 * 60_000 }),
      buildNotice('approval'),
    ),
    /HTTP 401/,
  );
  assert.deepEqual(receiver.rejected, [{ reason: 'signature mismatch' }, { reason: 'timestamp outside tolerance' }]);
  let clock = Date.now();
  const now = () => (clock += 1000);
  const channel = createSignedWebhookChannel({ name: 'tickets', url, secret: SIGNING_SECRET, now });
  const slow = createSignedWebhookChannel({
    name: 'tickets',
    url,
    secret: SIGNING_SECRET,
    now,
    timeoutMs: SHORT_TIMEOUT_MS,
  });
  await assertTransientFailuresRetry({
    faults: receiver,
    send: () => deliver(channel, buildNotice('approval')),
    timeoutSend: () => deliver(slow, buildNotice('approval')),
  });
});

test('createChannel builds the channel each destination type names', () => {
  const kinds = [
    createChannel({ type: 'slack-webhook', name: 'a', url: 'https://hooks.slack.com/services/T/B/S' }),
    createChannel({ type: 'slack-bot', name: 'b', token: SLACK_TOKEN, channel: 'C0ONCALL' }),
    createChannel({ type: 'teams', name: 'c', url: 'https://example.com/workflows/x' }),
    createChannel({ type: 'webhook', name: 'd', url: 'https://example.com/hook', secret: SIGNING_SECRET }),
  ].map((channel) => [channel.kind, channel.name, channel.threads]);
  assert.deepEqual(kinds, [
    ['slack-webhook', 'a', false],
    ['slack-bot', 'b', true],
    ['teams', 'c', false],
    ['webhook', 'd', false],
  ]);
});
