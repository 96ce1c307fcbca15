import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { openDatabase } from './database.ts';
import { createOutbox, type SyncOutbox } from './outbox.ts';

function openOutbox(t: TestContext): { outbox: SyncOutbox; path: string } {
  const directory = mkdtempSync(join(tmpdir(), 'kubewhy-outbox-'));
  const path = join(directory, 'kubewhy.db');
  const database = openDatabase(path);
  t.after(() => {
    database.close();
    rmSync(directory, { recursive: true, force: true });
  });
  return { outbox: createOutbox(database), path };
}

const none = new Set<string>();

test('a notice is queued once per run, one row per destination, even when told twice', (t) => {
  const { outbox } = openOutbox(t);
  const deliveries = [
    { destination: 'oncall', body: { text: 'a' } },
    { destination: 'archive', body: { text: 'b' } },
  ];
  assert.equal(outbox.enqueue({ runId: 'run-1', key: 'finished', event: 'finished', deliveries, now: 1000 }), true);
  assert.equal(outbox.enqueue({ runId: 'run-1', key: 'finished', event: 'finished', deliveries, now: 2000 }), false);
  assert.deepEqual(
    outbox.list().map((row) => [row.deliveryId, row.destination, row.status, row.body]),
    [
      ['run-1/finished/oncall', 'oncall', 'pending', { text: 'a' }],
      ['run-1/finished/archive', 'archive', 'pending', { text: 'b' }],
    ],
  );
  assert.equal(outbox.hasNotice('run-1', 'finished'), true);
  assert.deepEqual(outbox.notedSpan(), { first: 1000, last: 1000 });
});

test('a notice no route sends anywhere is still noted, so it is not reconciled again', (t) => {
  const { outbox } = openOutbox(t);
  assert.equal(outbox.enqueue({ runId: 'run-1', key: 'resolved', event: 'resolved', deliveries: [], now: 1000 }), true);
  assert.equal(outbox.hasNotice('run-1', 'resolved'), true);
  assert.deepEqual(outbox.list(), []);
});

test('a claimed row is leased: it is not due again until the lease ends, then it is (a process killed mid-send sends it again)', (t) => {
  const { outbox } = openOutbox(t);
  outbox.enqueue({
    runId: 'run-1',
    key: 'finished',
    event: 'finished',
    deliveries: [{ destination: 'hook', body: {} }],
    now: 1000,
  });
  const [claimed] = outbox.claimDue({ now: 1000, leaseUntil: 61_000, limit: 10, threaded: none });
  assert.equal(claimed?.attempts, 1);
  assert.deepEqual(outbox.claimDue({ now: 2000, leaseUntil: 62_000, limit: 10, threaded: none }), []);
  assert.equal(outbox.nextDueAt(), 61_000);
  const again = outbox.claimDue({ now: 61_000, leaseUntil: 121_000, limit: 10, threaded: none });
  assert.equal(again[0]?.attempts, 2);
});

test('a start releases the leases of a process that is gone: the rows it was sending are due at once', (t) => {
  const { outbox } = openOutbox(t);
  outbox.enqueue({
    runId: 'run-1',
    key: 'finished',
    event: 'finished',
    deliveries: [
      { destination: 'a', body: {} },
      { destination: 'b', body: {} },
    ],
    now: 1000,
  });
  const [first, second] = outbox.claimDue({ now: 1000, leaseUntil: 151_000, limit: 10, threaded: none });
  outbox.markRetry(second!.id, { nextAttemptAt: 90_000, error: 'HTTP 503' });
  // The process dies with the first row in flight; the next one starts at 2000.
  assert.equal(outbox.releaseLeases(2000), 1);
  assert.deepEqual(
    outbox.claimDue({ now: 2000, leaseUntil: 152_000, limit: 10, threaded: none }).map((row) => row.id),
    [first!.id],
  );
  assert.equal(outbox.nextDueAt(), 90_000, 'a row waiting for its retry keeps its time');
});

test('a retry waits for its time; a sent or failed row is never claimed again', (t) => {
  const { outbox } = openOutbox(t);
  outbox.enqueue({
    runId: 'run-1',
    key: 'finished',
    event: 'finished',
    deliveries: [
      { destination: 'a', body: {} },
      { destination: 'b', body: {} },
    ],
    now: 0,
  });
  const [first, second] = outbox.claimDue({ now: 0, leaseUntil: 60_000, limit: 10, threaded: none });
  outbox.markRetry(first!.id, { nextAttemptAt: 5000, error: 'HTTP 503' });
  outbox.markFailed(second!.id, { error: 'HTTP 400: invalid_payload', now: 0 });
  assert.deepEqual(outbox.claimDue({ now: 4999, leaseUntil: 70_000, limit: 10, threaded: none }), []);
  const [retried] = outbox.claimDue({ now: 5000, leaseUntil: 70_000, limit: 10, threaded: none });
  assert.equal(retried?.destination, 'a');
  assert.equal(retried?.lastError, 'HTTP 503');
  outbox.markSent(retried!.id, { now: 5100 });
  assert.deepEqual(outbox.claimDue({ now: 1_000_000, leaseUntil: 2_000_000, limit: 10, threaded: none }), []);
  assert.deepEqual(
    outbox.list().map((row) => [row.destination, row.status, row.lastError ?? null]),
    [
      ['a', 'sent', null],
      ['b', 'failed', 'HTTP 400: invalid_payload'],
    ],
  );
});

test('on a threaded destination a reply waits for its first message, then carries its thread', (t) => {
  const { outbox } = openOutbox(t);
  const threaded = new Set(['slack']);
  outbox.enqueue({
    runId: 'run-1',
    key: 'approval:a1',
    event: 'approval',
    deliveries: [{ destination: 'slack', body: { n: 1 } }],
    now: 0,
  });
  outbox.enqueue({
    runId: 'run-1',
    key: 'finished',
    event: 'finished',
    deliveries: [{ destination: 'slack', body: { n: 2 } }],
    now: 1,
  });
  const [first, ...rest] = outbox.claimDue({ now: 10, leaseUntil: 60_000, limit: 10, threaded });
  assert.deepEqual(first?.body, { n: 1 });
  assert.deepEqual(rest, []);
  // Still in flight: the reply is not due before the first one's lease ends.
  assert.deepEqual(outbox.claimDue({ now: 20, leaseUntil: 60_000, limit: 10, threaded }), []);
  outbox.markSent(first!.id, { now: 30, thread: '1733100000.000100' });
  assert.equal(outbox.threadOf('run-1', 'slack'), '1733100000.000100');
  const [reply] = outbox.claimDue({ now: 30, leaseUntil: 60_000, limit: 10, threaded });
  assert.deepEqual(reply?.body, { n: 2 });
});

test('a first message given up on lets its replies go on their own', (t) => {
  const { outbox } = openOutbox(t);
  const threaded = new Set(['slack']);
  outbox.enqueue({
    runId: 'run-1',
    key: 'finished',
    event: 'finished',
    deliveries: [{ destination: 'slack', body: { n: 1 } }],
    now: 0,
  });
  outbox.enqueue({
    runId: 'run-1',
    key: 'resolved',
    event: 'resolved',
    deliveries: [{ destination: 'slack', body: { n: 2 } }],
    now: 1,
  });
  const [first] = outbox.claimDue({ now: 10, leaseUntil: 60_000, limit: 10, threaded });
  outbox.markFailed(first!.id, { error: 'channel_not_found', now: 20 });
  const [reply] = outbox.claimDue({ now: 20, leaseUntil: 60_000, limit: 10, threaded });
  assert.deepEqual(reply?.body, { n: 2 });
  assert.equal(outbox.threadOf('run-1', 'slack'), undefined);
});

test('pending counts per destination with the oldest creation time', (t) => {
  const { outbox } = openOutbox(t);
  outbox.enqueue({
    runId: 'run-1',
    key: 'finished',
    event: 'finished',
    deliveries: [
      { destination: 'a', body: {} },
      { destination: 'b', body: {} },
    ],
    now: 100,
  });
  outbox.enqueue({
    runId: 'run-2',
    key: 'finished',
    event: 'finished',
    deliveries: [{ destination: 'a', body: {} }],
    now: 200,
  });
  assert.deepEqual(
    outbox.pending().sort((left, right) => left.destination.localeCompare(right.destination)),
    [
      { destination: 'a', count: 2, oldestCreatedAt: 100 },
      { destination: 'b', count: 1, oldestCreatedAt: 100 },
    ],
  );
});

test('the outbox survives the process: a new connection sees every pending row', (t) => {
  const { outbox, path } = openOutbox(t);
  outbox.enqueue({
    runId: 'run-1',
    key: 'finished',
    event: 'finished',
    deliveries: [{ destination: 'a', body: { text: 'kept' } }],
    now: 100,
  });
  const other = openDatabase(path);
  t.after(() => other.close());
  assert.deepEqual(
    createOutbox(other)
      .list()
      .map((row) => row.body),
    [{ text: 'kept' }],
  );
});
