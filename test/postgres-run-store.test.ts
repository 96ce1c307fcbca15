import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import pg from 'pg';
import type { Action, Diagnosis } from '../src/agent/diagnosis.ts';
import type { Trigger } from '../src/agent/trigger.ts';
import { openDatabase } from '../src/store/database.ts';
import { SchemaError } from '../src/store/migrations.ts';
import { latestPostgresSchemaVersion, migratePostgres, postgresSchemaVersion } from '../src/store/postgres/schema.ts';
import { openPostgresStores, redactDatabaseUrl } from '../src/store/postgres/stores.ts';
import type { AlertKey } from '../src/store/ports.ts';
import { createSqliteStores } from '../src/store/sqlite-stores.ts';
import type { Stores } from '../src/store/ports.ts';
import { sharedPostgres } from './helpers/postgres.ts';

async function openPostgres(
  t: TestContext,
  options: { owner?: string; leaseMs?: number; url?: string; onError?(error: unknown): void } = {},
): Promise<Stores> {
  const url = options.url ?? (await (await sharedPostgres()).createDatabase());
  const stores = await openPostgresStores(url, {
    owner: options.owner ?? 'test',
    ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
    ...(options.onError ? { onError: options.onError } : {}),
  });
  t.after(() => stores.close());
  return stores;
}

const backends: { name: string; open(t: TestContext): Promise<Stores> }[] = [
  {
    name: 'SQLite',
    async open(t) {
      const database = openDatabase(':memory:');
      t.after(() => database.close());
      return createSqliteStores(database);
    },
  },
  { name: 'PostgreSQL', open: (t) => openPostgres(t) },
];

function alertTrigger(alertname: string, fingerprint: string, namespace = 'shop'): Trigger {
  return {
    kind: 'alert',
    alert: { labels: { alertname, namespace }, annotations: {}, fingerprint, startsAt: '2025-03-01T10:00:00.000Z' },
  };
}

function alertKey(fingerprint: string): AlertKey {
  return { fingerprint, startsAt: '2025-03-01T10:00:00.000Z' };
}

const incident: Trigger = { kind: 'incident', text: 'checkout is slow', namespace: 'shop' };

function heldAction(id: string): Action {
  return { id, tool: 'rollout_undo', args: { name: 'checkout' }, risk: 'write', status: 'awaiting_approval' };
}

function diagnosisOf(category: Diagnosis['category']): Diagnosis {
  return { category, summary: 'the rollout broke it', evidence: ['pod restarted'], confidence: 'high', actions: [] };
}

const at = (minute: number): Date => new Date(Date.UTC(2025, 2, 1, 10, minute));

/** A run with an alert, attached as intake attaches it. */
async function createAlertRun(
  stores: Stores,
  id: string,
  fingerprint: string,
  extra: { culpritKeys?: string[]; now?: Date } = {},
) {
  const alert = alertKey(fingerprint);
  const run = await stores.runs.create({
    id,
    trigger: alertTrigger('KubePodCrashLooping', fingerprint),
    source: 'alertmanager',
    rung: 'OBSERVE',
    alert,
    ...extra,
  });
  await stores.runs.attachAlert({
    runId: id,
    alert,
    labels: { alertname: 'KubePodCrashLooping', namespace: 'shop' },
    now: extra.now ?? at(0),
  });
  return run;
}

async function parkedRun(stores: Stores, id: string, actions: Action[]): Promise<void> {
  await stores.runs.create({ id, trigger: incident, source: 'api', rung: 'ACT' });
  await stores.runs.claim(id);
  assert.equal(await stores.runs.park(id, { checkpoint: `checkpoint of ${id}`, actions }), true);
}

for (const backend of backends) {
  describe(`the run store on ${backend.name}`, () => {
    test('gives back what it created, with the alerts attached to the run', async (t) => {
      const stores = await backend.open(t);
      const created = await createAlertRun(stores, 'run-1', 'fp-1', { now: at(1) });
      const later = await stores.runs.create({
        id: 'run-2',
        trigger: incident,
        source: 'api',
        rung: 'OBSERVE',
        notBefore: at(30),
        now: at(2),
      });
      assert.ok(later.sequence > created.sequence);
      assert.equal(created.status, 'queued');
      assert.equal(created.namespace, 'shop');

      const stored = await stores.runs.get('run-1');
      assert.deepEqual(stored, {
        ...created,
        alerts: [
          {
            fingerprint: 'fp-1',
            alertname: 'KubePodCrashLooping',
            status: 'firing',
            startsAt: '2025-03-01T10:00:00.000Z',
            labels: { alertname: 'KubePodCrashLooping', namespace: 'shop' },
            receivedAt: at(1).toISOString(),
            repeats: 0,
          },
        ],
        alertCount: 1,
      });
      assert.deepEqual(await stores.runs.get('run-2'), { ...later, alerts: [], alertCount: 0 });
      assert.equal(await stores.runs.get('missing'), undefined);
    });

    test('lists newest first, a page at a time, narrowed by each filter', async (t) => {
      const stores = await backend.open(t);
      for (let index = 1; index <= 5; index++)
        await stores.runs.create({
          id: `run-${index}`,
          trigger: { kind: 'incident', text: 'x', namespace: index % 2 ? 'shop' : 'ops' },
          source: 'api',
          rung: 'OBSERVE',
        });
      await stores.runs.claim('run-1', {
        cluster: { source: 'kubeconfig', context: 'prod-eu', server: 'https://prod-eu:6443' },
      });
      await stores.runs.finish('run-1', { status: 'completed', diagnosis: diagnosisOf('app-crash') });
      await stores.runs.claim('run-2', { cluster: { source: 'mock', server: 'http://mock', scenario: 'oom' } });
      await stores.runs.finish('run-2', { status: 'completed', diagnosis: diagnosisOf('oom-killed') });

      const first = await stores.runs.list({ limit: 2 });
      assert.deepEqual(
        first.runs.map((run) => run.id),
        ['run-5', 'run-4'],
      );
      const second = await stores.runs.list({ limit: 2, before: first.nextCursor });
      assert.deepEqual(
        second.runs.map((run) => run.id),
        ['run-3', 'run-2'],
      );
      const last = await stores.runs.list({ limit: 2, before: second.nextCursor });
      assert.deepEqual(
        last.runs.map((run) => run.id),
        ['run-1'],
      );
      assert.equal(last.nextCursor, undefined);

      const ids = async (filters: Parameters<Stores['runs']['list']>[0]) =>
        (await stores.runs.list(filters)).runs.map((run) => run.id);
      assert.deepEqual(await ids({ limit: 10, status: 'queued' }), ['run-5', 'run-4', 'run-3']);
      assert.deepEqual(await ids({ limit: 10, namespace: 'ops' }), ['run-4', 'run-2']);
      assert.deepEqual(await ids({ limit: 10, category: 'app-crash' }), ['run-1']);
      assert.deepEqual(await ids({ limit: 10, cluster: 'prod-eu' }), ['run-1']);
      assert.deepEqual(await ids({ limit: 10, cluster: 'https://prod-eu:6443' }), ['run-1']);
      assert.deepEqual(await ids({ limit: 10, cluster: 'oom' }), ['run-2']);
      assert.deepEqual(await ids({ limit: 10, status: 'completed', namespace: 'ops', category: 'oom-killed' }), [
        'run-2',
      ]);
      assert.deepEqual(await ids({ limit: 10, status: 'queued', category: 'oom-killed' }), []);
    });

    test('shows every alert on the run and the first twenty in a list, with the count', async (t) => {
      const stores = await backend.open(t);
      await stores.runs.create({ id: 'storm', trigger: incident, source: 'api', rung: 'OBSERVE' });
      for (let index = 0; index < 25; index++)
        await stores.runs.attachAlert({
          runId: 'storm',
          alert: alertKey(`fp-${String(index).padStart(2, '0')}`),
          labels: {},
          now: at(index),
        });
      const full = await stores.runs.get('storm');
      assert.equal(full?.alerts?.length, 25);
      assert.equal(full?.alertCount, 25);
      assert.equal(full?.alerts?.[0]?.fingerprint, 'fp-00');
      const [listed] = (await stores.runs.list({ limit: 1 })).runs;
      assert.deepEqual(listed?.alerts, full?.alerts?.slice(0, 20));
      assert.equal(listed?.alertCount, 25);
    });

    test('finds the latest run of an alert firing, and tells a cancelled one', async (t) => {
      const stores = await backend.open(t);
      await createAlertRun(stores, 'first', 'fp-1', { now: at(1) });
      assert.equal(await stores.runs.cancelQueued('first', 'cancelled: the alert resolved', at(2)), true);
      await stores.runs.create({
        id: 'second',
        trigger: alertTrigger('X', 'fp-1'),
        source: 'alertmanager',
        rung: 'OBSERVE',
        alert: alertKey('fp-1'),
        earlierFailures: 2,
        now: at(3),
      });
      assert.deepEqual(await stores.runs.findByAlert(alertKey('fp-1')), {
        id: 'first',
        status: 'failed',
        createdAt: at(1).toISOString(),
        finishedAt: at(2).toISOString(),
        earlierFailures: 0,
        cancelled: true,
      });
      await stores.runs.attachAlert({ runId: 'second', alert: alertKey('fp-1'), labels: {}, now: at(3) });
      assert.deepEqual(await stores.runs.findByAlert(alertKey('fp-1')), {
        id: 'second',
        status: 'queued',
        createdAt: at(3).toISOString(),
        earlierFailures: 2,
        cancelled: false,
      });
      assert.equal(await stores.runs.findByAlert(alertKey('fp-unknown')), undefined);
    });

    test('finds the run that answers for a culprit key last, and node incidents by time', async (t) => {
      const stores = await backend.open(t);
      await createAlertRun(stores, 'older', 'fp-1', {
        culpritKeys: ['deployment:shop/checkout', 'node:worker-1', 'node:worker-1'],
      });
      await createAlertRun(stores, 'newer', 'fp-2');
      assert.equal((await stores.runs.findByCulprit(['deployment:shop/checkout']))?.id, 'older');
      await stores.runs.addCulpritKeys('newer', ['deployment:shop/checkout']);
      assert.equal((await stores.runs.findByCulprit(['node:worker-1', 'deployment:shop/checkout']))?.id, 'newer');
      // A key the run answers for already is not registered again: the other run stays the latest.
      await stores.runs.addCulpritKeys('older', ['deployment:shop/checkout']);
      assert.equal((await stores.runs.findByCulprit(['deployment:shop/checkout']))?.id, 'newer');
      assert.equal(await stores.runs.findByCulprit(['service:none']), undefined);

      assert.equal(await stores.runs.hasNodeIncidentSince(at(50)), true);
      await stores.runs.claim('older');
      await stores.runs.finish('older', { status: 'completed', now: at(10) });
      assert.equal(await stores.runs.hasNodeIncidentSince(at(5)), true);
      assert.equal(await stores.runs.hasNodeIncidentSince(at(11)), false);
    });

    test('attaches an alert once and counts its repeats and what still fires', async (t) => {
      const stores = await backend.open(t);
      await createAlertRun(stores, 'run', 'fp-1');
      await stores.runs.attachAlert({ runId: 'run', alert: alertKey('fp-1'), labels: { alertname: 'changed' } });
      await stores.runs.attachAlert({ runId: 'run', alert: alertKey('fp-2'), labels: {} });
      await stores.runs.recordAlertRepeat('run', alertKey('fp-1'));
      await stores.runs.recordRepeat('run');
      assert.equal(await stores.runs.recordAlertResolved('run', alertKey('fp-2'), '2025-03-01T11:00:00.000Z'), 1);
      assert.equal(await stores.runs.recordAlertResolved('run', alertKey('fp-1'), '2025-03-01T11:05:00.000Z'), 0);
      await stores.runs.recordResolved('run', '2025-03-01T11:05:00.000Z');
      const run = await stores.runs.get('run');
      assert.equal(run?.alertCount, 2);
      assert.deepEqual(
        run?.alerts?.map((alert) => [alert.fingerprint, alert.alertname, alert.status, alert.repeats, alert.endsAt]),
        [
          ['fp-1', 'KubePodCrashLooping', 'resolved', 1, '2025-03-01T11:05:00.000Z'],
          ['fp-2', undefined, 'resolved', 0, '2025-03-01T11:00:00.000Z'],
        ],
      );
      assert.deepEqual(run?.alert, { ...alertKey('fp-1'), repeats: 1, resolvedAt: '2025-03-01T11:05:00.000Z' });
    });

    test('starts a queued run once and ends an unfinished run once', async (t) => {
      const stores = await backend.open(t);
      await stores.runs.create({ id: 'run', trigger: incident, source: 'api', rung: 'OBSERVE' });
      const cluster = { source: 'mock' as const, server: 'http://mock', scenario: 'oom' };
      const claimed = await stores.runs.claim('run', { now: at(1), cluster });
      assert.equal(claimed?.status, 'running');
      assert.equal(claimed?.attempts, 1);
      assert.equal(claimed?.startedAt, at(1).toISOString());
      assert.deepEqual(claimed?.cluster, cluster);
      assert.deepEqual(claimed, await stores.runs.get('run'));
      assert.equal(await stores.runs.claim('run'), undefined);
      assert.equal(await stores.runs.cancelQueued('run', 'cancelled: resolved'), false);
      assert.equal(
        await stores.runs.retargetQueued('run', { trigger: alertTrigger('X', 'fp-9'), alert: alertKey('fp-9') }),
        false,
      );

      await stores.runs.updateProgress('run', { status: 'awaiting_approval', actions: [heldAction('a-1')] });
      assert.equal((await stores.runs.get('run'))?.status, 'awaiting_approval');
      assert.equal(await stores.runs.requeue('run'), true);
      assert.equal((await stores.runs.claim('run'))?.attempts, 2);

      assert.equal(
        await stores.runs.finish('run', {
          status: 'completed',
          diagnosis: diagnosisOf('app-crash'),
          usage: { input: 10, output: 2, cacheRead: 0, cacheWrite: 0 },
          steps: 3,
          now: at(5),
        }),
        true,
      );
      assert.equal(await stores.runs.finish('run', { status: 'failed', reason: 'again' }), false);
      await stores.runs.updateProgress('run', { status: 'running', actions: [] });
      const finished = await stores.runs.get('run');
      assert.equal(finished?.status, 'completed');
      assert.equal(finished?.steps, 3);
      assert.deepEqual(finished?.actions, [heldAction('a-1')]);
      assert.equal(await stores.runs.requeue('run'), false);
    });

    test('gives a queued run another of its alerts as its trigger', async (t) => {
      const stores = await backend.open(t);
      await createAlertRun(stores, 'run', 'fp-1');
      assert.equal(
        await stores.runs.retargetQueued('run', {
          trigger: alertTrigger('Other', 'fp-2', 'ops'),
          alert: alertKey('fp-2'),
        }),
        true,
      );
      const run = await stores.runs.get('run');
      assert.equal(run?.alert?.fingerprint, 'fp-2');
      assert.equal(run?.namespace, 'ops');
    });

    test('parks a run with its checkpoint and queues it again once every held action is decided', async (t) => {
      const stores = await backend.open(t);
      await parkedRun(stores, 'run', [heldAction('a-1'), heldAction('a-2')]);
      assert.deepEqual(
        (await stores.runs.listParked()).map((run) => [run.id, run.parked]),
        [['run', true]],
      );
      assert.equal(await stores.runs.checkpointOf('run'), 'checkpoint of run');

      const first = await stores.runs.decideAction({
        runId: 'run',
        actionId: 'a-1',
        decision: 'approved',
        by: 'ana',
        reason: 'looks right',
        now: at(7),
      });
      assert.equal(first.outcome, 'decided');
      assert.ok(first.outcome === 'decided');
      assert.equal(first.resumable, false);
      assert.deepEqual(first.action, {
        ...heldAction('a-1'),
        status: 'approved',
        decidedAt: at(7).toISOString(),
        decidedBy: 'ana',
        decisionReason: 'looks right',
      });
      assert.equal(first.run.status, 'awaiting_approval');
      assert.deepEqual(await stores.runs.decideAction({ runId: 'run', actionId: 'a-1', decision: 'rejected' }), {
        outcome: 'not-pending',
        status: 'approved',
      });
      assert.deepEqual(await stores.runs.decideAction({ runId: 'run', actionId: 'a-9', decision: 'rejected' }), {
        outcome: 'not-found',
      });
      assert.deepEqual(await stores.runs.decideAction({ runId: 'nothing', actionId: 'a-1', decision: 'rejected' }), {
        outcome: 'not-found',
      });

      const second = await stores.runs.decideAction({ runId: 'run', actionId: 'a-2', decision: 'expired' });
      assert.ok(second.outcome === 'decided');
      assert.equal(second.resumable, true);
      assert.equal(second.run.status, 'queued');
      const stored = await stores.runs.get('run');
      assert.equal(stored?.status, 'queued');
      assert.deepEqual(
        stored?.actions.map((action) => action.status),
        ['approved', 'expired'],
      );
      assert.deepEqual(await stores.runs.listParked(), []);
    });

    test('takes exactly one of two decisions made at once', async (t) => {
      const stores = await backend.open(t);
      await parkedRun(stores, 'run', [heldAction('a-1')]);
      const outcomes = await Promise.all([
        stores.runs.decideAction({ runId: 'run', actionId: 'a-1', decision: 'approved', by: 'ana' }),
        stores.runs.decideAction({ runId: 'run', actionId: 'a-1', decision: 'rejected', by: 'bo' }),
      ]);
      assert.deepEqual(outcomes.map((outcome) => outcome.outcome).sort(), ['decided', 'not-pending']);
      const decided = outcomes.find((outcome) => outcome.outcome === 'decided');
      const refused = outcomes.find((outcome) => outcome.outcome === 'not-pending');
      assert.ok(decided?.outcome === 'decided' && refused?.outcome === 'not-pending');
      assert.equal(refused.status, decided.action.status);
      assert.equal((await stores.runs.get('run'))?.actions[0]?.status, decided.action.status);
    });

    test('holds a run retried later until its time, and starts it without the hold', async (t) => {
      const stores = await backend.open(t);
      await stores.runs.create({ id: 'run', trigger: incident, source: 'api', rung: 'OBSERVE' });
      assert.equal(await stores.runs.retryLater('run', at(30)), false);
      await stores.runs.claim('run');
      assert.equal(await stores.runs.retryLater('run', at(30)), true);
      const waiting = await stores.runs.get('run');
      assert.equal(waiting?.status, 'queued');
      assert.equal(waiting?.notBefore, at(30).toISOString());
      const again = await stores.runs.claim('run');
      assert.equal(again?.notBefore, undefined);
      assert.equal(again?.attempts, 2);
    });

    test('merges a running run into another: its alerts and keys find the other', async (t) => {
      const stores = await backend.open(t);
      await createAlertRun(stores, 'joined', 'fp-1', { culpritKeys: ['deployment:shop/checkout'] });
      await createAlertRun(stores, 'merged', 'fp-2', { culpritKeys: ['node:worker-1'] });
      await stores.runs.attachAlert({ runId: 'merged', alert: alertKey('fp-1'), labels: {} });
      assert.equal(await stores.runs.mergeInto({ id: 'merged', into: 'joined', reason: 'part of joined' }), false);
      await stores.runs.claim('merged');
      assert.equal(
        await stores.runs.mergeInto({ id: 'merged', into: 'joined', reason: 'part of joined', now: at(9) }),
        true,
      );
      assert.equal(await stores.runs.mergeInto({ id: 'merged', into: 'joined', reason: 'part of joined' }), false);

      const merged = await stores.runs.get('merged');
      assert.deepEqual(
        [merged?.status, merged?.reason, merged?.finishedAt],
        ['completed', 'part of joined', at(9).toISOString()],
      );
      const joined = await stores.runs.get('joined');
      assert.deepEqual(
        joined?.alerts?.map((alert) => alert.fingerprint),
        ['fp-1', 'fp-2'],
      );
      assert.equal((await stores.runs.findByAlert(alertKey('fp-2')))?.id, 'joined');
      assert.equal((await stores.runs.findByCulprit(['node:worker-1']))?.id, 'joined');
    });

    test('lists the unfinished runs oldest first', async (t) => {
      const stores = await backend.open(t);
      for (const id of ['a', 'b', 'c', 'd'])
        await stores.runs.create({ id, trigger: incident, source: 'api', rung: 'OBSERVE' });
      await stores.runs.claim('b');
      await stores.runs.cancelQueued('c', 'cancelled: resolved');
      await parkedRun(stores, 'e', [heldAction('a-1')]);
      assert.deepEqual(
        (await stores.runs.listUnfinished()).map((run) => [run.id, run.status]),
        [
          ['a', 'queued'],
          ['b', 'running'],
          ['d', 'queued'],
          ['e', 'awaiting_approval'],
        ],
      );
      await stores.ping();
      await stores.runs.ping();
    });

    test('commits a batch of writes before answering, and undoes a failing job alone', async (t) => {
      const stores = await backend.open(t);
      const committed: string[] = [];
      const job = (id: string, fail = false) =>
        stores.writes.run(async (tx) => {
          await tx.runs.create({ id, trigger: incident, source: 'api', rung: 'OBSERVE' });
          await tx.runs.addCulpritKeys(id, [`key:${id}`]);
          if (fail) throw new Error(`job ${id} failed`);
          return { result: id, afterCommit: () => committed.push(id) };
        });
      const outcomes = await Promise.allSettled([job('one'), job('two', true), job('three')]);
      assert.deepEqual(
        outcomes.map((outcome) => outcome.status),
        ['fulfilled', 'rejected', 'fulfilled'],
      );
      assert.deepEqual(committed, ['one', 'three']);
      assert.equal((await stores.runs.get('one'))?.status, 'queued');
      assert.equal(await stores.runs.get('two'), undefined);
      assert.equal(await stores.runs.findByCulprit(['key:two']), undefined);
      assert.equal((await stores.runs.findByCulprit(['key:three']))?.id, 'three');
      assert.equal(await job('four', true).catch((error: Error) => error.message), 'job four failed');
      assert.equal(await stores.runs.get('four'), undefined);
    });
  });
}

describe('the run store on PostgreSQL shared by replicas', () => {
  test('applies its schema once, with replicas that start together waiting for each other', async (t) => {
    const url = await (await sharedPostgres()).createDatabase();
    const [first, second] = await Promise.all([
      openPostgres(t, { url, owner: 'a' }),
      openPostgres(t, { url, owner: 'b' }),
    ]);
    await first.runs.create({ id: 'run', trigger: incident, source: 'api', rung: 'OBSERVE' });
    assert.equal((await second.runs.get('run'))?.id, 'run');

    const pool = new pg.Pool({ connectionString: url });
    t.after(() => pool.end());
    assert.deepEqual(await migratePostgres(pool), []);
    assert.equal(await postgresSchemaVersion(pool), latestPostgresSchemaVersion());
    assert.equal(
      (await pool.query<{ count: number }>('SELECT count(*)::int AS count FROM kubewhy_schema')).rows[0]?.count,
      1,
    );
  });

  test('refuses a database newer than this build, naming it without its password', async (t) => {
    const url = await (await sharedPostgres()).createDatabase();
    const pool = new pg.Pool({ connectionString: url });
    t.after(() => pool.end());
    await migratePostgres(pool);
    await pool.query('UPDATE kubewhy_schema SET version = 99');
    const withPassword = new URL(url);
    withPassword.password = 'hunter2';
    await assert.rejects(openPostgresStores(withPassword.toString(), { owner: 'test' }), (error: Error) => {
      assert.ok(error instanceof SchemaError);
      assert.match(error.message, /schema version 99, newer than this kubewhy knows \(1\)/);
      assert.doesNotMatch(error.message, /hunter2/);
      return true;
    });
    assert.equal(redactDatabaseUrl(withPassword.toString()).includes('hunter2'), false);
    assert.match(redactDatabaseUrl(withPassword.toString()), /:\*\*\*@/);
    assert.equal(
      redactDatabaseUrl('host=db user=kubewhy password=hunter2 dbname=kubewhy'),
      'host=db user=kubewhy password=*** dbname=kubewhy',
    );
    assert.equal(
      redactDatabaseUrl('postgres://db/kubewhy?password=hunter2&sslmode=require'),
      'postgres://db/kubewhy?password=***&sslmode=require',
    );
    await assert.rejects(
      openPostgresStores(url, { owner: 'test', migrate: false }),
      /schema version 99 and this kubewhy needs 1/,
    );
  });

  test('refuses an unmigrated database when told not to migrate', async () => {
    const url = await (await sharedPostgres()).createDatabase();
    await assert.rejects(
      openPostgresStores(url, { owner: 'test', migrate: false }),
      (error: Error) => error instanceof SchemaError && /schema version 0/.test(error.message),
    );
  });

  test('hands each queued run to exactly one of two replicas claiming at once', async (t) => {
    const url = await (await sharedPostgres()).createDatabase();
    const [first, second] = await Promise.all([
      openPostgres(t, { url, owner: 'a' }),
      openPostgres(t, { url, owner: 'b' }),
    ]);
    for (let index = 0; index < 50; index++)
      await first.runs.create({ id: `run-${index}`, trigger: incident, source: 'api', rung: 'OBSERVE' });
    assert.equal(await first.shared?.depth(), 50);

    const claimedBy: Record<string, string[]> = { a: [], b: [] };
    const worker = async (stores: Stores): Promise<void> => {
      const queue = stores.shared;
      assert.ok(queue);
      for (;;) {
        const run = await queue.claimNext({ now: new Date() });
        if (!run) return;
        claimedBy[queue.owner]?.push(run.id);
      }
    };
    await Promise.all([first, second, first, second, first, second].map(worker));
    const all = [...(claimedBy.a ?? []), ...(claimedBy.b ?? [])].sort();
    assert.equal(all.length, 50);
    assert.equal(new Set(all).size, 50);
    assert.ok((claimedBy.a?.length ?? 0) > 0 && (claimedBy.b?.length ?? 0) > 0);
    assert.equal(await first.shared?.depth(), 0);
  });

  test('claims the oldest due run, leased to its replica, as `get` reads it', async (t) => {
    const stores = await openPostgres(t, { owner: 'a', leaseMs: 60_000 });
    const queue = stores.shared;
    assert.ok(queue);
    await createAlertRun(stores, 'later', 'fp-1');
    await stores.runs.create({ id: 'held', trigger: incident, source: 'api', rung: 'OBSERVE', notBefore: at(30) });
    const cluster = { source: 'mock' as const, server: 'http://mock', scenario: 'oom' };
    const claimed = await queue.claimNext({ now: at(10), cluster });
    assert.equal(claimed?.id, 'later');
    assert.deepEqual(claimed, await stores.runs.get('later'));
    assert.equal(claimed?.attempts, 1);
    assert.deepEqual(claimed?.cluster, cluster);
    // Not due before its time, though queued.
    assert.equal(await queue.claimNext({ now: at(10) }), undefined);
    assert.equal(await queue.depth(), 1);
    assert.equal((await queue.claimNext({ now: at(30) }))?.id, 'held');
  });

  test('keeps a lease while heartbeats come, and another replica takes the run over once it runs out', async (t) => {
    const url = await (await sharedPostgres()).createDatabase();
    const [first, second] = await Promise.all([
      openPostgres(t, { url, owner: 'a', leaseMs: 1000 }),
      openPostgres(t, { url, owner: 'b', leaseMs: 1000 }),
    ]);
    const [queueA, queueB] = [first.shared, second.shared];
    assert.ok(queueA && queueB);
    for (const id of ['one', 'two']) await first.runs.create({ id, trigger: incident, source: 'api', rung: 'OBSERVE' });
    const start = new Date('2025-03-01T10:00:00.000Z');
    const plus = (ms: number): Date => new Date(start.getTime() + ms);
    await queueA.claimNext({ now: start });
    await queueB.claimNext({ now: start });

    assert.deepEqual(await queueA.heartbeat(['one', 'two', 'missing'], plus(900)), ['one']);
    // 'one' was renewed until 1.9 s; b's 'two' expired at 1 s and is taken over by the first to sweep, once.
    assert.deepEqual(
      (await queueA.takeExpired(plus(1500))).map((run) => run.id),
      ['two'],
    );
    assert.deepEqual(await queueB.takeExpired(plus(1500)), []);
    assert.deepEqual(await queueA.takeExpired(plus(1500)), []);
    assert.deepEqual(await queueB.heartbeat(['two'], plus(1600)), []);

    const [taken] = await queueB.takeExpired(plus(2000));
    assert.equal(taken?.id, 'one');
    assert.deepEqual(taken, await first.runs.get('one'));
    assert.deepEqual(await queueA.takeExpired(plus(2000)), []);
    assert.deepEqual(await queueA.heartbeat(['one', 'two'], plus(2100)), ['two']);

    // A run that ends holds no lease: nothing to renew or take over.
    await first.runs.finish('two', { status: 'completed' });
    assert.deepEqual(await queueA.heartbeat(['two'], plus(2200)), []);
    assert.deepEqual(await queueB.takeExpired(plus(60_000)), [await first.runs.get('one')]);
  });

  test('wakes a listener of another replica when runs are queued or end', async (t) => {
    const url = await (await sharedPostgres()).createDatabase();
    const [first, second] = await Promise.all([
      openPostgres(t, { url, owner: 'a' }),
      openPostgres(t, { url, owner: 'b' }),
    ]);
    assert.ok(first.shared && second.shared);
    let heardQueued: () => void = () => undefined;
    let heardEnded: (runId: string) => void = () => undefined;
    const queued = new Promise<void>((resolve) => (heardQueued = resolve));
    const ended = new Promise<string>((resolve) => (heardEnded = resolve));
    const listener = await second.shared.listen({ queued: () => heardQueued(), ended: (runId) => heardEnded(runId) });
    t.after(() => listener.stop());
    await first.shared.notifyQueued();
    await queued;
    await first.shared.notifyEnded('run-7');
    assert.equal(await ended, 'run-7');
  });

  test('listens again after losing its connection, and wakes once for what it may have missed', async (t) => {
    const url = await (await sharedPostgres()).createDatabase();
    const errors: unknown[] = [];
    const [first, second] = await Promise.all([
      openPostgres(t, { url, owner: 'a' }),
      openPostgres(t, { url, owner: 'b', onError: (error) => errors.push(error) }),
    ]);
    assert.ok(first.shared && second.shared);
    let heardQueued: () => void = () => undefined;
    let heardEnded: (runId: string) => void = () => undefined;
    const listener = await second.shared.listen({ queued: () => heardQueued(), ended: (runId) => heardEnded(runId) });
    t.after(() => listener.stop());

    const woken = new Promise<void>((resolve) => (heardQueued = resolve));
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    t.after(() => admin.end());
    const { rows } = await admin.query<{ ended: boolean }>(
      "SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'",
    );
    assert.deepEqual(rows, [{ ended: true }]);
    await woken;
    assert.ok(errors.length > 0);

    const ended = new Promise<string>((resolve) => (heardEnded = resolve));
    await first.shared.notifyEnded('run-8');
    assert.equal(await ended, 'run-8');
  });

  test('refuses a second unfinished run for one alert firing, in a batch too, and allows one once it ended', async (t) => {
    const stores = await openPostgres(t);
    await createAlertRun(stores, 'first', 'fp-1');
    await assert.rejects(
      stores.runs.create({
        id: 'second',
        trigger: alertTrigger('X', 'fp-1'),
        source: 'alertmanager',
        rung: 'OBSERVE',
        alert: alertKey('fp-1'),
      }),
      { code: '23505' },
    );

    const create = (id: string, fingerprint: string) =>
      stores.writes.run(async (tx) => ({
        result: (
          await tx.runs.create({
            id,
            trigger: alertTrigger('X', fingerprint),
            source: 'alertmanager',
            rung: 'OBSERVE',
            alert: alertKey(fingerprint),
          })
        ).id,
      }));
    const outcomes = await Promise.allSettled([create('third', 'fp-1'), create('fourth', 'fp-2')]);
    assert.equal(outcomes[0]?.status, 'rejected');
    assert.deepEqual(outcomes[1], { status: 'fulfilled', value: 'fourth' });

    await stores.runs.cancelQueued('first', 'cancelled: resolved');
    assert.equal(await create('fifth', 'fp-1'), 'fifth');
  });
});
