/**
 * The dispatcher's contract (src/runs/dispatch/dispatcher.ts), run against both
 * implementations: the in-process one over SQLite, and the shared one over a real
 * PostgreSQL, whose database is the queue. The run service relies on nothing else.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { createMetrics } from '../src/metrics.ts';
import type { Dispatcher, DispatcherInput } from '../src/runs/dispatch/dispatcher.ts';
import { createLocalDispatcher } from '../src/runs/dispatch/local.ts';
import { createSharedDispatcher } from '../src/runs/dispatch/shared.ts';
import { openDatabase } from '../src/store/database.ts';
import { openPostgresStores } from '../src/store/postgres/stores.ts';
import type { RunRecord } from '../src/store/ports.ts';
import { createSqliteStores } from '../src/store/sqlite-stores.ts';
import type { Stores } from '../src/store/ports.ts';
import { sharedPostgres } from './helpers/postgres.ts';

interface Bench {
  dispatcher: Dispatcher;
  stores: Stores;
  /** Run ids in the order a worker took them. */
  started: string[];
  /** Ends the run a worker holds (the worker is free then). */
  finish(id: string): void;
  close(): Promise<void>;
}

interface Options {
  concurrency?: number;
  queueSize?: number;
  holdMs?: number;
  /** Workers return at once instead of holding their run until `finish`. */
  quick?: boolean;
}

const IMPLEMENTATIONS: { name: string; open(options: Options): Promise<Bench> }[] = [
  {
    name: 'local (SQLite)',
    open: (options) =>
      openBench(createSqliteStores(openDatabase(':memory:')), options, (input) => createLocalDispatcher(input)),
  },
  {
    name: 'shared (PostgreSQL)',
    async open(options) {
      const url = await (await sharedPostgres()).createDatabase();
      const stores = await openPostgresStores(url, { owner: 'replica-a', leaseMs: 5_000 });
      const queue = stores.shared;
      assert.ok(queue);
      return openBench(stores, options, (input) => createSharedDispatcher({ ...input, queue }));
    },
  },
];

async function openBench(
  stores: Stores,
  options: Options,
  create: (input: DispatcherInput) => Dispatcher,
): Promise<Bench> {
  const started: string[] = [];
  const holding = new Map<string, () => void>();
  const logger = pino({ level: 'silent' });
  const dispatcher = create({
    concurrency: options.concurrency ?? 2,
    queueSize: options.queueSize ?? 10,
    holdMs: options.holdMs ?? 0,
    recovery: { store: stores.runs, audit: stores.audit, maxAttempts: 3 },
    metrics: createMetrics({ version: 'test' }),
    logger,
    now: () => new Date(),
    run(id) {
      started.push(id);
      if (options.quick) return Promise.resolve();
      return new Promise((resolve) => holding.set(id, resolve));
    },
    endedElsewhere: () => undefined,
  });
  return {
    dispatcher,
    stores,
    started,
    finish(id) {
      const release = holding.get(id);
      assert.ok(release, `${id} is not running`);
      holding.delete(id);
      release();
    },
    async close() {
      dispatcher.pause();
      for (const release of holding.values()) release();
      await dispatcher.idle();
      await dispatcher.close();
      await stores.close();
    },
  };
}

let sequence = 0;
async function storeRun(stores: Stores, notBefore?: Date): Promise<RunRecord> {
  sequence++;
  return stores.runs.create({
    id: `run-${String(sequence).padStart(4, '0')}`,
    trigger: { kind: 'incident', text: `incident ${sequence}` },
    source: 'api',
    rung: 'OBSERVE',
    ...(notBefore ? { notBefore } : {}),
  });
}

async function eventually(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const implementation of IMPLEMENTATIONS) {
  test(`${implementation.name}: a run stored in a promised place and committed is taken by one worker, once`, async () => {
    const bench = await implementation.open({ quick: true });
    try {
      await bench.dispatcher.start();
      const place = bench.dispatcher.reserve({ held: false, at: new Date() });
      assert.equal(place.notBefore, undefined);
      const run = await storeRun(bench.stores);
      place.commit(run);
      await eventually(() => bench.started.includes(run.id), 'the run started');
      await pause(150);
      assert.deepEqual(bench.started, [run.id]);
    } finally {
      await bench.close();
    }
  });

  test(`${implementation.name}: a promised place counts against room until it is committed or given back, and a second rollback gives back nothing`, async () => {
    const bench = await implementation.open({ concurrency: 1, queueSize: 3 });
    try {
      await bench.dispatcher.start();
      const before = bench.dispatcher.room();
      assert.equal(before, 4, 'three places in the queue and one free worker');
      const first = bench.dispatcher.reserve({ held: false, at: new Date() });
      const second = bench.dispatcher.reserve({ held: false, at: new Date() });
      assert.equal(bench.dispatcher.room(), before - 2);
      first.rollback();
      first.rollback();
      assert.equal(bench.dispatcher.room(), before - 1);
      second.rollback();
      assert.equal(bench.dispatcher.room(), before);
    } finally {
      await bench.close();
    }
  });

  test(`${implementation.name}: a held run waits for its hold before a worker takes it`, async () => {
    const bench = await implementation.open({ holdMs: 600, quick: true });
    try {
      await bench.dispatcher.start();
      const at = new Date();
      const place = bench.dispatcher.reserve({ held: true, at });
      const run = await storeRun(bench.stores, place.notBefore);
      place.commit(run);
      await pause(250);
      assert.deepEqual(bench.started, [], 'not taken during its hold');
      await eventually(() => bench.started.includes(run.id), 'the held run started after its hold');
      assert.ok(Date.now() - at.getTime() >= 600);
    } finally {
      await bench.close();
    }
  });

  test(`${implementation.name}: a stored run offered with a later notBefore starts then, not before`, async () => {
    const bench = await implementation.open({ quick: true });
    try {
      await bench.dispatcher.start();
      const notBefore = new Date(Date.now() + 600);
      const run = await storeRun(bench.stores, notBefore);
      bench.dispatcher.offer({ id: run.id, notBefore: notBefore.toISOString() });
      await pause(250);
      assert.deepEqual(bench.started, []);
      await eventually(() => bench.started.includes(run.id), 'the run started at its notBefore');
      assert.ok(Date.now() >= notBefore.getTime());
    } finally {
      await bench.close();
    }
  });

  test(`${implementation.name}: at most concurrency runs at once, in order; pause starts no more, and idle waits for the running ones`, async () => {
    const bench = await implementation.open({ concurrency: 1 });
    try {
      await bench.dispatcher.start();
      const runs: RunRecord[] = [];
      for (let index = 0; index < 3; index++) {
        const place = bench.dispatcher.reserve({ held: false, at: new Date() });
        const run = await storeRun(bench.stores);
        place.commit(run);
        runs.push(run);
      }
      await eventually(() => bench.started.length === 1, 'the first run started');
      await pause(150);
      assert.deepEqual(bench.started, [runs[0]?.id]);
      assert.equal(bench.dispatcher.active(), 1);
      bench.finish(runs[0]!.id);
      await eventually(() => bench.started.length === 2, 'the second run started when the worker was free');
      assert.equal(bench.started[1], runs[1]?.id);

      bench.dispatcher.pause();
      let idle = false;
      const idled = bench.dispatcher.idle().then(() => (idle = true));
      await pause(50);
      assert.equal(idle, false, 'a run is still running');
      bench.finish(runs[1]!.id);
      await idled;
      await pause(150);
      assert.equal(bench.started.length, 2, 'nothing starts once paused');
    } finally {
      await bench.close();
    }
  });

  test(`${implementation.name}: start takes up the queued runs an earlier process stored`, async () => {
    const bench = await implementation.open({ quick: true });
    try {
      const left = [await storeRun(bench.stores), await storeRun(bench.stores)];
      await pause(100);
      assert.deepEqual(bench.started, [], 'nothing runs before start');
      await bench.dispatcher.start();
      await eventually(() => left.every((run) => bench.started.includes(run.id)), 'both stored runs started');
    } finally {
      await bench.close();
    }
  });
}
