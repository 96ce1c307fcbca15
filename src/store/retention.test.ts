import assert from 'node:assert/strict';
import type { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { createAuditStore, type SyncAuditStore } from '../audit/audit-store.ts';
import { openDatabase } from './database.ts';
import { createRetention, startRetention, type SweepReport } from './retention.ts';
import { createRunStore, type SyncRunStore } from './run-store.ts';

const NOW = new Date('2026-12-01T12:00:00.000Z');
const clock = (): Date => NOW;
const daysAgo = (days: number): Date => new Date(NOW.getTime() - days * 24 * 3600 * 1000);

interface Fixture {
  database: DatabaseSync;
  runs: SyncRunStore;
  audit: SyncAuditStore;
}

function emptyStore(): Fixture {
  const database = openDatabase(':memory:');
  return { database, runs: createRunStore(database), audit: createAuditStore(database) };
}

/** A run with a short audit chain, created `createdDaysAgo` and left in `state`. */
function addRun(
  fixture: Fixture,
  input: {
    id: string;
    createdDaysAgo: number;
    state: 'completed' | 'failed' | 'cancelled' | 'queued' | 'running' | 'awaiting_approval';
    finishedDaysAgo?: number;
  },
): void {
  const created = daysAgo(input.createdDaysAgo);
  const finished = daysAgo(input.finishedDaysAgo ?? input.createdDaysAgo);
  fixture.runs.create({
    id: input.id,
    trigger: { kind: 'incident', text: `incident ${input.id}` },
    source: 'api',
    rung: 'OBSERVE',
    now: created,
  });
  fixture.audit.append({
    runId: input.id,
    type: 'run-created',
    payload: { trigger: { kind: 'incident', text: `incident ${input.id}` } },
    time: created,
  });
  if (input.state === 'queued') return;
  if (input.state === 'cancelled') {
    assert.ok(fixture.runs.cancelQueued(input.id, 'the service stopped', finished));
    fixture.audit.append({ runId: input.id, type: 'run-finished', payload: { status: 'failed' }, time: finished });
    return;
  }
  assert.ok(fixture.runs.claim(input.id, { now: created }));
  fixture.audit.append({
    runId: input.id,
    type: 'tool-call',
    payload: { tool: 'list_pods', args: { namespace: 'staging' }, risk: 'read' },
    time: created,
  });
  if (input.state === 'running') return;
  if (input.state === 'awaiting_approval') {
    fixture.runs.updateProgress(input.id, { status: 'awaiting_approval', actions: [] });
    return;
  }
  assert.ok(
    fixture.runs.finish(input.id, {
      status: input.state,
      ...(input.state === 'failed' ? { reason: 'the model failed' } : {}),
      now: finished,
    }),
  );
  fixture.audit.append({ runId: input.id, type: 'run-finished', payload: { status: input.state }, time: finished });
}

function retiredRows(database: DatabaseSync): { run_id: string; seq: number; hash: string; retired_at: string }[] {
  const rows = database.prepare('SELECT run_id, seq, hash, retired_at FROM audit_retired ORDER BY run_id').all() as {
    run_id: string;
    seq: number;
    hash: string;
    retired_at: string;
  }[];
  return rows.map((row) => ({ ...row }));
}

test('finished runs older than the retention go with their audit events; recent and unfinished runs stay', async () => {
  const fixture = emptyStore();
  addRun(fixture, { id: 'old-completed', createdDaysAgo: 60, state: 'completed' });
  addRun(fixture, { id: 'old-failed', createdDaysAgo: 45, state: 'failed' });
  addRun(fixture, { id: 'old-cancelled', createdDaysAgo: 40, state: 'cancelled' });
  addRun(fixture, { id: 'recent-completed', createdDaysAgo: 5, state: 'completed' });
  addRun(fixture, {
    id: 'created-long-ago-finished-lately',
    createdDaysAgo: 60,
    finishedDaysAgo: 10,
    state: 'completed',
  });
  addRun(fixture, { id: 'old-queued', createdDaysAgo: 90, state: 'queued' });
  addRun(fixture, { id: 'old-running', createdDaysAgo: 90, state: 'running' });
  addRun(fixture, { id: 'old-awaiting', createdDaysAgo: 90, state: 'awaiting_approval' });
  const heads = Object.fromEntries(
    ['old-completed', 'old-failed', 'old-cancelled'].map((id) => [id, fixture.audit.head(id)]),
  );

  const report = await createRetention({ database: fixture.database, days: 30, now: clock }).sweep();

  assert.equal(report.retired, 3);
  assert.equal(report.cutoff, daysAgo(30).toISOString());
  const left = fixture.runs
    .list({ limit: 100 })
    .runs.map((run) => run.id)
    .sort();
  assert.deepEqual(left, [
    'created-long-ago-finished-lately',
    'old-awaiting',
    'old-queued',
    'old-running',
    'recent-completed',
  ]);
  for (const id of ['old-completed', 'old-failed', 'old-cancelled']) {
    assert.equal(fixture.runs.get(id), undefined);
    assert.deepEqual(fixture.audit.list(id), [], `${id}: its audit events are gone`);
    assert.equal(fixture.audit.head(id), undefined, `${id}: its head is gone`);
  }
  assert.deepEqual(fixture.audit.runIds().sort(), left);
  assert.deepEqual(fixture.audit.verify().problems, [], 'what is left verifies');

  assert.deepEqual(
    retiredRows(fixture.database),
    Object.entries(heads)
      .map(([id, head]) => ({ run_id: id, seq: head!.seq, hash: head!.hash, retired_at: NOW.toISOString() }))
      .sort((a, b) => a.run_id.localeCompare(b.run_id)),
    'audit_retired keeps the head of every removed chain',
  );
  fixture.database.close();
});

test('a second sweep finds nothing more, and the runs left read back whole', async () => {
  const fixture = emptyStore();
  addRun(fixture, { id: 'old', createdDaysAgo: 100, state: 'completed' });
  addRun(fixture, { id: 'recent', createdDaysAgo: 1, state: 'completed' });
  const retention = createRetention({ database: fixture.database, days: 30, now: clock });
  assert.equal((await retention.sweep()).retired, 1);
  const { retired, batches } = await retention.sweep();
  assert.deepEqual({ retired, batches }, { retired: 0, batches: 0 });
  assert.equal(fixture.runs.get('recent')?.status, 'completed');
  assert.equal(fixture.audit.list('recent').length, 3);
  fixture.database.close();
});

test('a large backlog goes in small batches, and other work runs between them', async () => {
  const fixture = emptyStore();
  for (let index = 0; index < 120; index++)
    addRun(fixture, { id: `old-${String(index).padStart(3, '0')}`, createdDaysAgo: 200 - index, state: 'completed' });
  addRun(fixture, { id: 'recent', createdDaysAgo: 2, state: 'completed' });

  const retention = createRetention({ database: fixture.database, days: 30, batchSize: 50, now: clock });
  const sweeping = retention.sweep();
  // A request that arrives during the sweep: it must get in before the sweep ends.
  let writtenMidSweep = false;
  setImmediate(() => {
    addRun(fixture, { id: 'arrived-during-the-sweep', createdDaysAgo: 0, state: 'queued' });
    writtenMidSweep = true;
  });
  const report = await sweeping;
  assert.ok(writtenMidSweep, 'the sweep yielded between batches');
  assert.equal(report.retired, 120);
  assert.equal(report.batches, 3);
  assert.deepEqual(
    fixture.runs
      .list({ limit: 10 })
      .runs.map((run) => run.id)
      .sort(),
    ['arrived-during-the-sweep', 'recent'],
  );
  assert.equal(retiredRows(fixture.database).length, 120);
  assert.deepEqual(fixture.audit.verify().problems, []);
  fixture.database.close();
});

test('retention days must be at least 1: keeping forever is no retention at all', () => {
  const database = openDatabase(':memory:');
  assert.throws(() => createRetention({ database, days: 0 }), /at least 1/);
  assert.throws(() => createRetention({ database, days: 1.5 }), /whole number/);
  database.close();
});

test('the timer sweeps at start, reports each sweep, and stops', async () => {
  const fixture = emptyStore();
  addRun(fixture, { id: 'old', createdDaysAgo: 100, state: 'failed' });
  const reports: SweepReport[] = [];
  let reported: () => void = () => undefined;
  const swept = new Promise<void>((resolve) => (reported = resolve));
  const timer = startRetention({
    retention: createRetention({ database: fixture.database, days: 30, now: clock }),
    intervalMs: 3600 * 1000,
    onSweep: (report) => {
      reports.push(report);
      reported();
    },
    onError: (error) => assert.fail(String(error)),
  });
  await swept;
  await timer.stop();
  assert.equal(reports.length, 1);
  assert.equal(reports[0]!.retired, 1);
  fixture.database.close();
});
