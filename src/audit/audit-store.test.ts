import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createAuditStore } from './audit-store.ts';
import { openDatabase } from '../store/database.ts';

function storeWithTwoRuns() {
  const database = openDatabase(':memory:');
  const store = createAuditStore(database);
  for (const runId of ['run-a', 'run-b']) {
    store.append({
      runId,
      type: 'run-created',
      payload: { trigger: { kind: 'incident', text: 'checkout-api keeps restarting' } },
    });
    store.append({
      runId,
      type: 'tool-call',
      payload: { tool: 'list_pods', args: { namespace: 'staging' }, risk: 'read' },
    });
    store.append({
      runId,
      type: 'tool-result',
      payload: { tool: 'list_pods', content: 'checkout-api-7d9f8c6b5-x2k4q CrashLoopBackOff' },
    });
    store.append({ runId, type: 'run-finished', payload: { status: 'completed' } });
  }
  return { database, store };
}

test('a chain of appended events verifies, in order, with seq from 1', () => {
  const { store } = storeWithTwoRuns();
  const events = store.list('run-a');
  assert.deepEqual(
    events.map((event) => event.seq),
    [1, 2, 3, 4],
  );
  assert.deepEqual(
    events.map((event) => event.type),
    ['run-created', 'tool-call', 'tool-result', 'run-finished'],
  );
  assert.equal(events[1]!.prevHash, events[0]!.hash);
  assert.deepEqual(store.verify(), { runs: 2, events: 8, problems: [] });
});

test('a changed event is reported with its run and seq', () => {
  const { database, store } = storeWithTwoRuns();
  database
    .prepare("UPDATE audit_events SET payload = ? WHERE run_id = 'run-a' AND seq = 3")
    .run(JSON.stringify({ tool: 'list_pods', content: 'all healthy' }));
  const report = store.verify();
  assert.equal(report.problems.length, 1);
  assert.equal(report.problems[0]!.runId, 'run-a');
  assert.equal(report.problems[0]!.seq, 3);
  assert.match(report.problems[0]!.problem, /changed/);
});

test('a deleted event in the middle and a deleted last event are both reported', () => {
  const { database, store } = storeWithTwoRuns();
  database.exec("DELETE FROM audit_events WHERE run_id = 'run-a' AND seq = 2");
  database.exec("DELETE FROM audit_events WHERE run_id = 'run-b' AND seq = 4");
  const report = store.verify();
  assert.ok(report.problems.some((problem) => problem.runId === 'run-a' && /missing/.test(problem.problem)));
  assert.ok(report.problems.some((problem) => problem.runId === 'run-b' && /head/.test(problem.problem)));
});

test('an inserted event is reported even when its seq is made to fit', () => {
  const { database, store } = storeWithTwoRuns();
  database.exec("UPDATE audit_events SET seq = -(seq + 1) WHERE run_id = 'run-a' AND seq >= 3");
  database.exec("UPDATE audit_events SET seq = -seq WHERE run_id = 'run-a' AND seq < 0");
  const [second] = store.list('run-a', { afterSeq: 1, limit: 1 });
  database
    .prepare(
      'INSERT INTO audit_events (run_id, seq, time, type, payload, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)',
    )
    .run(
      'run-a',
      3,
      new Date().toISOString(),
      'approval',
      JSON.stringify({ decision: 'approved' }),
      second!.hash,
      'f'.repeat(64),
    );
  const report = store.verify('run-a');
  assert.ok(report.problems.length > 0);
});

test('secret-looking values in payloads are redacted before they are stored', () => {
  const { store } = storeWithTwoRuns();
  const canary = 'CANARY-audit-9f2c1e';
  store.append({
    runId: 'run-c',
    type: 'tool-call',
    payload: { args: { url: `postgres://checkout:${canary}@db:5432/shop`, password: canary } },
  });
  assert.doesNotMatch(JSON.stringify(store.list('run-c')), new RegExp(canary));
  assert.deepEqual(store.verify('run-c').problems, []);
});

test('events survive reopening the database file', () => {
  const path = join(mkdtempSync(join(tmpdir(), 'kubewhy-audit-')), 'kubewhy.db');
  const first = openDatabase(path);
  createAuditStore(first).append({ runId: 'run-x', type: 'run-created', payload: {} });
  first.close();
  const second = openDatabase(path);
  assert.equal(createAuditStore(second).list('run-x').length, 1);
  assert.deepEqual(createAuditStore(second).verify().problems, []);
  second.close();
});
