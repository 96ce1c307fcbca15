import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CLUSTER_DNS_FAILURES } from './cluster-dns.ts';
import { TARGET_FORMS } from './target-forms.ts';
import { isClusterDnsFailure, readDependencyTarget } from './targets.ts';

test('each target form reads the host and port its examples name, and nothing from its near misses', () => {
  for (const form of TARGET_FORMS) {
    assert.equal(form.targets.length, form.examples.match.length, `${form.id}: one target per example`);
    form.examples.match.forEach((line, index) =>
      assert.deepEqual(readDependencyTarget(line), form.targets[index], `${form.id}: ${line}`),
    );
    for (const line of form.examples.noMatch)
      assert.equal(readDependencyTarget(line), undefined, `${form.id}: ${line}`);
  }
});

test('reads the target in the forms the stacks print', () => {
  const cases: [string, { host: string; port?: number }][] = [
    ['connect ECONNREFUSED 10.96.12.7:6379', { host: '10.96.12.7', port: 6379 }],
    ['getaddrinfo ENOTFOUND redis-master.shop.svc.cluster.local', { host: 'redis-master.shop.svc.cluster.local' }],
    ['dial tcp: lookup orders-db.data on 10.96.0.10:53: no such host', { host: 'orders-db.data' }],
    [
      'Connection to orders-db.data:5432 refused. Check that the hostname and port are correct',
      { host: 'orders-db.data', port: 5432 },
    ],
    ['could not translate host name "pg" to address: Temporary failure in name resolution', { host: 'pg' }],
    ["Unknown MySQL server host 'mysql-primary' (-2)", { host: 'mysql-primary' }],
    [
      '** (DBConnection.ConnectionError) tcp connect (postgres-db:5432): non-existing domain - :nxdomain',
      { host: 'postgres-db', port: 5432 },
    ],
    [
      'connection to server at "db.prod.svc" (10.0.3.4), port 5432 failed: Connection refused',
      { host: 'db.prod.svc', port: 5432 },
    ],
    ['Could not connect to Redis at redis:6379: Connection refused', { host: 'redis', port: 6379 }],
    ['dial tcp 10.96.41.12:5432: i/o timeout', { host: '10.96.41.12', port: 5432 }],
    [
      '[Consumer clientId=c-1] Connection to node -1 (kafka-0.kafka-headless.streaming.svc.cluster.local/10.1.2.3:9092) could not be established. Broker may not be available.',
      { host: 'kafka-0.kafka-headless.streaming.svc.cluster.local', port: 9092 },
    ],
    [
      'rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: dial tcp 10.0.0.5:9090: connect: connection refused"',
      { host: '10.0.0.5', port: 9090 },
    ],
    [
      'Get "http://inventory:8080/items?sku=42": dial tcp: lookup inventory on 10.96.0.10:53: no such host',
      { host: 'inventory', port: 8080 },
    ],
    ['curl: (6) Could not resolve host: inventory.', { host: 'inventory' }],
  ];
  for (const [line, target] of cases) assert.deepEqual(readDependencyTarget(line), target, line);
});

test('never names the cluster DNS server as the target', () => {
  assert.deepEqual(
    readDependencyTarget(
      'dial tcp: lookup orders-db.data on 10.96.0.10:53: read udp 10.244.1.5:41234->10.96.0.10:53: i/o timeout',
    ),
    { host: 'orders-db.data' },
  );
  assert.equal(readDependencyTarget('read udp 10.244.1.5:41234->10.96.0.10:53: i/o timeout'), undefined);
  assert.equal(readDependencyTarget('dial udp 10.96.0.10:53: connect: network is unreachable'), undefined);
});

test('lines that name no host have no target', () => {
  for (const line of [
    'nats: no servers available for connection',
    "TypeError: Cannot read properties of undefined (reading 'id')",
    'For details see https://www.postgresql.org/docs/current/auth-pg-hba-conf.html',
    'socket.gaierror: [Errno -3] Temporary failure in name resolution',
    '2026-11-29T10:00:01Z INFO listening on :8080',
  ]) {
    assert.equal(readDependencyTarget(line), undefined, line);
  }
});

test('tells a resolver that failed from a name that does not exist', () => {
  for (const row of CLUSTER_DNS_FAILURES) {
    for (const line of row.examples.match) assert.equal(isClusterDnsFailure(line), true, `${row.id}: ${line}`);
  }
  for (const line of [
    'Error: getaddrinfo EAI_AGAIN redis',
    'dial tcp: lookup kafka on 10.96.0.10:53: server misbehaving',
    'dial tcp: lookup x on 10.96.0.10:53: read udp 10.244.1.5:41234->10.96.0.10:53: i/o timeout',
    'Temporary failure in name resolution',
    ';; connection timed out; no servers could be reached',
  ]) {
    assert.equal(isClusterDnsFailure(line), true, line);
  }
  for (const line of [
    'dial tcp: lookup orders-db.data on 10.96.0.10:53: no such host',
    'Error: getaddrinfo ENOTFOUND redis-master',
    '** (DBConnection.ConnectionError) tcp connect (postgres-db:5432): non-existing domain - :nxdomain',
    "Unknown MySQL server host 'mysql-primary' (-2)",
    'dial tcp 10.96.41.12:5432: connect: connection refused',
  ]) {
    assert.equal(isClusterDnsFailure(line), false, line);
  }
});
