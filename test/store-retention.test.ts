import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { pollUntil, startServiceProcess } from './helpers/service-process.ts';

const BIN = fileURLToPath(new URL('../bin/kubewhy.js', import.meta.url));
const FIXTURE = new URL('./fixtures/store-0.1.0/store.sql', import.meta.url);
const OLD_RUN = 'bc85f450-555a-4e90-b7b3-7036ebd24625';

test('the service sweeps at start: an old finished run goes, its head is kept in audit_retired, counted and logged; audit verify passes', async (t) => {
  const directory = await mkdtemp(join(tmpdir(), 'kubewhy-retention-'));
  t.after(() => rm(directory, { recursive: true, force: true }));
  const path = join(directory, 'kubewhy.db');
  const seed = new DatabaseSync(path);
  seed.exec(`BEGIN; ${await readFile(FIXTURE, 'utf8')} COMMIT;`);
  // The runs table is outside the hash chain: ageing a run changes no audit event.
  seed.prepare('UPDATE runs SET finished_at = ? WHERE id = ?').run('2026-01-05T10:00:00.000Z', OLD_RUN);
  const head = seed.prepare('SELECT seq, hash FROM audit_heads WHERE run_id = ?').get(OLD_RUN) as {
    seq: number;
    hash: string;
  };
  seed.close();

  const service = await startServiceProcess({
    KUBEWHY_DATA_DIR: directory,
    KUBEWHY_RETENTION_DAYS: '30',
    KUBEWHY_LOG_LEVEL: 'info',
  });
  t.after(() => service.kill());
  await pollUntil(async () => (/retention: removed/.test(service.output()) ? true : undefined), {
    timeoutMs: 15_000,
    what: 'the first retention sweep',
  });
  assert.match(service.output(), /retention: removed 1 finished run\(s\) that ended before \S+, in 1 batch\(es\)/);
  // The removed run's head is logged, marked retired, for audit verify --anchors.
  const retiredLine = service
    .output()
    .split('\n')
    .find((line) => line.includes('"run retired"'));
  assert.ok(retiredLine, 'a "run retired" line');
  assert.deepEqual(
    (({ runId, auditHead, auditRetired }) => ({ runId, auditHead, auditRetired }))(
      JSON.parse(retiredLine) as Record<string, unknown>,
    ),
    { runId: OLD_RUN, auditHead: `${head.seq}:${head.hash}`, auditRetired: true },
  );
  const metrics = await service.request({ path: '/metrics' });
  assert.match(metrics.text, /^kubewhy_runs_retired_total 1$/m);
  const runs = (await service.request({ path: '/v1/runs' })).body as { runs: { id: string }[] };
  assert.equal(runs.runs.length, 2);
  assert.ok(!runs.runs.some((run) => run.id === OLD_RUN));
  assert.equal(await service.stop(), 0);

  const database = new DatabaseSync(path, { readOnly: true });
  const retired = database
    .prepare('SELECT run_id, seq, hash FROM audit_retired')
    .all()
    .map((row) => ({ ...row }));
  assert.deepEqual(retired, [{ run_id: OLD_RUN, seq: head.seq, hash: head.hash }]);
  assert.equal(
    (database.prepare('SELECT COUNT(*) AS count FROM audit_events WHERE run_id = ?').get(OLD_RUN) as { count: number })
      .count,
    0,
  );
  database.close();

  const verify = spawnSync(process.execPath, [BIN, 'audit', 'verify', '--data-dir', directory], { encoding: 'utf8' });
  assert.equal(verify.status, 0, `${verify.stdout}${verify.stderr}`);
  assert.match(verify.stdout, /audit OK/);
});
