import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { createMetrics, type Metrics } from '../metrics.ts';
import { createLogger } from '../logger.ts';
import { openDatabase } from '../store/database.ts';
import { createRunStore, type SyncRunStore } from '../store/run-store.ts';
import { createSqliteStores } from '../store/sqlite-stores.ts';
import type { Channel, Notice, SendOutcome } from './notice.ts';
import { createNotifier, type Notifier } from './notifier.ts';
import { createOutbox, type SyncOutbox } from '../store/outbox.ts';
import { routeSchema } from './routing.ts';

/** A channel that records what it was asked to send and answers from a script (ok once the script is spent). */
function scriptedChannel(
  name: string,
  options: { threads?: boolean; answers?: SendOutcome[] } = {},
): Channel & {
  sent: { body: unknown; thread?: string; deliveryId: string }[];
  attempts: number;
  answers: SendOutcome[];
} {
  const answers = [...(options.answers ?? [])];
  const channel = {
    kind: options.threads ? ('slack-bot' as const) : ('webhook' as const),
    name,
    threads: options.threads ?? false,
    sent: [] as { body: unknown; thread?: string; deliveryId: string }[],
    attempts: 0,
    answers,
    render: (notice: Notice) => ({
      event: notice.event,
      runId: notice.run.id,
      runUrl: notice.runUrl,
      summary: notice.run.diagnosis?.summary,
    }),
    async send(input: { body: unknown; thread?: string; deliveryId: string }): Promise<SendOutcome> {
      channel.attempts++;
      const answer = answers.shift() ?? { ok: true, thread: `ts-${channel.attempts}` };
      if (answer.ok)
        channel.sent.push({
          body: input.body,
          deliveryId: input.deliveryId,
          ...(input.thread ? { thread: input.thread } : {}),
        });
      return answer;
    },
  };
  return channel;
}

interface Harness {
  notifier: Notifier;
  /** The outbox and runs read synchronously, beside the asynchronous ones the notifier is given (same database). */
  outbox: SyncOutbox;
  store: SyncRunStore;
  metrics: Metrics;
  clock: { now: number };
  finishRun(id: string, input?: { summary?: string; notify?: boolean }): void;
  restart(): Notifier;
}

function startNotifier(t: TestContext, channels: Channel[], options: { maxAgeMs?: number } = {}): Harness {
  const directory = mkdtempSync(join(tmpdir(), 'kubewhy-notifier-'));
  const database = openDatabase(join(directory, 'kubewhy.db'));
  const store = createRunStore(database);
  const outbox = createOutbox(database);
  const stores = createSqliteStores(database);
  const metrics = createMetrics({ version: 'test' });
  const clock = { now: Date.parse('2026-12-02T08:00:00Z') };
  const settings = {
    consoleUrl: 'https://kubewhy.example.com',
    channels,
    routes: [routeSchema.parse({ to: channels.map((channel) => channel.name) })],
    delivery: { backoffMs: 5000, backoffMaxMs: 300_000, maxAgeMs: options.maxAgeMs ?? 86_400_000 },
  };
  const build = (): Notifier =>
    createNotifier({
      outbox: stores.outbox,
      store: stores.runs,
      settings,
      metrics,
      logger: createLogger({ level: 'silent' }),
      now: () => new Date(clock.now),
    });
  const notifiers = [build()];
  t.after(async () => {
    for (const notifier of notifiers) await notifier.stop();
    database.close();
    rmSync(directory, { recursive: true, force: true });
  });
  const finishRun = (id: string, input: { summary?: string; notify?: boolean } = {}): void => {
    store.create({
      id,
      trigger: { kind: 'incident', text: 'checkout-api keeps restarting', namespace: 'staging' },
      source: 'api',
      rung: 'OBSERVE',
      now: new Date(clock.now),
    });
    store.claim(id, { now: new Date(clock.now) });
    store.finish(id, {
      status: 'completed',
      diagnosis: {
        category: 'bad-credentials',
        culprit: { kind: 'Deployment', namespace: 'staging', name: 'checkout-api' },
        summary: input.summary ?? 'the password was rotated',
        evidence: ['401 from postgres'],
        confidence: 'high',
        actions: [],
      },
      now: new Date(clock.now),
    });
    if (input.notify ?? true) notifiers.at(-1)!.runFinished(store.get(id)!);
  };
  return {
    get notifier() {
      return notifiers.at(-1)!;
    },
    outbox,
    store,
    metrics,
    clock,
    finishRun,
    restart() {
      notifiers.push(build());
      return notifiers.at(-1)!;
    },
  };
}

async function metricValue(metrics: Metrics, name: string, labels: Record<string, string>): Promise<number> {
  const metric = await metrics.registry.getSingleMetric(name)?.get();
  return (
    metric?.values.find((value) => Object.entries(labels).every(([key, wanted]) => value.labels[key] === wanted))
      ?.value ?? 0
  );
}

test('a finished run is rendered for each destination, with the link to its page, and delivered', async (t) => {
  const slack = scriptedChannel('oncall', { threads: true });
  const hook = scriptedChannel('tickets');
  const harness = startNotifier(t, [slack, hook]);
  await harness.notifier.start();
  harness.finishRun('run-1');
  await harness.notifier.deliverDue();
  assert.deepEqual(slack.sent, [
    {
      body: {
        event: 'finished',
        runId: 'run-1',
        runUrl: 'https://kubewhy.example.com/runs/run-1',
        summary: 'the password was rotated',
      },
      deliveryId: 'run-1/finished/oncall',
    },
  ]);
  assert.equal(hook.sent.length, 1);
  assert.equal(
    await metricValue(harness.metrics, 'kubewhy_notifications_sent_total', {
      destination: 'oncall',
      event: 'finished',
    }),
    1,
  );
  assert.equal(await metricValue(harness.metrics, 'kubewhy_notifications_pending', { destination: 'oncall' }), 0);
});

test("a 429 is tried again no sooner than the receiver's Retry-After", async (t) => {
  const slack = scriptedChannel('oncall', {
    answers: [{ ok: false, retryable: true, retryAfterMs: 30_000, status: 429, error: 'rate limited' }],
  });
  const harness = startNotifier(t, [slack]);
  await harness.notifier.start();
  harness.finishRun('run-1');
  await harness.notifier.deliverDue();
  assert.equal(slack.sent.length, 0);
  const [row] = harness.outbox.list();
  assert.equal(row?.nextAttemptAt, harness.clock.now + 30_000);
  harness.clock.now += 29_999;
  await harness.notifier.deliverDue();
  assert.equal(slack.attempts, 1);
  harness.clock.now += 1;
  await harness.notifier.deliverDue();
  assert.equal(slack.sent.length, 1);
  assert.equal(
    await metricValue(harness.metrics, 'kubewhy_notifications_failed_total', {
      destination: 'oncall',
      outcome: 'retrying',
    }),
    1,
  );
});

test('a receiver down for ten minutes loses nothing: every notice arrives once it is back, in backoff steps', async (t) => {
  const down: SendOutcome = { ok: false, retryable: true, error: 'connect ECONNREFUSED 127.0.0.1:9' };
  const hook = scriptedChannel('tickets', { answers: Array.from({ length: 100 }, () => down) });
  const harness = startNotifier(t, [hook]);
  await harness.notifier.start();
  for (const id of ['run-1', 'run-2', 'run-3']) harness.finishRun(id);
  const downUntil = harness.clock.now + 10 * 60_000;
  // Time passes; the notifier is woken whenever a retry comes due, as its timer would.
  while (harness.clock.now < downUntil + 10 * 60_000 && hook.sent.length < 3) {
    if (harness.clock.now >= downUntil) hook.answers.length = 0;
    await harness.notifier.deliverDue();
    const next = harness.outbox.nextDueAt();
    if (next === undefined) break;
    harness.clock.now = Math.max(harness.clock.now + 1, next);
  }
  assert.deepEqual(hook.sent.map((sent) => sent.deliveryId).sort(), [
    'run-1/finished/tickets',
    'run-2/finished/tickets',
    'run-3/finished/tickets',
  ]);
  assert.ok(
    harness.clock.now - downUntil <= 300_000 * 1.2,
    'delivered within one maximum backoff of the receiver coming back',
  );
  assert.ok(hook.attempts < 40, `${hook.attempts} attempts for 3 notices over ten minutes`);
  assert.deepEqual(
    harness.outbox.list().map((row) => row.status),
    ['sent', 'sent', 'sent'],
  );
});

test('a body the receiver refuses for good is given up at once and counted', async (t) => {
  const hook = scriptedChannel('tickets', {
    answers: [{ ok: false, retryable: false, status: 400, error: 'answered HTTP 400 (invalid_payload)' }],
  });
  const harness = startNotifier(t, [hook]);
  await harness.notifier.start();
  harness.finishRun('run-1');
  await harness.notifier.deliverDue();
  harness.clock.now += 3_600_000;
  await harness.notifier.deliverDue();
  assert.equal(hook.attempts, 1);
  assert.deepEqual(
    harness.outbox.list().map((row) => [row.status, row.lastError]),
    [['failed', 'answered HTTP 400 (invalid_payload)']],
  );
  assert.equal(
    await metricValue(harness.metrics, 'kubewhy_notifications_failed_total', {
      destination: 'tickets',
      outcome: 'gave-up',
    }),
    1,
  );
});

test('a message still failing past its maximum age is given up', async (t) => {
  const hook = scriptedChannel('tickets', {
    answers: Array.from({ length: 100 }, () => ({ ok: false, retryable: true, error: 'HTTP 503' }) as SendOutcome),
  });
  const harness = startNotifier(t, [hook], { maxAgeMs: 60_000 });
  await harness.notifier.start();
  harness.finishRun('run-1');
  for (let step = 0; step < 50 && harness.outbox.nextDueAt() !== undefined; step++) {
    await harness.notifier.deliverDue();
    harness.clock.now = Math.max(harness.clock.now + 1, harness.outbox.nextDueAt() ?? harness.clock.now);
  }
  const [row] = harness.outbox.list();
  assert.equal(row?.status, 'failed');
  assert.match(row?.lastError ?? '', /^still failing after \d+ attempts: HTTP 503$/);
});

test('on a threaded channel later notices of a run reply under its first message', async (t) => {
  const slack = scriptedChannel('oncall', { threads: true });
  const harness = startNotifier(t, [slack]);
  await harness.notifier.start();
  harness.finishRun('run-1');
  harness.notifier.alertsResolved(harness.store.get('run-1')!);
  await harness.notifier.deliverDue();
  await harness.notifier.deliverDue();
  assert.deepEqual(
    slack.sent.map((sent) => [sent.deliveryId, sent.thread ?? null]),
    [
      ['run-1/finished/oncall', null],
      ['run-1/resolved/oncall', 'ts-1'],
    ],
  );
});

test('an error that carries a token is stored and logged redacted', async (t) => {
  const hook = scriptedChannel('tickets', {
    answers: [
      { ok: false, retryable: false, error: 'refused token xoxb-263594206564-2343594206574-FGqddMF8t08v8N7Oq4i57vs1' },
    ],
  });
  const harness = startNotifier(t, [hook]);
  await harness.notifier.start();
  harness.finishRun('run-1');
  await harness.notifier.deliverDue();
  const [row] = harness.outbox.list();
  assert.doesNotMatch(row?.lastError ?? '', /FGqddMF8t08v8N7Oq4i57vs1/);
});

test('a start queues the notices a crash skipped, and never announces runs from before notifications were used', async (t) => {
  const hook = scriptedChannel('tickets');
  const harness = startNotifier(t, [hook]);
  // Runs that ended before any notice was ever recorded: nothing to reconcile.
  harness.finishRun('old-run', { notify: false });
  await harness.notifier.start();
  await harness.notifier.deliverDue();
  assert.equal(hook.sent.length, 0);

  harness.clock.now += 60_000;
  harness.finishRun('run-1');
  harness.clock.now += 1000;
  // The process dies after run-2 is stored as finished, before its notice is queued.
  harness.finishRun('run-2', { notify: false });
  await harness.notifier.deliverDue();
  await harness.notifier.stop();

  const restarted = harness.restart();
  await restarted.start();
  await restarted.deliverDue();
  assert.deepEqual(hook.sent.map((sent) => sent.deliveryId).sort(), [
    'run-1/finished/tickets',
    'run-2/finished/tickets',
  ]);
});
