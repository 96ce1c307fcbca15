import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createAuditStore } from '../src/audit/audit-store.ts';
import { openDatabase } from '../src/store/database.ts';
import { firingAlert, notification } from './helpers/service-app.ts';
import { pollUntil, startServiceProcess, type ServiceProcess } from './helpers/service-process.ts';

const INGEST = 'crash-ingest-token-0123456789';
const READ = 'crash-read-token-0123456789';

interface Run {
  id: string;
  status: string;
  reason?: string;
  attempts: number;
  finishedAt?: string;
}

async function listRuns(service: ServiceProcess): Promise<Run[]> {
  const response = await service.request({ path: '/v1/runs?limit=200', token: READ });
  return (response.body as { runs: Run[] }).runs;
}

test(
  'kill -9 with runs queued and running, then a restart: every accepted run ends once, completed or failed with a reason',
  { timeout: 180_000 },
  async (t) => {
    const directory = await mkdtemp(join(tmpdir(), 'kubewhy-crash-'));
    t.after(() => rm(directory, { recursive: true, force: true }));
    const environment = {
      KUBEWHY_DATA_DIR: directory,
      KUBEWHY_TOKEN_INGEST: INGEST,
      KUBEWHY_TOKEN_READ: READ,
      KUBEWHY_CONCURRENCY: '2',
      // Every mock API call takes a while, so runs are still running when the process dies.
      KUBEWHY_MOCK_FAULTS: 'latency:ms=120',
    };
    const first = await startServiceProcess(environment);
    t.after(() => first.kill());

    const accepted: string[] = [];
    for (let index = 0; index < 6; index++) {
      const response = await first.request({
        method: 'POST',
        path: '/v1/incidents',
        token: INGEST,
        body: { text: `checkout-api in staging keeps restarting (report ${index})`, namespace: 'staging' },
      });
      assert.equal(response.status, 202);
      accepted.push((response.body as { id: string }).id);
    }
    // Two workloads: alerts of one workload would share its run.
    const alerts = notification([
      firingAlert({ fingerprint: '0000000000000001', startsAt: '2026-11-29T09:50:00Z' }),
      firingAlert({ fingerprint: '0000000000000002', startsAt: '2026-11-29T09:51:00Z', pod: 'cart-6d5f7c8b9d-q8w2e' }),
    ]);
    const webhook = await first.request({
      method: 'POST',
      path: '/v1/alerts/alertmanager',
      token: INGEST,
      body: alerts,
    });
    assert.equal(webhook.status, 202);
    accepted.push(...(webhook.body as { runs: { runId: string }[] }).runs.map((result) => result.runId));

    const atKill = await pollUntil(
      async () => {
        const runs = await listRuns(first);
        const count = (status: string): number => runs.filter((run) => run.status === status).length;
        return count('completed') + count('failed') >= 1 && count('running') >= 1 && count('queued') >= 1
          ? runs
          : undefined;
      },
      { timeoutMs: 60_000, what: 'runs finished, running and queued at once', intervalMs: 20 },
    );
    await first.kill();
    const endedBefore = new Map(
      atKill
        .filter((run) => run.status === 'completed' || run.status === 'failed')
        .map((run) => [run.id, run.finishedAt]),
    );

    const second = await startServiceProcess(environment);
    t.after(() => second.kill());
    const final = await pollUntil(
      async () => {
        const runs = await listRuns(second);
        return runs.every((run) => run.status === 'completed' || run.status === 'failed') ? runs : undefined;
      },
      { timeoutMs: 120_000, what: 'every run to end after the restart' },
    );

    assert.deepEqual(final.map((run) => run.id).sort(), [...accepted].sort(), 'no run lost, none added');
    for (const run of final) {
      if (run.status === 'failed') assert.ok(run.reason, `failed run ${run.id} says why`);
      if (endedBefore.has(run.id)) {
        assert.equal(
          run.finishedAt,
          endedBefore.get(run.id),
          `run ${run.id}, ended before the crash, was not run again`,
        );
        assert.equal(run.attempts, 1);
      }
    }
    assert.ok(
      final.some((run) => run.attempts === 2),
      'a run interrupted by the crash was resumed',
    );

    // Alertmanager's retry of the same notification after the restart starts nothing new.
    const retry = await second.request({
      method: 'POST',
      path: '/v1/alerts/alertmanager',
      token: INGEST,
      body: alerts,
    });
    assert.deepEqual(
      (retry.body as { runs: { outcome: string }[] }).runs.map((result) => result.outcome),
      ['duplicate', 'duplicate'],
    );
    assert.equal((await listRuns(second)).length, accepted.length);
    assert.equal(await second.stop(), 0);

    const database = openDatabase(join(directory, 'kubewhy.db'));
    t.after(() => database.close());
    const audit = createAuditStore(database);
    assert.deepEqual(audit.verify().problems, []);
    for (const id of accepted) {
      const events = audit.list(id);
      assert.equal(events[0]?.type, 'run-created');
      assert.equal(
        events.filter((event) => event.type === 'run-finished').length,
        1,
        `run ${id} finished exactly once`,
      );
    }
  },
);
