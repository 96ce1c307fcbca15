import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openDatabase } from '../store/database.ts';
import { createSqliteStores } from '../store/sqlite-stores.ts';
import { recoverRuns } from './recover-runs.ts';

const DIAGNOSIS = {
  category: 'bad-credentials',
  summary: 'a dependency refuses the credentials',
  evidence: ['log: password authentication failed'],
  confidence: 'high',
  actions: [],
};

async function runningRun(
  events: { type: 'diagnosis' | 'run-finished' | 'error'; payload: Record<string, unknown> }[],
) {
  const stores = createSqliteStores(openDatabase(':memory:'));
  const created = await stores.runs.create({
    id: 'run-1',
    trigger: { kind: 'incident', text: 'checkout-api keeps restarting' },
    source: 'api',
    rung: 'OBSERVE',
  });
  await stores.runs.claim(created.id);
  await stores.audit.append({ runId: created.id, type: 'run-created', payload: { source: 'api' } });
  for (const event of events) await stores.audit.append({ runId: created.id, ...event });
  return stores;
}

test('a run whose chain ended before its row did (killed between the two writes) ends as its chain says, and is not run again', async () => {
  const stores = await runningRun([
    { type: 'diagnosis', payload: { diagnosis: DIAGNOSIS } },
    {
      type: 'run-finished',
      payload: { status: 'completed', steps: 4, usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0 } },
    },
  ]);
  const report = await recoverRuns({ store: stores.runs, audit: stores.audit, maxAttempts: 3 });
  assert.deepEqual(report.ended, [{ id: 'run-1', status: 'completed' }]);
  assert.deepEqual(report.queue, []);
  const run = await stores.runs.get('run-1');
  assert.equal(run?.status, 'completed');
  assert.equal(run?.diagnosis?.category, 'bad-credentials');
  assert.equal(run?.steps, 4);
  // Nothing appended: the chain already says how the run ended.
  assert.equal((await stores.audit.list('run-1')).at(-1)?.type, 'run-finished');
});

test("a run stopped by a shutdown (its chain ends with the interruption, after the loop's run-finished) resumes", async () => {
  const stores = await runningRun([
    {
      type: 'run-finished',
      payload: {
        status: 'failed',
        reason: 'the service is shutting down; the run resumes at its next start',
        steps: 2,
      },
    },
    {
      type: 'error',
      payload: {
        message: 'interrupted (the service is shutting down): the run is not over, and resumes at its next start',
      },
    },
  ]);
  const report = await recoverRuns({ store: stores.runs, audit: stores.audit, maxAttempts: 3 });
  assert.deepEqual(report.ended, []);
  assert.deepEqual(report.resumed, ['run-1']);
  assert.equal((await stores.runs.get('run-1'))?.status, 'queued');
});
