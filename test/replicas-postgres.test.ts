/**
 * Several replicas on one PostgreSQL database, as a Deployment of kubewhy with
 * `replicaCount: 3` runs: real `kubewhy serve` processes, a real PostgreSQL server (the
 * tests start it: test/helpers/postgres.ts), one mock cluster they all read.
 *
 * The storm: 1,000 alert deliveries (500 alerts, each notification sent twice, as two
 * Alertmanager peers in HA send it, each to a replica picked at random), one replica killed
 * with SIGKILL mid-storm while it runs diagnoses. Then: no alert lost, one run per alert,
 * every run ended exactly once (the killed replica's runs taken over after their lease),
 * every audit chain whole.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openPostgresStores } from '../src/store/postgres/stores.ts';
import { REPLICA_TOKENS, startReplicas } from './helpers/replicas.ts';
import { runKubewhy } from './helpers/run-kubewhy.ts';
import { hasAlertmanager, startAlertmanager } from './helpers/service-alertmanager.ts';
import { pollUntil, type ServiceProcess } from './helpers/service-process.ts';

const DEMO = fileURLToPath(new URL('../mock-cluster/scenarios/checkout-secret-rotation', import.meta.url));
const ALERTS = 500;
const GROUP = 5;
const PEERS = 2;

/** One alert per fingerprint; its pod (so its Deployment) is named after it, so each is an incident of its own. */
function alert(index: number): Record<string, unknown> {
  const fingerprint = `storm${String(index).padStart(4, '0')}`;
  return {
    status: 'firing',
    labels: {
      alertname: 'KubePodCrashLooping',
      namespace: 'staging',
      pod: `checkout-${fingerprint}-7d9f8c6b5-x2k4q`,
      container: 'app',
      severity: 'warning',
    },
    annotations: { summary: 'Pod is crash looping.' },
    startsAt: '2026-12-02T09:50:00.000Z',
    endsAt: '0001-01-01T00:00:00Z',
    fingerprint,
  };
}

function notification(first: number): Record<string, unknown> {
  return {
    receiver: 'kubewhy',
    status: 'firing',
    alerts: Array.from({ length: GROUP }, (_unused, offset) => alert(first + offset)),
    groupLabels: { alertname: 'KubePodCrashLooping' },
    commonLabels: { alertname: 'KubePodCrashLooping', namespace: 'staging' },
    commonAnnotations: {},
    externalURL: 'http://alertmanager.example',
    version: '4',
    groupKey: `{}:{group="${first}"}`,
    truncatedAlerts: 0,
  };
}

/** Sends to a live replica; a refused connection (a killed replica) goes to another, as a Service sends it. */
async function deliver(live: () => ServiceProcess[], body: Record<string, unknown>): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const replicas = live();
    const replica = replicas[Math.floor(Math.random() * replicas.length)]!;
    try {
      const answer = await replica.request({
        method: 'POST',
        path: '/v1/alerts/alertmanager',
        token: REPLICA_TOKENS.ingest,
        body,
      });
      if (answer.status < 500) return answer.status;
    } catch {
      // Killed under us: the next attempt picks another.
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('no replica took the notification');
}

test(
  'three replicas on one PostgreSQL take 1,000 alert deliveries, one killed mid-storm: none lost, one run per alert, each ended once, every chain whole',
  { timeout: 420_000 },
  async (t) => {
    const set = await startReplicas({
      count: 3,
      scenario: DEMO,
      // Each read takes a moment, so the killed replica is mid-diagnosis when it dies.
      faults: ['latency:ms=40'],
      // Info logs: each replica logs the audit anchor of every run it ends, which verify checks below.
      environment: {
        KUBEWHY_RUN_LEASE_SECONDS: '3',
        KUBEWHY_CONCURRENCY: '4',
        KUBEWHY_QUEUE_SIZE: '10000',
        KUBEWHY_LOG_LEVEL: 'info',
      },
    });
    t.after(() => set.close());
    const database = new pg.Pool({ connectionString: set.databaseUrl, max: 4 });
    t.after(() => database.end());
    const count = async (sql: string, values: unknown[] = []): Promise<number> =>
      Number((await database.query<{ n: string }>(sql, values)).rows[0]?.n ?? 0);

    const victim = set.replicas[1]!;
    let killed = false;
    const live = (): ServiceProcess[] => set.replicas.filter((replica) => replica !== victim || !killed);
    const deliveries = Array.from(
      { length: (ALERTS / GROUP) * PEERS },
      (_unused, index) => Math.floor(index / PEERS) * GROUP,
    ).sort(() => Math.random() - 0.5);
    const statuses: number[] = [];
    let next = 0;
    const sender = async (): Promise<void> => {
      while (next < deliveries.length) {
        const first = deliveries[next++]!;
        statuses.push(await deliver(live, notification(first)));
        if (!killed && next >= deliveries.length * 0.4) {
          // Mid-storm, once the victim runs diagnoses: SIGKILL, no chance to hand anything back.
          const running = await count(
            "SELECT count(*) AS n FROM runs WHERE status = 'running' AND lease_owner = 'replica-2'",
          );
          if (running > 0) {
            killed = true;
            await victim.kill();
          }
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, sender));
    if (!killed) {
      await pollUntil(
        async () =>
          (await count("SELECT count(*) AS n FROM runs WHERE status = 'running' AND lease_owner = 'replica-2'")) > 0
            ? true
            : undefined,
        { timeoutMs: 60_000, what: 'the victim to run a diagnosis' },
      );
      killed = true;
      await victim.kill();
    }

    assert.deepEqual([...new Set(statuses)], [202], 'every notification was taken');
    await pollUntil(
      async () =>
        (await count("SELECT count(*) AS n FROM runs WHERE status IN ('queued', 'running', 'awaiting_approval')")) === 0
          ? true
          : undefined,
      {
        timeoutMs: 300_000,
        intervalMs: 500,
        what: 'every run to end',
      },
    );

    // None lost: every alert is attached to a run.
    assert.equal(await count('SELECT count(DISTINCT (fingerprint, starts_at)) AS n FROM run_alerts'), ALERTS);
    // One run per alert, though each was delivered twice, to replicas that took them at the same moment.
    assert.equal(await count('SELECT count(*) AS n FROM runs'), ALERTS);
    assert.equal(
      await count(
        'SELECT count(*) AS n FROM (SELECT fingerprint FROM runs GROUP BY fingerprint HAVING count(*) > 1) AS twice',
      ),
      0,
    );
    // Each run ended exactly once: one run-finished event per chain, whoever ran it.
    assert.equal(
      await count(
        "SELECT count(*) AS n FROM (SELECT run_id FROM audit_events WHERE type = 'run-finished' GROUP BY run_id HAVING count(*) = 1) AS once",
      ),
      ALERTS,
    );
    assert.equal(
      await count("SELECT count(*) AS n FROM runs WHERE status = 'completed'"),
      ALERTS,
      'every run completed',
    );
    // The killed replica's runs were taken over by the others, and say so in their chains.
    const takenOver = await count(
      "SELECT count(DISTINCT run_id) AS n FROM audit_events WHERE type = 'error' AND payload LIKE '%resumed on another replica%'",
    );
    assert.ok(takenOver > 0, 'the runs the killed replica held were taken over');
    let counted = 0;
    for (const replica of live()) {
      const metrics = (await replica.request({ path: '/metrics' })).text;
      counted += Number(/^kubewhy_runs_taken_over_total\{outcome="requeued"\} (\d+)/m.exec(metrics)?.[1] ?? 0);
    }
    assert.equal(counted, takenOver, 'each takeover is counted once, by the replica that took it');
    assert.equal(
      await count('SELECT count(*) AS n FROM runs WHERE lease_owner IS NOT NULL'),
      0,
      'no ended run keeps a lease',
    );

    const stores = await openPostgresStores(set.databaseUrl, { owner: 'verifier', migrate: false });
    t.after(() => stores.close());
    const verified = await stores.audit.verify();
    assert.deepEqual(verified.problems, []);
    assert.equal(verified.runs, ALERTS);
    t.diagnostic(`${takenOver} run(s) taken over from the killed replica; ${verified.events} audit events verified`);

    // As an operator checks it: kubewhy audit verify on the database, against the anchors every replica logged (the killed one's too).
    const directory = mkdtempSync(join(tmpdir(), 'kubewhy-replica-logs-'));
    t.after(() => rmSync(directory, { recursive: true, force: true }));
    const logs = set.replicas.map((replica, index) => {
      const path = join(directory, `replica-${index + 1}.log`);
      writeFileSync(path, replica.output());
      return path;
    });
    // The test server trusts local connections, so a password in the URL is taken and ignored: it must not be printed.
    const withPassword = new URL(set.databaseUrl);
    withPassword.password = 'never-printed-3f9a1c';
    const verify = await runKubewhy(['audit', 'verify', ...logs.flatMap((path) => ['--anchors', path])], {
      env: { PATH: process.env.PATH, KUBEWHY_DATABASE_URL: withPassword.toString() },
    });
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
    assert.match(
      verify.stdout,
      new RegExp(`audit OK: ${ALERTS} run\\(s\\), ${verified.events} event\\(s\\) checked in postgres://`),
    );
    assert.match(verify.stdout, /anchor\(s\) from .* matched their chains/);
    assert.ok(!`${verify.stdout}${verify.stderr}`.includes('never-printed-3f9a1c'), 'the password is not printed');
  },
);

test(
  'an action held on one replica is approved through another: the run resumes where a replica claims it, and the rollback reaches the one cluster',
  { timeout: 180_000 },
  async (t) => {
    const set = await startReplicas({
      count: 2,
      scenario: DEMO,
      environment: { KUBEWHY_ACT_NAMESPACES: 'staging', KUBEWHY_TOKEN_ACT: REPLICA_TOKENS.ingest },
    });
    t.after(() => set.close());
    const [first, second] = set.replicas as [ServiceProcess, ServiceProcess];
    const deployment = async (): Promise<string> => {
      const response = await fetch(`${set.cluster.url}/apis/apps/v1/namespaces/staging/deployments/checkout-api`);
      return JSON.stringify(((await response.json()) as { spec: { template: unknown } }).spec.template);
    };
    const before = await deployment();

    const created = await first.request({
      method: 'POST',
      path: '/v1/incidents',
      token: REPLICA_TOKENS.ingest,
      body: { text: 'checkout-api in staging keeps restarting', namespace: 'staging', rung: 'ACT' },
    });
    assert.equal(created.status, 202, created.text);
    const runId = (created.body as { id: string }).id;
    type Run = { status: string; actions: { id: string; tool: string; status: string }[] };
    const runOn = (replica: ServiceProcess) => async (): Promise<Run> =>
      (await replica.request({ path: `/v1/runs/${runId}`, token: REPLICA_TOKENS.read })).body as Run;
    const parked = await pollUntil(
      async () => {
        const run = await runOn(second)();
        return run.status === 'awaiting_approval' ? run : undefined;
      },
      { timeoutMs: 60_000, what: 'the run to park, as the other replica reads it' },
    );
    const held = parked.actions.find((action) => action.status === 'awaiting_approval');
    assert.equal(held?.tool, 'rollout_undo');

    // Decided on the replica that did not run it.
    const approved = await second.request({
      method: 'POST',
      path: `/v1/runs/${runId}/actions/${held.id}/approve`,
      token: REPLICA_TOKENS.approve,
      body: { by: 'alice' },
    });
    assert.equal(approved.status, 200, approved.text);
    const ended = await pollUntil(
      async () => {
        const run = await runOn(first)();
        return run.status === 'completed' || run.status === 'failed' ? run : undefined;
      },
      { timeoutMs: 60_000, what: 'the run to resume and end' },
    );
    assert.equal(ended.status, 'completed');
    assert.equal(ended.actions.find((action) => action.id === held.id)?.status, 'executed');
    assert.notEqual(await deployment(), before, 'the rollback reached the cluster both replicas read');

    // One approval, one write, one chain: decided once, executed once, resumed once.
    const audit = (await second.request({ path: `/v1/runs/${runId}/audit`, token: REPLICA_TOKENS.read })).body as {
      type: string;
      payload: Record<string, unknown>;
    }[];
    assert.equal(audit.filter((event) => event.type === 'approval').length, 1);
    assert.equal(audit.filter((event) => event.type === 'run-resumed').length, 1);
    assert.equal(audit.filter((event) => event.type === 'run-finished').length, 1);
    const stores = await openPostgresStores(set.databaseUrl, { owner: 'verifier', migrate: false });
    t.after(() => stores.close());
    assert.deepEqual((await stores.audit.verify(runId)).problems, []);
  },
);

test(
  'two Alertmanager peers that do not hear each other each send every notification, to different replicas: one run per alert',
  { skip: hasAlertmanager() ? false : 'prometheus-alertmanager is not installed', timeout: 180_000 },
  async (t) => {
    const set = await startReplicas({ count: 2, scenario: DEMO });
    t.after(() => set.close());
    const directory = mkdtempSync(join(tmpdir(), 'kubewhy-alertmanager-peers-'));
    t.after(() => rmSync(directory, { recursive: true, force: true }));
    const credentialsFile = join(directory, 'token');
    writeFileSync(credentialsFile, REPLICA_TOKENS.ingest);
    // A partition, or a peer slower than the other's notification: each peer sends on its own, each to the replica behind its connection.
    const peers = await Promise.all(
      set.replicas.map((replica, index) => {
        const peerDirectory = join(directory, `peer-${index + 1}`);
        mkdirSync(peerDirectory);
        return startAlertmanager({
          directory: peerDirectory,
          webhookUrl: `${replica.url}/v1/alerts/alertmanager`,
          credentialsFile,
        });
      }),
    );
    t.after(() => Promise.all(peers.map((peer) => peer.stop())));

    const fired = Array.from({ length: 20 }, (_unused, index) => ({
      labels: {
        alertname: 'KubePodCrashLooping',
        namespace: 'staging',
        pod: `checkout-peer${index}-7d9f8c6b5-x2k4q`,
        container: 'app',
        severity: 'warning',
      },
      annotations: { summary: 'Pod is crash looping.' },
      startsAt: new Date(Date.now() - 60_000).toISOString(),
    }));
    // Prometheus sends its alerts to every Alertmanager peer.
    await Promise.all(peers.map((peer) => peer.postAlerts(fired)));
    for (const peer of peers) {
      await pollUntil(
        async () =>
          (await peer.metric('alertmanager_notifications_total', /integration="webhook"/)) >= fired.length
            ? true
            : undefined,
        { timeoutMs: 60_000, what: 'each peer to send every alert' },
      );
    }
    // Each replica takes every alert its peer sends.
    for (const replica of set.replicas) {
      const received = async (): Promise<number> =>
        Number(
          /^kubewhy_alerts_received_total\{status="firing"\} (\d+)/m.exec(
            (await replica.request({ path: '/metrics' })).text,
          )?.[1] ?? 0,
        );
      await pollUntil(async () => ((await received()) >= fired.length ? true : undefined), {
        timeoutMs: 60_000,
        what: `${replica.url} to take every alert`,
      });
    }
    const database = new pg.Pool({ connectionString: set.databaseUrl, max: 2 });
    t.after(() => database.end());
    const runs = await database.query<{ pod: string; n: number }>(
      "SELECT trigger::jsonb -> 'alert' -> 'labels' ->> 'pod' AS pod, count(*)::int AS n FROM runs GROUP BY 1 ORDER BY 1",
    );
    assert.equal(runs.rows.length, fired.length, 'a run for every alert');
    assert.deepEqual(
      runs.rows.filter((row) => row.n !== 1),
      [],
      'and one only',
    );
  },
);
