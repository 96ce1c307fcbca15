import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test, type TestContext } from 'node:test';
import { createAuditStore } from '../src/audit/audit-store.ts';
import { openDatabase } from '../src/store/database.ts';
import {
  latestSchemaVersion,
  migrate,
  MIGRATIONS,
  SchemaError,
  schemaVersion,
  type Migration,
} from '../src/store/migrations.ts';
import { createRunStore } from '../src/store/run-store.ts';
import { startTestApp } from './helpers/service-app.ts';

const FIXTURE = new URL('./fixtures/store-0.1.0/store.sql', import.meta.url);

/** The three runs 0.1.0 wrote: an incident, an alert (repeated, then resolved), an ACT incident with an approved rollback. */
const RUNS_0_1_0 = {
  incident: 'bc85f450-555a-4e90-b7b3-7036ebd24625',
  alert: '8bc8f275-c1e1-4488-beea-fecb22461832',
  act: '447a109a-7dbe-4745-b22c-6fd64b8729d6',
};

/** A database file as 0.1.0 left it, written from the fixture's SQL text. */
async function databaseFrom010(t: TestContext): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'kubewhy-upgrade-'));
  t.after(() => rm(directory, { recursive: true, force: true }));
  const path = join(directory, 'kubewhy.db');
  const database = new DatabaseSync(path);
  // One transaction: row by row, each insert would wait for its own sync to disk.
  database.exec(`BEGIN; ${await readFile(FIXTURE, 'utf8')} COMMIT;`);
  assert.equal(schemaVersion(database), 0, 'the fixture is a database 0.1.0 wrote: user_version 0');
  database.close();
  return path;
}

test('a database written by 0.1.0 opens at the latest schema with every run and audit chain intact', async (t) => {
  const path = await databaseFrom010(t);
  const database = openDatabase(path);
  t.after(() => database.close());
  assert.equal(schemaVersion(database), latestSchemaVersion());

  const runs = createRunStore(database);
  const listed = runs.list({ limit: 10 }).runs;
  assert.deepEqual(
    listed.map((run) => run.id),
    [RUNS_0_1_0.act, RUNS_0_1_0.alert, RUNS_0_1_0.incident],
    'newest first',
  );
  for (const run of listed) {
    assert.equal(run.status, 'completed');
    assert.deepEqual(runs.get(run.id), run);
  }
  const incident = runs.get(RUNS_0_1_0.incident);
  assert.equal(incident?.diagnosis?.category, 'bad-credentials');
  assert.equal(incident?.diagnosis?.culprit?.name, 'checkout-api');
  const alert = runs.get(RUNS_0_1_0.alert);
  assert.equal(alert?.alert?.fingerprint, 'a1b2c3d4e5f60718');
  assert.equal(alert?.alert?.repeats, 1);
  assert.ok(alert?.alert?.resolvedAt, 'the resolution 0.1.0 recorded is still there');
  const act = runs.get(RUNS_0_1_0.act);
  assert.equal(act?.rung, 'ACT');
  assert.deepEqual(
    act?.actions.map((action) => [action.tool, action.status]),
    [['rollout_undo', 'executed']],
  );

  const report = createAuditStore(database).verify();
  assert.deepEqual(report.problems, []);
  assert.equal(report.runs, 3);
  assert.equal(report.events, 120);
});

test('the service starts on an upgraded 0.1.0 database, lists its runs and takes a new incident', async (t) => {
  const path = await databaseFrom010(t);
  const database = openDatabase(path);
  t.after(() => database.close());
  const { call, waitForRun } = await startTestApp(t, { database });

  const before = await call({ method: 'GET', url: '/v1/runs' });
  assert.equal(before.statusCode, 200);
  assert.equal((before.json() as { runs: unknown[] }).runs.length, 3);
  const old = await call({ method: 'GET', url: `/v1/runs/${RUNS_0_1_0.alert}/audit` });
  assert.equal(old.statusCode, 200);

  const created = await call({
    method: 'POST',
    url: '/v1/incidents',
    scope: 'ingest',
    body: { text: 'checkout-api in staging keeps restarting', namespace: 'staging' },
  });
  assert.equal(created.statusCode, 202);
  const run = await waitForRun((created.json() as { id: string }).id);
  assert.equal(run.status, 'completed');
  const after = await call({ method: 'GET', url: '/v1/runs' });
  assert.equal((after.json() as { runs: unknown[] }).runs.length, 4);
  assert.deepEqual(createAuditStore(database).verify().problems, []);
});

test('a database from a newer kubewhy is refused with a message that says so, and left as it was', async (t) => {
  const path = await databaseFrom010(t);
  const newer = latestSchemaVersion() + 1;
  const writer = new DatabaseSync(path);
  writer.exec(`PRAGMA user_version = ${newer}`);
  writer.close();

  assert.throws(
    () => openDatabase(path),
    (error: unknown) => {
      assert.ok(error instanceof SchemaError);
      assert.ok(
        error.message.startsWith(
          `${path}: the database is at schema version ${newer}, newer than this kubewhy knows (${latestSchemaVersion()})`,
        ),
        error.message,
      );
      assert.match(error.message, /run the newer kubewhy/);
      return true;
    },
  );
  const reader = new DatabaseSync(path, { readOnly: true });
  assert.equal(schemaVersion(reader), newer);
  reader.close();
});

test('a step that fails leaves the database at the version before it, with nothing of the step applied', () => {
  const database = new DatabaseSync(':memory:');
  const steps: Migration[] = [
    ...MIGRATIONS,
    {
      version: MIGRATIONS.length + 1,
      description: 'a table, then a statement that fails',
      up: (target) => {
        target.exec('CREATE TABLE half_done (id TEXT)');
        target.exec('ALTER TABLE no_such_table ADD COLUMN x TEXT');
      },
    },
  ];
  assert.throws(
    () => migrate(database, steps),
    (error: unknown) => {
      assert.ok(error instanceof SchemaError);
      assert.match(
        error.message,
        new RegExp(`schema step ${steps.length} \\(a table, then a statement that fails\\) failed: .*no_such_table`),
      );
      return true;
    },
  );
  assert.equal(schemaVersion(database), MIGRATIONS.length);
  const halfDone = database.prepare("SELECT name FROM sqlite_master WHERE name = 'half_done'").get();
  assert.equal(halfDone, undefined, 'the failed step is rolled back whole');
  // Fixed, the same list applies the step on the next open.
  assert.deepEqual(
    migrate(database, [
      ...MIGRATIONS,
      { ...steps.at(-1)!, up: (target) => target.exec('CREATE TABLE half_done (id TEXT)') },
    ]),
    [steps.length],
  );
  database.close();
});

test('opening an up-to-date database applies nothing', async (t) => {
  const path = await databaseFrom010(t);
  openDatabase(path).close();
  const database = new DatabaseSync(path);
  assert.deepEqual(migrate(database), []);
  assert.equal(schemaVersion(database), latestSchemaVersion());
  database.close();
});
