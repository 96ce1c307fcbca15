/**
 * Audit anchors end to end: the service (offline engine, mock cluster, SQLite file)
 * runs incidents, an alert cancelled before it starts and a run failed by recovery,
 * logging a signed head for each; then the database is tampered with directly, the way
 * anyone holding the file could, and the real `kubewhy audit verify --anchors` must name
 * each tampering. An untouched database with its anchors passes.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Writable } from 'node:stream';
import { before, test } from 'node:test';
import { promisify } from 'node:util';
import { startMockCluster } from '../mock-cluster/index.ts';
import { createOfflineModel } from '../src/agent/offline/offline-model.ts';
import { createAnchorSigner, retiredAnchorLogFields } from '../src/audit/anchors.ts';
import { createAuditStore } from '../src/audit/audit-store.ts';
import { hashEvent, type AuditEvent } from '../src/audit/events.ts';
import { createKubeCluster } from '../src/cluster/kube-adapter.ts';
import { startupNotices } from '../src/cli/serve.ts';
import { buildServiceApp } from '../src/app/service.ts';
import { createLogger } from '../src/logger.ts';
import { openDatabase } from '../src/store/database.ts';
import { createRetention } from '../src/store/retention.ts';
import { createRunStore } from '../src/store/run-store.ts';
import { configuredTools, createToolRegistry } from '../src/tools/registry.ts';
import { firingAlert, notification, TEST_LIMITS } from './helpers/service-app.ts';

const execute = promisify(execFile);
const DEMO = 'mock-cluster/scenarios/checkout-secret-rotation';
const KEY = 'c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00';
const OTHER_KEY = 'badc0de0badc0de0badc0de0badc0de0badc0de0badc0de0badc0de0badc0de0';

interface Fixture {
  /** The untouched data folder: copy it before tampering. */
  dataDir: string;
  /** The service's log lines, as shipped. */
  logs: string;
  keyFile: string;
  /** Incident runs that completed, in order. */
  incidents: string[];
  cancelled: string;
  recovered: string;
}

let fixture: Fixture;

before(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kubewhy-anchors-'));
  const keyFile = join(dataDir, 'audit-key');
  writeFileSync(keyFile, `${KEY}\n`);
  const recovered = leaveRunWithApprovedWrite(join(dataDir, 'kubewhy.db'));
  let logs = '';
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs += chunk.toString('utf8');
      done();
    },
  });
  const mock = await startMockCluster({ scenario: DEMO });
  const database = openDatabase(join(dataDir, 'kubewhy.db'));
  const app = await buildServiceApp({
    database,
    agent: {
      model: createOfflineModel(),
      registry: createToolRegistry(configuredTools({ secretKeys: false })),
      cluster: createKubeCluster({ kubeconfigPath: mock.kubeconfigPath }),
      policy: { actNamespaces: [] },
      limits: { ...TEST_LIMITS, maxSteps: 12, toolOutputBytes: 16_384 },
    },
    runs: { concurrency: 2, queueSize: 100, dedupWindowMs: 60_000, maxAttempts: 3, shutdownGraceMs: 5000 },
    auth: { mode: 'off' },
    bodyLimitBytes: 65_536,
    logger: createLogger({ level: 'info', destination }),
    checkCluster: async () => ({ ok: true }),
    auditAnchors: createAnchorSigner(Buffer.from(KEY)),
  });
  try {
    await app.ready();
    const incidents: string[] = [];
    for (const text of [
      'checkout-api in staging keeps restarting',
      'checkout is failing in staging',
      'staging checkout pods crash',
      'why is checkout-api down',
    ]) {
      const response = await app.inject({
        method: 'POST',
        url: '/v1/incidents?wait=60',
        payload: { text, namespace: 'staging' },
      });
      const run = response.json() as { id: string; status: string };
      assert.equal(run.status, 'completed', response.body);
      incidents.push(run.id);
    }
    // Fired and resolved in one notification: the run is cancelled before it starts.
    const alerts = [
      firingAlert({ fingerprint: 'f00dfeed00000001' }),
      firingAlert({ fingerprint: 'f00dfeed00000001', status: 'resolved', endsAt: '2026-11-29T10:00:00Z' }),
    ];
    const answer = (
      await app.inject({ method: 'POST', url: '/v1/alerts/alertmanager', payload: notification(alerts) })
    ).json() as { runs: { runId: string; outcome: string }[] };
    const cancelled = answer.runs.find((entry) => entry.outcome === 'cancelled')?.runId;
    assert.ok(cancelled, JSON.stringify(answer));
    fixture = { dataDir, logs: '', keyFile, incidents, cancelled, recovered };
  } finally {
    await app.close();
    database.close();
    await mock.close();
  }
  fixture.logs = logs;
});

/** A run left running by a crashed process after a write was approved: the next start fails it. */
function leaveRunWithApprovedWrite(path: string): string {
  const database = openDatabase(path);
  const store = createRunStore(database);
  const audit = createAuditStore(database);
  const id = 'run-left-after-approved-write';
  store.create({
    id,
    trigger: { kind: 'incident', text: 'checkout-api in staging keeps restarting', namespace: 'staging' },
    source: 'api',
    rung: 'ACT',
  });
  audit.append({ runId: id, type: 'run-created', payload: { source: 'api' } });
  store.claim(id);
  audit.append({
    runId: id,
    type: 'approval',
    payload: { actionId: 'act-1', decision: 'approved', by: 'approve#00000000' },
  });
  store.updateProgress(id, {
    status: 'running',
    actions: [{ id: 'act-1', tool: 'rollout_undo', args: {}, risk: 'write', status: 'approved' }],
  });
  database.close();
  return id;
}

/** A copy of the untouched data folder and of its anchors file, to tamper with. */
function copyFixture(): { dataDir: string; database: DatabaseSync; anchors: string } {
  const dataDir = mkdtempSync(join(tmpdir(), 'kubewhy-tampered-'));
  copyFileSync(join(fixture.dataDir, 'kubewhy.db'), join(dataDir, 'kubewhy.db'));
  const anchors = join(dataDir, 'service.log');
  writeFileSync(anchors, `kubewhy 0.1.0 listening on http://127.0.0.1:8080\n${fixture.logs}not a JSON line\n`);
  return { dataDir, database: new DatabaseSync(join(dataDir, 'kubewhy.db')), anchors };
}

async function verify(dataDir: string, args: string[] = []): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execute(
      process.execPath,
      ['bin/kubewhy.js', 'audit', 'verify', '--data-dir', dataDir, ...args],
      {
        env: { ...process.env, KUBEWHY_AUDIT_KEY_FILE: '', ANTHROPIC_API_KEY: '' },
        timeout: 60_000,
      },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failure.code ?? 1, stdout: failure.stdout ?? '', stderr: failure.stderr ?? '' };
  }
}

function headOf(database: DatabaseSync, runId: string): { seq: number; hash: string } {
  return database.prepare('SELECT seq, hash FROM audit_heads WHERE run_id = ?').get(runId) as {
    seq: number;
    hash: string;
  };
}

test('every ended run logs a signed head: completed, cancelled before it started, and failed by recovery at start', () => {
  const lines = fixture.logs
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const database = new DatabaseSync(join(fixture.dataDir, 'kubewhy.db'));
  try {
    for (const runId of [...fixture.incidents, fixture.cancelled, fixture.recovered]) {
      const finished = lines.filter((line) => line.msg === 'run finished' && line.runId === runId);
      assert.equal(finished.length, 1, `one "run finished" line for ${runId}`);
      const head = headOf(database, runId);
      assert.equal(finished[0]!.auditHead, `${head.seq}:${head.hash}`);
      assert.match(String(finished[0]!.auditAnchor), /^hmac-sha256:[0-9a-f]{16}:[0-9a-f]{64}$/);
      assert.equal(typeof finished[0]!.status, 'string');
    }
  } finally {
    database.close();
  }
  assert.doesNotMatch(fixture.logs, new RegExp(KEY));
});

test('an untouched database passes against its anchors, with every signature checked', async () => {
  const { dataDir, database, anchors } = copyFixture();
  database.close();
  const result = await verify(dataDir, ['--anchors', anchors, '--key-file', fixture.keyFile]);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  assert.match(
    result.stdout,
    /audit OK: 6 run\(s\), \d+ event\(s\) checked .*; 6 anchor\(s\) from .* matched their chains, signatures checked with key id [0-9a-f]{16}$/m,
  );
  assert.doesNotMatch(result.stdout, /FAIL|WARN/);
});

test('(a) tail truncation: the last event deleted and the head row moved back to the one before fails verify', async () => {
  const { dataDir, database, anchors } = copyFixture();
  const runId = fixture.incidents[0]!;
  const head = headOf(database, runId);
  database.prepare('DELETE FROM audit_events WHERE run_id = ? AND seq = ?').run(runId, head.seq);
  const previous = database
    .prepare('SELECT hash FROM audit_events WHERE run_id = ? AND seq = ?')
    .get(runId, head.seq - 1) as { hash: string };
  database.prepare('UPDATE audit_heads SET seq = ?, hash = ? WHERE run_id = ?').run(head.seq - 1, previous.hash, runId);
  database.close();

  assert.equal((await verify(dataDir)).code, 0, 'the chains alone cannot see it');
  const result = await verify(dataDir, ['--anchors', anchors, '--key-file', fixture.keyFile]);
  assert.equal(result.code, 1);
  assert.match(
    result.stdout,
    new RegExp(
      `FAIL run ${runId} \\[chain-truncated\\]: the chain ends at seq ${head.seq - 1} but it was anchored at seq ${head.seq} .*tail truncation`,
    ),
  );
});

test('(b) a run deleted whole, events, head and run row, fails verify as a deleted run', async () => {
  const { dataDir, database, anchors } = copyFixture();
  const runId = fixture.incidents[1]!;
  for (const table of ['audit_events', 'audit_heads'])
    database.prepare(`DELETE FROM ${table} WHERE run_id = ?`).run(runId);
  database.prepare('DELETE FROM runs WHERE id = ?').run(runId);
  database.close();

  assert.equal((await verify(dataDir)).code, 0, 'the chains and the runs table alone cannot see it');
  const result = await verify(dataDir, ['--anchors', anchors, '--key-file', fixture.keyFile]);
  assert.equal(result.code, 1);
  assert.match(
    result.stdout,
    new RegExp(`FAIL run ${runId} \\[run-deleted\\]: neither the run nor its audit chain is in the database`),
  );
});

test('(b) a run whose events and head are deleted but whose run row is kept fails verify, with and without anchors', async () => {
  const { dataDir, database, anchors } = copyFixture();
  const runId = fixture.incidents[1]!;
  for (const table of ['audit_events', 'audit_heads'])
    database.prepare(`DELETE FROM ${table} WHERE run_id = ?`).run(runId);
  database.close();

  const withAnchors = await verify(dataDir, ['--anchors', anchors, '--key-file', fixture.keyFile]);
  assert.equal(withAnchors.code, 1);
  assert.match(
    withAnchors.stdout,
    new RegExp(
      `FAIL run ${runId} \\[chain-deleted\\]: the run is in the runs table but its audit events and head are gone`,
    ),
  );
  const without = await verify(dataDir);
  assert.equal(without.code, 1);
  assert.match(
    without.stdout,
    new RegExp(`FAIL run ${runId} \\[run-without-chain\\]: a completed run without any audit events`),
  );
});

test('(c) an event changed with every later hash and the head recomputed fails verify as a rewritten chain', async () => {
  const { dataDir, database, anchors } = copyFixture();
  const runId = fixture.incidents[2]!;
  const audit = createAuditStore(database);
  const events = audit.list(runId);
  let previousHash = events[0]!.prevHash;
  const rewrite = database.prepare(
    'UPDATE audit_events SET payload = ?, prev_hash = ?, hash = ? WHERE run_id = ? AND seq = ?',
  );
  for (const event of events) {
    const payload = event.seq === 2 ? { ...event.payload, rewritten: 'the model was never asked' } : event.payload;
    const unhashed: Omit<AuditEvent, 'hash'> = { ...event, payload, prevHash: previousHash };
    previousHash = hashEvent(unhashed);
    rewrite.run(JSON.stringify(payload), unhashed.prevHash, previousHash, runId, event.seq);
  }
  database.prepare('UPDATE audit_heads SET hash = ? WHERE run_id = ?').run(previousHash, runId);
  database.close();

  assert.equal((await verify(dataDir)).code, 0, 'a consistently rewritten chain passes the chain check');
  const result = await verify(dataDir, ['--anchors', anchors, '--key-file', fixture.keyFile]);
  assert.equal(result.code, 1);
  assert.match(
    result.stdout,
    new RegExp(
      `FAIL run ${runId} \\[chain-rewritten\\]: event seq ${events.length} has hash .* the chain was rewritten and its hashes recomputed`,
    ),
  );
});

test('(d) a forged anchor line, signed with another key, fails verify', async () => {
  const { dataDir, database, anchors } = copyFixture();
  const runId = fixture.incidents[3]!;
  const head = headOf(database, runId);
  database.close();
  const time = new Date().toISOString();
  const signature = createAnchorSigner(Buffer.from(OTHER_KEY)).sign({ runId, seq: head.seq, hash: head.hash, time });
  appendFileSync(
    anchors,
    `${JSON.stringify({ level: 30, msg: 'run finished', runId, status: 'completed', auditHead: `${head.seq}:${head.hash}`, auditAnchoredAt: time, auditAnchor: signature })}\n`,
  );

  const result = await verify(dataDir, ['--anchors', anchors, '--key-file', fixture.keyFile]);
  assert.equal(result.code, 1);
  assert.match(
    result.stdout,
    new RegExp(
      `FAIL run ${runId} \\[anchor-forged\\]: the anchor at .*service.log:\\d+ is forged or signed with another key`,
    ),
  );
});

test('(e) a chain without a run and a finished run without a chain fail verify, without anchors', async () => {
  const { dataDir, database } = copyFixture();
  const [orphaned, emptied] = [fixture.incidents[0]!, fixture.cancelled];
  database.prepare('DELETE FROM runs WHERE id = ?').run(orphaned);
  for (const table of ['audit_events', 'audit_heads'])
    database.prepare(`DELETE FROM ${table} WHERE run_id = ?`).run(emptied);
  database.close();

  const result = await verify(dataDir);
  assert.equal(result.code, 1);
  assert.match(
    result.stdout,
    new RegExp(`FAIL run ${orphaned} \\[chain-without-run\\]: an audit chain whose run is not in the runs table`),
  );
  assert.match(
    result.stdout,
    new RegExp(`FAIL run ${emptied} \\[run-without-chain\\]: a failed run without any audit events`),
  );
  assert.match(result.stdout, /^audit 2 problem\(s\)/m);
});

test('runs removed by the retention sweep, their heads kept in audit_retired, pass; a retired head altered afterwards fails', async () => {
  const { dataDir, database, anchors } = copyFixture();
  // The service logs a signed "run retired" line for each run the sweep removes; they are shipped with the rest.
  const signer = createAnchorSigner(Buffer.from(KEY));
  const retention = createRetention({
    database,
    days: 1,
    now: () => new Date(Date.now() + 30 * 24 * 3600 * 1000),
    onRetired: (run) =>
      appendFileSync(
        anchors,
        `${JSON.stringify({ level: 30, msg: 'run retired', runId: run.runId, ...retiredAnchorLogFields({ ...run, signer }) })}\n`,
      ),
  });
  assert.equal((await retention.sweep()).retired, 6);
  const retiredCopy = mkdtempSync(join(tmpdir(), 'kubewhy-retired-'));
  database.exec(`VACUUM INTO '${join(retiredCopy, 'kubewhy.db')}'`);
  const runId = fixture.incidents[0]!;
  database.prepare('UPDATE audit_retired SET seq = seq - 1 WHERE run_id = ?').run(runId);
  database.close();

  const retired = await verify(retiredCopy, ['--anchors', anchors, '--key-file', fixture.keyFile]);
  assert.equal(retired.code, 0, retired.stdout + retired.stderr);
  assert.match(
    retired.stdout,
    /0 anchor\(s\) from .* matched their chains, 6 matched the heads of runs removed by retention/,
  );
  const altered = await verify(dataDir, ['--anchors', anchors, '--key-file', fixture.keyFile]);
  assert.equal(altered.code, 1);
  assert.match(
    altered.stdout,
    new RegExp(
      `FAIL run ${runId} \\[retired-mismatch\\]: recorded as retired at seq \\d+ .* the retired head was altered`,
    ),
  );
});

test('anchors without a key to check them, and unsigned anchors, pass with a warning', async () => {
  const { dataDir, database, anchors } = copyFixture();
  database.close();
  const unchecked = await verify(dataDir, ['--anchors', anchors]);
  assert.equal(unchecked.code, 0, unchecked.stdout);
  assert.match(
    unchecked.stdout,
    /^WARN \[anchor-unchecked\]: the signatures of 6 anchor\(s\) were not checked: no key given/m,
  );

  const unsignedLog = join(dataDir, 'unsigned.log');
  writeFileSync(unsignedLog, readFileSync(anchors, 'utf8').replaceAll(/,"auditAnchor":"[^"]*"/g, ''));
  const unsigned = await verify(dataDir, ['--anchors', unsignedLog, '--key-file', fixture.keyFile]);
  assert.equal(unsigned.code, 0, unsigned.stdout);
  assert.match(unsigned.stdout, /^WARN \[anchor-unsigned\]: 6 anchor\(s\) are unsigned/m);
  assert.match(unsigned.stdout, /audit OK: .*\(1 warning\(s\)\)$/m);
});

test('usage errors exit 2 with a message and no stack trace: a missing anchors file, a short key, a file without anchors', async () => {
  const { dataDir, database, anchors } = copyFixture();
  database.close();
  const missing = await verify(dataDir, ['--anchors', join(dataDir, 'nowhere.log')]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /^kubewhy audit verify: cannot read the anchors file .*nowhere\.log \(ENOENT\)$/m);
  const shortKey = join(dataDir, 'short-key');
  writeFileSync(shortKey, 'short\n');
  const short = await verify(dataDir, ['--anchors', anchors, '--key-file', shortKey]);
  assert.equal(short.code, 2);
  assert.match(short.stderr, /--key-file: the audit key in .*short-key is 5 bytes; it needs at least 32/);
  const empty = join(dataDir, 'empty.log');
  writeFileSync(empty, 'nothing here\n{"msg":"request completed"}\n');
  const noAnchors = await verify(dataDir, ['--anchors', empty]);
  assert.equal(noAnchors.code, 2);
  assert.match(noAnchors.stderr, /no audit anchors/);
  for (const result of [missing, short, noAnchors]) assert.doesNotMatch(result.stderr, /\n\s+at /);
});

test('kubewhy serve refuses to start with an unreadable audit key file, naming the setting and the path', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kubewhy-serve-key-'));
  const keyFile = join(dataDir, 'missing-audit-key');
  const result = await execute(process.execPath, ['bin/kubewhy.js', 'serve'], {
    env: {
      ...process.env,
      KUBEWHY_DATA_DIR: dataDir,
      KUBEWHY_PORT: '0',
      KUBEWHY_CLUSTER: 'mock',
      KUBEWHY_AUDIT_KEY_FILE: keyFile,
      ANTHROPIC_API_KEY: '',
    },
    timeout: 30_000,
  }).then(
    () => ({ code: 0, stderr: '' }),
    (error: { code?: number; stderr?: string }) => ({ code: error.code ?? 1, stderr: error.stderr ?? '' }),
  );
  assert.equal(result.code, 2);
  assert.match(
    result.stderr,
    new RegExp(`KUBEWHY_AUDIT_KEY_FILE: cannot read the audit key file ${keyFile} \\(ENOENT\\)`),
  );
});

test('a run removed by hand with its head copied into audit_retired is caught: no signed "run retired" line was logged for it', async () => {
  const { dataDir, database, anchors } = copyFixture();
  const runId = fixture.incidents[1]!;
  database
    .prepare(
      "INSERT INTO audit_retired (run_id, seq, hash, retired_at) SELECT run_id, seq, hash, '2026-12-01T00:00:00.000Z' FROM audit_heads WHERE run_id = ?",
    )
    .run(runId);
  for (const table of ['audit_events', 'audit_heads'])
    database.prepare(`DELETE FROM ${table} WHERE run_id = ?`).run(runId);
  database.prepare('DELETE FROM runs WHERE id = ?').run(runId);
  database.close();

  const result = await verify(dataDir, ['--anchors', anchors, '--key-file', fixture.keyFile]);
  assert.equal(result.code, 1, result.stdout);
  assert.match(
    result.stdout,
    new RegExp(
      `FAIL run ${runId} \\[retired-unlogged\\]: recorded as removed by retention .* no signed "run retired" line`,
    ),
  );
  // A retirement line forged by marking a copied finish line as retired fails its signature.
  const finished = fixture.logs.split('\n').find((line) => line.includes(runId) && line.includes('"auditAnchor"'))!;
  appendFileSync(
    anchors,
    `${JSON.stringify({ ...(JSON.parse(finished) as Record<string, unknown>), auditRetired: true })}\n`,
  );
  const forged = await verify(dataDir, ['--anchors', anchors, '--key-file', fixture.keyFile]);
  assert.equal(forged.code, 1);
  assert.match(forged.stdout, new RegExp(`FAIL run ${runId} \\[anchor-forged\\]`));
});

test('serve warns that anchors are unsigned exactly when no audit key is set, whether or not notifications are on', () => {
  const notifications = {
    channels: [{ name: 'oncall', kind: 'slack' }],
    routes: [{}],
    consoleUrl: 'https://kubewhy.example.com',
  } as unknown as Parameters<typeof startupNotices>[0]['notifications'];
  const warned = (input: Parameters<typeof startupNotices>[0]): boolean =>
    startupNotices(input).some(
      (notice) => notice.level === 'warn' && /anchors are logged unsigned/.test(notice.message),
    );
  assert.equal(warned({}), true);
  assert.equal(warned({ notifications }), true);
  assert.equal(warned({ auditKeyId: 'k1' }), false);
  assert.equal(warned({ auditKeyId: 'k1', notifications }), false);
  assert.ok(
    startupNotices({ auditKeyId: 'k1', notifications }).some(
      (notice) => notice.message === 'notifications go to oncall (slack)',
    ),
  );
});
