import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readLogSignals } from '../log-signals.ts';
import { readMissingReference } from '../container-signals.ts';
import { isImagePullReason } from '../container-signals.ts';
import { readSchedulingMessage } from '../scheduling-signals.ts';
import { IMAGE_PULL_REASONS, MISSING_REFERENCE_FORMS, type MissingReferenceForm } from './container.ts';
import {
  LOG_SIGNALS,
  SIGNAL_TABLES,
  SCHEDULING_REASONS,
  isAccessLogLine,
  isQuotaRefusal,
  matchLogSignal,
  type Row,
} from './index.ts';

const everyRow = Object.entries(SIGNAL_TABLES).flatMap(([table, rows]) => rows.map((row) => ({ table, row })));

test('every row of every table has an id, a meaning, a source and examples both ways', () => {
  for (const { table, row } of everyRow) {
    assert.match(row.id, /^[a-z0-9]+(-[a-z0-9]+)*$/, `${table}: id ${row.id} is kebab-case`);
    assert.ok(
      row.means.length > 10 && row.source.length > 10,
      `${table}/${row.id} says what it means and where it comes from`,
    );
    assert.ok(row.examples.match.length >= 1, `${table}/${row.id} has a line it must match`);
    assert.ok(row.examples.noMatch.length >= 1, `${table}/${row.id} has a near miss it must not match`);
    // No state between tests (g, y), and nothing a case-insensitive union of the rows would change (m, s, u, v).
    assert.match(row.pattern.flags, /^i?$/, `${table}/${row.id} pattern flags`);
  }
});

test('row ids are unique across all tables', () => {
  const ids = everyRow.map(({ row }) => row.id);
  assert.deepEqual(
    ids.filter((id, index) => ids.indexOf(id) !== index),
    [],
  );
});

test('every row matches its match examples and none of its near misses', () => {
  for (const { table, row } of everyRow) {
    for (const line of row.examples.match)
      assert.ok(row.pattern.test(line), `${table}/${row.id} should match: ${line}`);
    for (const line of row.examples.noMatch)
      assert.ok(!row.pattern.test(line), `${table}/${row.id} should not match: ${line}`);
  }
});

test("each log row's examples get the row's verdict, read alone", () => {
  for (const row of LOG_SIGNALS) {
    for (const line of row.examples.match)
      assert.equal(
        readLogSignals([line]).verdict,
        row.verdict,
        `${row.id}: ${line} (decided by ${matchLogSignal(line)?.id})`,
      );
  }
});

test('scheduling reasons, image pull reasons and missing references read their examples', () => {
  for (const row of SCHEDULING_REASONS) {
    for (const line of row.examples.match)
      assert.equal(
        readSchedulingMessage(`0/3 nodes are available: ${line}.`).verdict,
        row.verdict,
        `${row.id}: ${line}`,
      );
  }
  for (const row of IMAGE_PULL_REASONS)
    for (const reason of row.examples.match) assert.ok(isImagePullReason(reason), reason);
  assert.equal(isImagePullReason('CrashLoopBackOff'), false);
  for (const form of MISSING_REFERENCE_FORMS as readonly MissingReferenceForm[]) {
    for (const line of form.examples.match) assert.ok(readMissingReference(line), `${form.id}: ${line}`);
  }
});

test('quota and LimitRange refusals are recognised; other forbidden messages are not', () => {
  const quota: readonly Row[] = SIGNAL_TABLES.QUOTA_REFUSALS!;
  for (const row of quota) for (const line of row.examples.match) assert.ok(isQuotaRefusal(line), line);
  assert.equal(
    isQuotaRefusal('Error creating: pods "web-1" is forbidden: violates PodSecurity "restricted:latest"'),
    false,
  );
});

test("the app's own access log is no failure: a 401 it answered does not outrank the crash that follows", () => {
  const lines = [
    '10.1.2.3 - - [29/Nov/2026:10:00:01 +0000] "GET /admin HTTP/1.1" 401 12 "-" "curl/8.0"',
    'method=GET path=/admin status=401 duration=2ms',
    '[GIN] 2026/11/29 - 10:00:01 | 401 |      12.3µs |    10.244.1.9 | GET      "/api/auth/me"',
    "TypeError: Cannot read properties of undefined (reading 'id')",
    '    at handler (/app/src/routes/orders.js:42:17)',
  ];
  assert.ok(isAccessLogLine(lines[0]!) && isAccessLogLine(lines[1]!) && isAccessLogLine(lines[2]!));
  for (const line of lines.slice(0, 3)) assert.equal(readLogSignals([line]).verdict, undefined, line);
  assert.equal(readLogSignals(lines).verdict, 'app-crash');
});

test('a 401 the app received from a dependency is refused credentials', () => {
  for (const line of [
    'AxiosError: Request failed with status code 401',
    'HTTP/1.1 401 Unauthorized',
    'level=error msg="payment call failed" status=401 calling https://payments.example.com/v1/charges',
  ]) {
    assert.equal(readLogSignals([line]).verdict, 'bad-credentials', line);
  }
});

test('a .NET dependency-injection failure is a crash of the app, not an unreachable dependency', () => {
  const reading = readLogSignals([
    "Unhandled exception. System.InvalidOperationException: Unable to resolve service for type 'Shop.Orders.IOrderRepository' while attempting to activate 'Shop.Orders.OrdersController'.",
    '   at Microsoft.Extensions.DependencyInjection.ActivatorUtilities.ThrowHelperUnableToResolveService(Type type, Type requiredBy)',
  ]);
  assert.equal(reading.verdict, 'app-crash');
  assert.equal(
    readLogSignals(['System.Net.Http.HttpRequestException: No such host is known. (inventory:80)']).verdict,
    'dependency-unreachable',
  );
});

test('a Spring start-up failure is the dependency its cause names, or the app itself when none is named', () => {
  const refused =
    "org.springframework.beans.factory.BeanCreationException: Error creating bean with name 'dataSource': Failed to initialize pool: Connection to orders-db.data:5432 refused. Check that the hostname and port are correct";
  assert.equal(readLogSignals([refused]).verdict, 'dependency-unreachable');
  const password =
    'org.springframework.beans.factory.BeanCreationException: Error creating bean with name \'entityManagerFactory\': FATAL: password authentication failed for user "catalog"';
  assert.equal(readLogSignals([password]).verdict, 'bad-credentials');
  const wiring =
    "org.springframework.beans.factory.UnsatisfiedDependencyException: Error creating bean with name 'orderController': No qualifying bean of type 'com.acme.PaymentClient' available";
  assert.equal(readLogSignals([wiring]).verdict, 'app-crash');
});

test('cloud identity refusals are refused credentials', () => {
  for (const line of [
    'botocore.exceptions.ClientError: An error occurred (AccessDenied) when calling the GetObject operation: Access Denied',
    'AADSTS7000222: The provided client secret keys for app are expired.',
    "google.api_core.exceptions.PermissionDenied: 403 PERMISSION_DENIED: Permission 'pubsub.topics.publish' denied on resource (or it may not exist).",
    'rpc error: code = PermissionDenied desc = not allowed',
  ]) {
    assert.equal(readLogSignals([line]).verdict, 'bad-credentials', line);
  }
  assert.equal(
    readLogSignals(['rpc error: code = DeadlineExceeded desc = context deadline exceeded']).verdict,
    'dependency-unreachable',
  );
});
