import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readLogSignals } from './log-signals.ts';
import { readSchedulingMessage } from './scheduling-signals.ts';
import { readMissingReference } from './container-signals.ts';

test('a refused password is bad credentials even when a stack trace follows', () => {
  const reading = readLogSignals([
    '2026-11-29T09:58:01Z INFO starting checkout-api v4.2.0',
    '2026-11-29T09:58:02Z FATAL: password authentication failed for user "checkout"',
    'Error: password authentication failed for user "checkout"',
    '    at Parser.parseErrorMessage (/app/node_modules/pg-protocol/dist/parser.js:287:98)',
  ]);
  assert.equal(reading.verdict, 'bad-credentials');
  assert.match(reading.evidence.join('\n'), /password authentication failed/);
});

test('DNS failures and timeouts are an unreachable dependency', () => {
  assert.equal(
    readLogSignals(['Error: getaddrinfo ENOTFOUND redis-master.shop.svc.cluster.local']).verdict,
    'dependency-unreachable',
  );
  assert.equal(
    readLogSignals(['dial tcp 10.96.41.12:5432: i/o timeout', 'failed to connect to database after 5 attempts'])
      .verdict,
    'dependency-unreachable',
  );
  assert.equal(
    readLogSignals([
      'x509: certificate has expired or is not yet valid: current time 2026-11-29T09:12:44Z is after 2026-11-28T23:59:59Z',
    ]).verdict,
    'bad-credentials',
  );
});

test('an old harmless warning does not outweigh the crash at the end of the log', () => {
  const lines = [
    'WARN metrics push failed: connection refused (will retry)',
    ...Array.from({ length: 8 }, (_, index) => `INFO processed batch ${index}`),
    'Traceback (most recent call last):',
    '  File "/app/report.py", line 88, in <module>',
    "KeyError: 'REPORT_BUCKET'",
  ];
  const reading = readLogSignals(lines);
  assert.equal(reading.verdict, 'app-crash');
  assert.match(reading.evidence.join('\n'), /KeyError: 'REPORT_BUCKET'/);
});

test('the scheduler message names the reason that excludes the most nodes', () => {
  assert.equal(
    readSchedulingMessage(
      '0/3 nodes are available: 3 Insufficient nvidia.com/gpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.',
    ).verdict,
    'unschedulable-resources',
  );
  assert.equal(
    readSchedulingMessage(
      "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    ).verdict,
    'unschedulable-placement',
  );
  assert.equal(
    readSchedulingMessage(
      '0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.',
    ).verdict,
    'pvc-unbound',
  );
});

test('missing secrets, configmaps and keys are read from kubelet messages', () => {
  assert.deepEqual(readMissingReference('Error: secret "smtp-credentials" not found'), {
    verdict: 'missing-secret',
    name: 'smtp-credentials',
  });
  assert.deepEqual(
    readMissingReference('MountVolume.SetUp failed for volume "config" : configmap "ingest-config-v2" not found'),
    { verdict: 'missing-configmap', name: 'ingest-config-v2' },
  );
  assert.deepEqual(readMissingReference("Error: couldn't find key password-old in Secret staging/checkout-db"), {
    verdict: 'missing-secret',
    name: 'checkout-db',
    key: 'password-old',
  });
});

test('evidence prefers the whole message over the fields of a dumped error object', () => {
  const reading = readLogSignals([
    '2026-11-16T14:15:02.163Z ERROR cart: redis connection error: Error: getaddrinfo ENOTFOUND redis-master.shop.svc.cluster.local',
    "  code: 'ENOTFOUND',",
    "  syscall: 'getaddrinfo',",
    '2026-11-16T14:15:03.163Z ERROR cart: redis connection error: Error: getaddrinfo ENOTFOUND redis-master.shop.svc.cluster.local',
  ]);
  assert.deepEqual(reading.evidence, [
    '2026-11-16T14:15:03.163Z ERROR cart: redis connection error: Error: getaddrinfo ENOTFOUND redis-master.shop.svc.cluster.local',
  ]);
  const python = readLogSignals([
    'Traceback (most recent call last):',
    '  File "/app/report.py", line 88, in upload_report',
    "KeyError: 'REPORT_BUCKET'",
  ]);
  assert.ok(python.evidence.includes("KeyError: 'REPORT_BUCKET'"));
});

test('a crash after repeated connection warnings is an unreachable dependency, not the generic exception', () => {
  const warning = (second: number) =>
    `2026-11-26T06:53:${second}.062Z  WARN 1 --- [main] o.a.k.clients.NetworkClient : Connection to node -1 (kafka-0.kafka-headless.streaming.svc.cluster.local/10.244.2.31:9092) could not be established. Broker may not be available.`;
  const reading = readLogSignals([
    warning(30),
    warning(31),
    warning(32),
    'ERROR 1 --- [main] o.s.boot.SpringApplication : Application run failed',
    'java.lang.IllegalStateException: Failed to execute ApplicationRunner',
  ]);
  assert.equal(reading.verdict, 'dependency-unreachable');
  assert.match(reading.evidence.join('\n'), /could not be established/);
});

test("Ruby's error line (message first, class in parentheses) is a crash and its evidence", () => {
  const reading = readLogSignals([
    'bundler: failed to load command: puma (/usr/local/bundle/bin/puma)',
    "/usr/local/bundle/gems/activerecord-7.1.4/lib/active_record/migration.rb:709:in `check_all_pending!': Migrations are pending. To resolve this issue, run: (ActiveRecord::PendingMigrationError)",
    "\tfrom /usr/local/bundle/gems/activerecord-7.1.4/lib/active_record/railtie.rb:60:in `block in <class:Railtie>'",
  ]);
  assert.equal(reading.verdict, 'app-crash');
  assert.match(reading.evidence.join('\n'), /PendingMigrationError/);
});

test("the nodes a pod's own selector leaves out do not decide while other nodes were counted for other reasons", () => {
  // A DaemonSet's pod pinned to one node, a GPU job selecting the GPU pool: the chosen nodes are full.
  const pinned =
    "0/6 nodes are available: 1 Insufficient memory, 5 node(s) didn't match Pod's node affinity/selector. preemption: 0/6 nodes are available: 1 No preemption victims found for incoming pod, 5 Preemption is not helpful for scheduling.";
  assert.equal(readSchedulingMessage(pinned).verdict, 'unschedulable-resources');
  assert.equal(
    readSchedulingMessage(
      "0/5 nodes are available: 2 Insufficient nvidia.com/gpu, 3 node(s) didn't match Pod's node affinity/selector.",
    ).verdict,
    'unschedulable-resources',
  );
  // Counter-examples: the selector leaves out every node, or the chosen nodes refuse it by taint.
  assert.equal(
    readSchedulingMessage("0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.").verdict,
    'unschedulable-placement',
  );
  assert.equal(
    readSchedulingMessage(
      "0/6 nodes are available: 3 node(s) didn't match Pod's node affinity/selector, 3 node(s) had untolerated taint {dedicated: training}.",
    ).verdict,
    'unschedulable-placement',
  );
});
