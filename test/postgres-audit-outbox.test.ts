import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import type { AuditEvent } from '../src/audit/events.ts';
import { openDatabase } from '../src/store/database.ts';
import { createPgAuditStore } from '../src/store/postgres/audit-store.ts';
import { createPgOutbox } from '../src/store/postgres/outbox.ts';
import { pgRetireBatch } from '../src/store/postgres/retention.ts';
import { migratePostgres } from '../src/store/postgres/schema.ts';
import { createSqliteStores } from '../src/store/sqlite-stores.ts';
import type { AuditStore, Outbox } from '../src/store/ports.ts';
import { sharedPostgres } from './helpers/postgres.ts';

/** One backend's audit store and outbox, and a way around them to the table underneath. */
interface Backend {
  audit: AuditStore;
  outbox: Outbox;
  /** Rewrites a stored event's payload, as someone with database access could. */
  tamper(runId: string, seq: number, payloadJson: string): Promise<void>;
  /** The payload text as stored. */
  storedPayload(runId: string, seq: number): Promise<string>;
}

const SECRET_TOKEN = 'eyJhbGciOiJIUzI1NiJ9kubewhyTestToken0123456789';
const SECRET_PASSWORD = 'correct-horse-battery-staple-42';

async function openPostgresDatabase(): Promise<string> {
  const server = await sharedPostgres();
  const url = await server.createDatabase();
  const pool = new pg.Pool({ connectionString: url });
  try {
    await migratePostgres(pool);
  } finally {
    await pool.end();
  }
  return url;
}

const backends: { name: string; open(): Promise<Backend & { close(): Promise<void> }> }[] = [
  {
    name: 'SQLite',
    async open() {
      const database = openDatabase(':memory:');
      const stores = createSqliteStores(database);
      return {
        audit: stores.audit,
        outbox: stores.outbox,
        async tamper(runId, seq, payloadJson) {
          database
            .prepare('UPDATE audit_events SET payload = ? WHERE run_id = ? AND seq = ?')
            .run(payloadJson, runId, seq);
        },
        async storedPayload(runId, seq) {
          return (
            database.prepare('SELECT payload FROM audit_events WHERE run_id = ? AND seq = ?').get(runId, seq) as {
              payload: string;
            }
          ).payload;
        },
        async close() {
          database.close();
        },
      };
    },
  },
  {
    name: 'PostgreSQL',
    async open() {
      const pool = new pg.Pool({ connectionString: await openPostgresDatabase() });
      return {
        audit: createPgAuditStore(pool),
        outbox: createPgOutbox(pool),
        async tamper(runId, seq, payloadJson) {
          await pool.query('UPDATE audit_events SET payload = $1 WHERE run_id = $2 AND seq = $3', [
            payloadJson,
            runId,
            seq,
          ]);
        },
        async storedPayload(runId, seq) {
          const { rows } = await pool.query<{ payload: string }>(
            'SELECT payload FROM audit_events WHERE run_id = $1 AND seq = $2',
            [runId, seq],
          );
          return rows[0]?.payload ?? '';
        },
        close: () => pool.end(),
      };
    },
  },
];

const T0 = Date.parse('2026-03-01T12:00:00.000Z');

for (const backend of backends) {
  describe(`audit chains and the outbox on ${backend.name}`, () => {
    let store: Backend & { close(): Promise<void> };
    before(async () => {
      store = await backend.open();
    });
    after(() => store.close());

    test('appends a chain that lists in order, ends at its head and verifies', async () => {
      const types = ['run-created', 'tool-call', 'run-finished'] as const;
      const appended: AuditEvent[] = [];
      for (const [index, type] of types.entries()) {
        appended.push(
          await store.audit.append({
            runId: 'run-chain',
            type,
            payload: { step: index },
            time: new Date(T0 + index * 1000),
          }),
        );
      }
      assert.deepEqual(
        appended.map((event) => event.seq),
        [1, 2, 3],
      );
      assert.equal(appended[1]?.prevHash, appended[0]?.hash);
      assert.deepEqual(await store.audit.list('run-chain'), appended);
      assert.deepEqual(await store.audit.list('run-chain', { afterSeq: 1, limit: 1 }), [appended[1]]);
      assert.deepEqual(await store.audit.head('run-chain'), { seq: 3, hash: appended[2]?.hash });
      assert.equal(await store.audit.head('run-never-seen'), undefined);
      assert.ok((await store.audit.runIds()).includes('run-chain'));
      assert.deepEqual(await store.audit.verify('run-chain'), { runs: 1, events: 3, problems: [] });
      assert.deepEqual(await store.audit.verify('run-never-seen'), {
        runs: 1,
        events: 0,
        problems: [{ runId: 'run-never-seen', problem: 'no audit events for this run' }],
      });
    });

    test('verify catches an event changed in the database', async () => {
      for (let step = 0; step < 3; step++)
        await store.audit.append({ runId: 'run-tampered', type: 'tool-call', payload: { step } });
      await store.tamper('run-tampered', 2, JSON.stringify({ step: 99 }));
      const { problems } = await store.audit.verify('run-tampered');
      assert.deepEqual(problems, [
        { runId: 'run-tampered', seq: 2, problem: 'hash does not match the content (the event was changed)' },
      ]);
      const all = await store.audit.verify();
      assert.ok(all.problems.some((problem) => problem.runId === 'run-tampered'));
      assert.ok(!all.problems.some((problem) => problem.runId === 'run-chain'));
    });

    test('redacts secrets in a payload before they are stored, and the redacted event verifies', async () => {
      const event = await store.audit.append({
        runId: 'run-secret',
        type: 'tool-result',
        payload: { request: `GET /api\nAuthorization: Bearer ${SECRET_TOKEN}`, password: SECRET_PASSWORD },
      });
      const stored = await store.storedPayload('run-secret', 1);
      for (const text of [
        stored,
        JSON.stringify(event.payload),
        JSON.stringify(await store.audit.list('run-secret')),
      ]) {
        assert.ok(!text.includes(SECRET_TOKEN), `no token in ${text}`);
        assert.ok(!text.includes(SECRET_PASSWORD), `no password in ${text}`);
        assert.match(text, /REDACTED/);
      }
      assert.deepEqual((await store.audit.verify('run-secret')).problems, []);
    });

    test('queues a notice once, leases what is due, and records sent, retried and failed attempts', async () => {
      const deliveries = [
        { destination: 'webhook:ops', body: { text: 'finished' } },
        { destination: 'webhook:audit', body: { text: 'finished', n: 1 } },
      ];
      assert.equal(
        await store.outbox.enqueue({
          runId: 'run-notify',
          key: 'finished',
          event: 'run.finished',
          deliveries,
          now: T0,
        }),
        true,
      );
      assert.equal(
        await store.outbox.enqueue({
          runId: 'run-notify',
          key: 'finished',
          event: 'run.finished',
          deliveries,
          now: T0 + 5,
        }),
        false,
      );
      assert.equal(await store.outbox.hasNotice('run-notify', 'finished'), true);
      assert.equal(await store.outbox.hasNotice('run-notify', 'resolved'), false);
      assert.deepEqual(await store.outbox.notedSpan(), { first: T0, last: T0 });
      assert.equal((await store.outbox.list({ runId: 'run-notify' })).length, 2);
      assert.equal(await store.outbox.nextDueAt(), T0);

      assert.deepEqual(
        await store.outbox.claimDue({ now: T0 - 1, leaseUntil: T0 + 60_000, limit: 10, threaded: new Set() }),
        [],
      );
      const claimed = await store.outbox.claimDue({ now: T0, leaseUntil: T0 + 60_000, limit: 10, threaded: new Set() });
      assert.deepEqual(
        claimed.map(({ deliveryId, runId, event, destination, body, status, attempts, nextAttemptAt, createdAt }) => ({
          deliveryId,
          runId,
          event,
          destination,
          body,
          status,
          attempts,
          nextAttemptAt,
          createdAt,
        })),
        deliveries.map((delivery) => ({
          deliveryId: `run-notify/finished/${delivery.destination}`,
          runId: 'run-notify',
          event: 'run.finished',
          destination: delivery.destination,
          body: delivery.body,
          status: 'pending',
          attempts: 1,
          nextAttemptAt: T0 + 60_000,
          createdAt: T0,
        })),
      );
      assert.deepEqual(
        await store.outbox.claimDue({ now: T0 + 1000, leaseUntil: T0 + 61_000, limit: 10, threaded: new Set() }),
        [],
        'a leased row is not claimed again',
      );
      assert.deepEqual(
        (await store.outbox.pending()).sort((left, right) => left.destination.localeCompare(right.destination)),
        [
          { destination: 'webhook:audit', count: 1, oldestCreatedAt: T0 },
          { destination: 'webhook:ops', count: 1, oldestCreatedAt: T0 },
        ],
      );

      const [ops, audit] = claimed as [(typeof claimed)[0], (typeof claimed)[0]];
      await store.outbox.markSent(ops.id, { now: T0 + 2000, thread: 'thread-1' });
      await store.outbox.markRetry(audit.id, { nextAttemptAt: T0 + 30_000, error: 'HTTP 503' });
      assert.equal(await store.outbox.threadOf('run-notify', 'webhook:ops'), 'thread-1');
      assert.equal(await store.outbox.threadOf('run-notify', 'webhook:audit'), undefined);
      assert.equal(await store.outbox.nextDueAt(), T0 + 30_000);
      const sent = (await store.outbox.list({ status: 'sent' })).find((row) => row.id === ops.id);
      assert.equal(sent?.sentAt, T0 + 2000);
      assert.deepEqual(
        (await store.outbox.list({ runId: 'run-notify', status: 'pending' })).map((row) => ({
          id: row.id,
          lastError: row.lastError,
          nextAttemptAt: row.nextAttemptAt,
        })),
        [{ id: audit.id, lastError: 'HTTP 503', nextAttemptAt: T0 + 30_000 }],
      );

      const retried = await store.outbox.claimDue({
        now: T0 + 30_000,
        leaseUntil: T0 + 90_000,
        limit: 10,
        threaded: new Set(),
      });
      assert.deepEqual(
        retried.map((row) => ({ id: row.id, attempts: row.attempts })),
        [{ id: audit.id, attempts: 2 }],
      );
      await store.outbox.markFailed(audit.id, { error: 'HTTP 400: refused', now: T0 + 31_000 });
      assert.deepEqual(
        (await store.outbox.list({ runId: 'run-notify' })).map((row) => row.status),
        ['sent', 'failed'],
      );
      assert.deepEqual(await store.outbox.pending(), []);
      assert.equal(await store.outbox.nextDueAt(), undefined);
    });

    test('holds a threaded reply until its first message is sent, and sends unthreaded ones at once', async () => {
      const now = T0 + 100_000;
      for (const key of ['finished', 'resolved']) {
        await store.outbox.enqueue({
          runId: 'run-thread',
          key,
          event: `run.${key}`,
          deliveries: [
            { destination: 'slack:#ops', body: { text: key } },
            { destination: 'webhook:ops', body: { text: key } },
          ],
          now,
        });
      }
      const threaded = new Set(['slack:#ops']);
      const first = await store.outbox.claimDue({ now, leaseUntil: now + 60_000, limit: 10, threaded });
      assert.deepEqual(
        first.map((row) => `${row.destination} ${(row.body as { text: string }).text}`),
        ['slack:#ops finished', 'webhook:ops finished', 'webhook:ops resolved'],
      );
      const reply = (await store.outbox.list({ runId: 'run-thread', status: 'pending' })).find(
        (row) => row.destination === 'slack:#ops' && row.attempts === 0,
      );
      assert.ok(reply);
      assert.ok(reply.nextAttemptAt > now, 'the reply waits');
      assert.deepEqual(
        await store.outbox.claimDue({ now: now + 1, leaseUntil: now + 60_000, limit: 10, threaded }),
        [],
        'still waiting while its first message is out',
      );

      const slackFirst = first.find((row) => row.destination === 'slack:#ops');
      assert.ok(slackFirst);
      await store.outbox.markSent(slackFirst.id, { now: now + 2, thread: '1700000000.000100' });
      const second = await store.outbox.claimDue({ now: now + 2, leaseUntil: now + 60_000, limit: 10, threaded });
      assert.deepEqual(
        second.map((row) => row.id),
        [reply.id],
      );
      assert.equal(await store.outbox.threadOf('run-thread', 'slack:#ops'), '1700000000.000100');
    });
  });
}

describe('PostgreSQL shared by several replicas', () => {
  let url: string;
  const pools: pg.Pool[] = [];
  const openPool = (config: pg.PoolConfig = {}): pg.Pool => {
    const pool = new pg.Pool({ connectionString: url, max: 10, ...config });
    pools.push(pool);
    return pool;
  };
  before(async () => {
    url = await openPostgresDatabase();
  });
  after(() => Promise.all(pools.map((pool) => pool.end())));

  test('two stores appending 400 events to one run at once write one whole chain', async () => {
    const stores = [createPgAuditStore(openPool()), createPgAuditStore(openPool())];
    const appended = await Promise.all(
      stores.flatMap((audit, replica) =>
        Array.from({ length: 200 }, (_, index) =>
          audit.append({ runId: 'run-contended', type: 'tool-call', payload: { replica, index } }),
        ),
      ),
    );
    assert.deepEqual(
      appended.map((event) => event.seq).sort((left, right) => left - right),
      Array.from({ length: 400 }, (_, index) => index + 1),
    );
    const [reader] = stores as [AuditStore];
    assert.deepEqual(await reader.verify('run-contended'), { runs: 1, events: 400, problems: [] });
    assert.equal((await reader.head('run-contended'))?.seq, 400);
  });

  test('two first appends to a new run at once both land, one after the other', async () => {
    const [left, right] = [createPgAuditStore(openPool()), createPgAuditStore(openPool())];
    const runIds = Array.from({ length: 20 }, (_, index) => `run-first-${index}`);
    await Promise.all(
      runIds.flatMap((runId) => [
        left.append({ runId, type: 'run-created', payload: {} }),
        right.append({ runId, type: 'run-created', payload: {} }),
      ]),
    );
    for (const runId of runIds) assert.deepEqual(await left.verify(runId), { runs: 1, events: 2, problems: [] });
  });

  test('two outboxes claiming 100 due rows at once claim each exactly once', async () => {
    const [enqueuer, other] = [createPgOutbox(openPool()), createPgOutbox(openPool())];
    for (let index = 0; index < 100; index++) {
      await enqueuer.enqueue({
        runId: `run-claim-${index}`,
        key: 'finished',
        event: 'run.finished',
        deliveries: [{ destination: 'webhook:ops', body: { index } }],
        now: T0,
      });
    }
    const claimAll = async (outbox: Outbox): Promise<number[]> => {
      const ids: number[] = [];
      for (;;) {
        const rows = await outbox.claimDue({ now: T0, leaseUntil: T0 + 60_000, limit: 7, threaded: new Set() });
        if (rows.length === 0) return ids;
        ids.push(...rows.map((row) => row.id));
      }
    };
    const claims = await Promise.all([claimAll(enqueuer), claimAll(other), claimAll(enqueuer), claimAll(other)]);
    const ids = claims.flat();
    assert.equal(ids.length, 100);
    assert.equal(new Set(ids).size, 100);
  });

  test('releaseLeases releases a lapsed lease and leaves a live one alone', async () => {
    const pool = openPool();
    const outbox = createPgOutbox(pool);
    for (const runId of ['run-live', 'run-lapsed']) {
      await outbox.enqueue({
        runId,
        key: 'finished',
        event: 'run.finished',
        deliveries: [{ destination: 'webhook:leases', body: {} }],
        now: T0,
      });
    }
    const [live] = await outbox.claimDue({ now: T0, leaseUntil: T0 + 60_000, limit: 1, threaded: new Set() });
    const [lapsed] = await outbox.claimDue({ now: T0, leaseUntil: T0 + 1000, limit: 1, threaded: new Set() });
    assert.ok(live && lapsed && live.runId === 'run-live' && lapsed.runId === 'run-lapsed');

    assert.equal(await outbox.releaseLeases(T0 + 5000), 1);
    const { rows } = await pool.query<{ run_id: string; leased: number; next_attempt_at: string }>(
      "SELECT run_id, leased, next_attempt_at FROM notification_outbox WHERE destination = 'webhook:leases' ORDER BY id",
    );
    assert.deepEqual(
      rows.map((row) => ({
        runId: row.run_id,
        leased: Number(row.leased),
        nextAttemptAt: Number(row.next_attempt_at),
      })),
      [
        { runId: 'run-live', leased: 1, nextAttemptAt: T0 + 60_000 },
        { runId: 'run-lapsed', leased: 0, nextAttemptAt: T0 + 5000 },
      ],
    );
  });

  test('retention batches of three replicas at once retire each due run once and anchor its head', async () => {
    const pool = openPool();
    const audit = createPgAuditStore(pool);
    const oldRuns = Array.from({ length: 30 }, (_, index) => `run-old-${String(index).padStart(2, '0')}`);
    for (const [index, runId] of oldRuns.entries()) {
      await insertRun(pool, {
        id: runId,
        status: index % 2 ? 'completed' : 'failed',
        finishedAt: new Date(T0 - (100 - index) * 3600_000).toISOString(),
      });
      await audit.append({ runId, type: 'run-created', payload: {} });
      await audit.append({ runId, type: 'run-finished', payload: {} });
    }
    await insertRun(pool, { id: 'run-recent', status: 'completed', finishedAt: new Date(T0).toISOString() });
    await insertRun(pool, { id: 'run-running', status: 'running' });
    const heads = new Map(await Promise.all(oldRuns.map(async (runId) => [runId, await audit.head(runId)] as const)));

    const sweep = async (pool: pg.Pool): Promise<string[]> => {
      const retire = pgRetireBatch(pool);
      const retired: string[] = [];
      for (;;) {
        const { count, anchored } = await retire({
          cutoff: new Date(T0 - 3600_000).toISOString(),
          retiredAt: new Date(T0).toISOString(),
          batchSize: 3,
        });
        if (count === 0) return retired;
        retired.push(...anchored.map((run) => run.runId));
      }
    };
    const swept = (await Promise.all([sweep(openPool()), sweep(openPool()), sweep(openPool())])).flat();
    assert.deepEqual([...swept].sort(), oldRuns);

    const { rows: runsLeft } = await pool.query<{ id: string }>('SELECT id FROM runs ORDER BY id');
    assert.deepEqual(
      runsLeft.map((row) => row.id),
      ['run-recent', 'run-running'],
    );
    const { rows: retired } = await pool.query<{ run_id: string; seq: string; hash: string }>(
      'SELECT run_id, seq, hash FROM audit_retired ORDER BY run_id',
    );
    assert.deepEqual(
      retired.map((row) => ({ runId: row.run_id, seq: Number(row.seq), hash: row.hash })),
      oldRuns.map((runId) => ({ runId, seq: 2, hash: heads.get(runId)?.hash })),
    );
    const { rows: events } = await pool.query<{ count: string }>(
      'SELECT COUNT(*) AS count FROM audit_events WHERE run_id = ANY($1::text[])',
      [oldRuns],
    );
    assert.equal(Number(events[0]?.count), 0);
  });

  test('a retention batch skips a run another batch holds, rather than waiting for it', async () => {
    // A batch that waited for the lock would fail here rather than hang.
    const pool = openPool({ options: '-c lock_timeout=5s' });
    for (const id of ['run-held', 'run-free'])
      await insertRun(pool, { id, status: 'completed', finishedAt: new Date(T0 - 100 * 3600_000).toISOString() });
    const holder = await pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query("SELECT id FROM runs WHERE id = 'run-held' FOR UPDATE");
      const retire = pgRetireBatch(pool);
      const batch = { cutoff: new Date(T0).toISOString(), retiredAt: new Date(T0).toISOString(), batchSize: 10 };
      assert.equal((await retire(batch)).count, 1);
      await holder.query('ROLLBACK');
      assert.equal((await retire(batch)).count, 1);
    } finally {
      holder.release();
    }
    const { rows } = await pool.query("SELECT id FROM runs WHERE id IN ('run-held', 'run-free')");
    assert.deepEqual(rows, []);
  });
});

/** A run row with only what retention reads; the rest of the columns get placeholders. */
async function insertRun(pool: pg.Pool, run: { id: string; status: string; finishedAt?: string }): Promise<void> {
  await pool.query(
    "INSERT INTO runs (id, trigger_kind, trigger, source, status, rung, created_at, finished_at) VALUES ($1, 'manual', '{}', 'test', $2, 'read', $3, $4)",
    [run.id, run.status, new Date(T0 - 200 * 3600_000).toISOString(), run.finishedAt ?? null],
  );
}
