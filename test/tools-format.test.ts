/** The formatting helpers tools share, over plain Kubernetes objects. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CoreV1Event, V1Pod, V1PodSpec } from '@kubernetes/client-node';
import { formatAge, formatDuration } from '../src/tools/format/age.ts';
import { BudgetedText, enforceBudget } from '../src/tools/format/budget.ts';
import { foldEvents, formatEvent } from '../src/tools/format/events.ts';
import { compactLogLine } from '../src/tools/format/log-compact.ts';
import { countRepeats, digestLog, foldFrames } from '../src/tools/format/log-lines.ts';
import { summarizePodSpec } from '../src/tools/format/pod-template.ts';
import { describePodStatus, summarizePod } from '../src/tools/format/pod-status.ts';
import { parseQuantity } from '../src/tools/format/quantity.ts';
import { diffPodTemplates } from '../src/tools/format/template-diff.ts';

const now = new Date('2026-11-29T10:00:00Z');
const ago = (seconds: number): Date => new Date(now.getTime() - seconds * 1000);

describe('ages', () => {
  it('read like kubectl', () => {
    assert.deepEqual(
      [45, 390, 1_800, 7_980, 12_000, 36_000, 270_000, 3_456_000].map((seconds) => formatDuration(seconds * 1000)),
      ['45s', '6m30s', '30m', '133m', '3h20m', '10h', '3d3h', '40d'],
    );
  });
  it('are measured against the given clock', () => {
    assert.equal(formatAge('2026-11-29T09:55:00Z', now), '5m');
    assert.equal(formatAge(undefined, now), '?');
  });
});

describe('budgets', () => {
  it('stop writing once a line does not fit and say what was left out', () => {
    const text = new BudgetedText(700);
    for (let index = 0; index < 50; index += 1) text.add(`line ${index} ${'x'.repeat(30)}`);
    const content = text.finish('narrow it.');
    assert.equal(text.truncated, true);
    assert.ok(Buffer.byteLength(content) <= 700);
    assert.match(content, /more line\(s\), \d+ bytes, left out\. To see them, narrow it\./);
  });
  it('cut at a line end when enforced', () => {
    const { content, truncated } = enforceBudget(
      `${'a'.repeat(300)}\n${'b'.repeat(300)}\n${'c'.repeat(300)}`,
      500,
      'Narrow.',
    );
    assert.equal(truncated, true);
    assert.ok(Buffer.byteLength(content) <= 500);
    assert.ok(!content.includes('bbb'));
    assert.match(content, /^a{300}\n\[cut to fit the output budget of 500 bytes: \d+ bytes left out\. Narrow\.\]$/);
  });
});

describe('pod status', () => {
  const crashing: V1Pod = {
    metadata: { name: 'web-1', namespace: 'shop', creationTimestamp: ago(600) },
    spec: { containers: [{ name: 'app', image: 'web:1' }] },
    status: {
      phase: 'Running',
      containerStatuses: [
        {
          name: 'app',
          image: 'web:1',
          imageID: '',
          ready: false,
          restartCount: 5,
          state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 2m40s' } },
          lastState: { terminated: { reason: 'OOMKilled', exitCode: 137, finishedAt: ago(120) } },
        },
      ],
    },
  };
  it('names the waiting reason as kubectl does and keeps the last termination', () => {
    assert.equal(describePodStatus(crashing), 'CrashLoopBackOff');
    const summary = summarizePod(crashing, now);
    assert.equal(summary.healthy, false);
    assert.equal(summary.ready, '0/1');
    assert.equal(summary.restarts, 5);
    assert.deepEqual(summary.problem?.state, {
      state: 'waiting',
      reason: 'CrashLoopBackOff',
      message: 'back-off 2m40s',
    });
  });
  it('shows a failing init container as Init:<reason>', () => {
    const pod: V1Pod = {
      spec: { initContainers: [{ name: 'migrate' }], containers: [{ name: 'app' }] },
      status: {
        phase: 'Pending',
        initContainerStatuses: [
          {
            name: 'migrate',
            image: 'm',
            imageID: '',
            ready: false,
            restartCount: 3,
            state: { waiting: { reason: 'CrashLoopBackOff' } },
          },
        ],
      },
    };
    assert.equal(describePodStatus(pod), 'Init:CrashLoopBackOff');
  });
});

describe('template diffs', () => {
  const spec = (key: string, image: string): V1PodSpec => ({
    containers: [
      {
        name: 'app',
        image,
        env: [
          { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key } } },
          { name: 'MODE', value: 'fast' },
        ],
        resources: { limits: { memory: '256Mi' } },
        livenessProbe: { httpGet: { path: '/healthz', port: 8080 } },
      },
    ],
    volumes: [{ name: 'config', configMap: { name: 'app-config' } }],
  });
  it('name the field, the container and both sides', () => {
    assert.deepEqual(
      diffPodTemplates(summarizePodSpec(spec('password', 'app:1')), summarizePodSpec(spec('password-old', 'app:2'))),
      [
        { container: 'app', field: 'image', from: 'app:1', to: 'app:2' },
        {
          container: 'app',
          field: 'env DB_PASSWORD',
          from: 'secretKeyRef db/password',
          to: 'secretKeyRef db/password-old',
        },
      ],
    );
  });
  it('see probes, resources, volumes and removed env vars', () => {
    const before = summarizePodSpec(spec('password', 'app:1'));
    const changed = spec('password', 'app:1');
    const container = changed.containers[0];
    assert.ok(container);
    container.env = container.env?.filter((variable) => variable.name !== 'MODE');
    container.resources = { limits: { memory: '128Mi' } };
    container.livenessProbe = { httpGet: { path: '/healthz', port: 8081 } };
    changed.volumes = [{ name: 'config', configMap: { name: 'app-config-v2' } }];
    const fields = diffPodTemplates(before, summarizePodSpec(changed)).map((entry) => [
      entry.field,
      entry.from,
      entry.to,
    ]);
    assert.deepEqual(fields, [
      ['env MODE', 'value "fast"', undefined],
      ['resources limits.memory', '256Mi', '128Mi'],
      [
        'probe liveness',
        'http-get :8080/healthz initialDelaySeconds=0 timeoutSeconds=1 periodSeconds=10 failureThreshold=3',
        'http-get :8081/healthz initialDelaySeconds=0 timeoutSeconds=1 periodSeconds=10 failureThreshold=3',
      ],
      ['volume config', 'configMap app-config', 'configMap app-config-v2'],
    ]);
  });
  it('are empty for equal templates', () => {
    assert.deepEqual(diffPodTemplates(summarizePodSpec(spec('a', 'x')), summarizePodSpec(spec('a', 'x'))), []);
  });
  it('say how a swapped container ran and how its replacement runs', () => {
    const withSidecar = (container: NonNullable<V1PodSpec['containers']>[number]): V1PodSpec => ({
      ...spec('a', 'x'),
      containers: [...spec('a', 'x').containers, container],
    });
    const before = withSidecar({
      name: 'gce-proxy',
      image: 'gce-proxy:1.33',
      command: ['/cloud_sql_proxy', '-ip_address_types=PRIVATE'],
    });
    const after = withSidecar({
      name: 'cloud-sql-proxy',
      image: 'cloud-sql-proxy:2.14',
      args: ['--port=5432', 'project:region:db'],
    });
    assert.deepEqual(diffPodTemplates(summarizePodSpec(before), summarizePodSpec(after)), [
      {
        container: 'gce-proxy',
        field: 'container',
        from: 'container image gce-proxy:1.33, runs /cloud_sql_proxy -ip_address_types=PRIVATE',
      },
      {
        container: 'cloud-sql-proxy',
        field: 'container',
        to: 'container image cloud-sql-proxy:2.14, runs --port=5432 project:region:db',
      },
    ]);
  });
});

describe('events', () => {
  const event = (
    name: string,
    message: string,
    count: number,
    lastSeconds: number,
    type = 'Warning',
    reason = 'BackOff',
  ): CoreV1Event => ({
    metadata: { name: `${name}.${lastSeconds}` },
    involvedObject: { kind: 'Pod', name },
    type,
    reason,
    message,
    count,
    firstTimestamp: ago(lastSeconds + 600),
    lastTimestamp: ago(lastSeconds),
  });
  it('fold repeats and sibling pods with counts, newest first', () => {
    const folded = foldEvents(
      [
        event('web-a', 'Back-off restarting failed container app in pod web-a_shop', 10, 60),
        event('web-b', 'Back-off restarting failed container app in pod web-b_shop', 5, 30),
        event('web-a', 'Pulled image', 1, 900, 'Normal', 'Pulled'),
      ],
      now,
    );
    assert.equal(folded.length, 2);
    assert.equal(folded[0]?.count, 15);
    assert.equal(folded[0]?.object.name, 'web-b');
    assert.deepEqual(folded[0]?.otherObjects, ['web-a']);
    assert.match(
      formatEvent(folded[0]!, now, { withObject: true }),
      /^30s ago Warning BackOff pod\/web-b and 1 sibling\(s\) \(x15 over 10m\): Back-off/,
    );
  });
  it("fold a controller's retries that differ only in the generated pod name, and keep different failures apart", () => {
    const refused = (pod: string, seconds: number, resource = 'limits.memory=1Gi'): CoreV1Event => ({
      ...event(
        'report-api-6c9f7d8b4d',
        `Error creating: pods "${pod}" is forbidden: exceeded quota: compute-resources, requested: ${resource}`,
        1,
        seconds,
        'Warning',
        'FailedCreate',
      ),
      involvedObject: { kind: 'ReplicaSet', name: 'report-api-6c9f7d8b4d' },
    });
    const folded = foldEvents(
      [
        refused('report-api-6c9f7d8b4d-dm9nb', 60),
        refused('report-api-6c9f7d8b4d-bphc9', 120),
        refused('report-api-6c9f7d8b4d-r999g', 180),
        refused('report-api-6c9f7d8b4d-7bsjg', 240, 'limits.cpu=2'),
      ],
      now,
    );
    assert.equal(folded.length, 2);
    assert.equal(folded[0]?.count, 3);
    assert.match(folded[0]!.message, /report-api-6c9f7d8b4d-dm9nb/);
  });
});

describe('logs', () => {
  it('keep the first frames of a stack trace', () => {
    const lines = [
      'Error: boom',
      '    at a (a.js:1)',
      '    at b (b.js:2)',
      '    at c (c.js:3)',
      '    at d (d.js:4)',
      '    at e (e.js:5)',
      'done',
    ];
    assert.deepEqual(foldFrames(lines), [
      'Error: boom',
      '    at a (a.js:1)',
      '    at b (b.js:2)',
      '    at c (c.js:3)',
      '    [2 more indented line(s)]',
      'done',
    ]);
  });
  it('show a repeated line once with its count, and the last lines verbatim', () => {
    const lines = [
      'retry 1 failed',
      'tick',
      'retry 2 failed',
      'Error: x',
      '    at a (a.js:1)',
      'Error: x',
      '    at a (a.js:1)',
      'retry 3 failed',
      'exit 1',
    ];
    assert.deepEqual(countRepeats(lines, 2), [
      'retry 1 failed [x2]',
      'tick',
      'Error: x [x2]',
      '    at a (a.js:1)',
      'retry 3 failed',
      'exit 1',
    ]);
  });
  it('shorten timestamps, JSON records and padding', () => {
    assert.equal(compactLogLine('2026-11-29T09:57:11.428Z ERROR [db]   FATAL: bad'), '09:57:11 ERROR [db] FATAL: bad');
    assert.equal(
      compactLogLine('{"level":"error","ts":"2026-11-27T08:10:53Z","msg":"receive failed","queue":"q 1"}'),
      '08:10:53 error receive failed queue="q 1"',
    );
    assert.equal(
      compactLogLine('E1129 10:00:00.123456       1 reflector.go:123] failed'),
      '10:00:00 E reflector.go:123] failed',
    );
    assert.equal(
      compactLogLine('time=2026-11-18T09:36:30.593Z level=ERROR msg="statement failed" migration=0042'),
      '09:36:30 ERROR statement failed migration=0042',
    );
  });
  it('show errors and warnings from before the tail once each, with counts, and count the rest', () => {
    const text = [
      'boot',
      'ERROR cannot reach db: connection refused',
      'WARN slow start',
      'ERROR cannot reach db: connection refused',
      ...Array.from({ length: 30 }, (_, index) => `tick ${'x'.repeat(index)}`),
      'ERROR still failing',
    ].join('\n');
    const digest = digestLog({ text, tailLines: 5 });
    assert.deepEqual(digest.notable, ['ERROR cannot reach db: connection refused [x2]', 'WARN slow start']);
    assert.equal(digest.tail.at(-1), 'ERROR still failing');
    assert.equal(digest.totalLines, 35);
    assert.equal(digest.omittedLines, 27);
  });
  it('grep keeps matching lines only', () => {
    const digest = digestLog({ text: 'a ok\nb refused\nc ok\nd Refused', tailLines: 10, grep: /refused/i });
    assert.deepEqual(digest.tail, ['b refused', 'd Refused']);
  });
  it('keeps the start-up lines that name a listener from before the tail, and none under a grep', () => {
    const text = [
      'starting push-gateway 2.20.0',
      'config loaded',
      'redis: connected',
      'apns: token issued',
      'metrics listening on :9102',
      'listening on :9090',
      'connected to redis at cache:6379',
      ...Array.from({ length: 20 }, (_, index) => `dispatch idle ${index}`),
    ].join('\n');
    assert.deepEqual(digestLog({ text, tailLines: 5 }).listening, ['metrics listening on :9102', 'listening on :9090']);
    assert.deepEqual(digestLog({ text, tailLines: 5, grep: /listening|idle/ }).listening, []);
  });
});

describe('quantities', () => {
  it('parse Kubernetes suffixes', () => {
    assert.deepEqual(['500m', '2', '128Mi', '1G', '15027448Ki', 'bogus'].map(parseQuantity), [
      0.5,
      2,
      134_217_728,
      1e9,
      15_388_106_752,
      Number.NaN,
    ]);
  });
});
