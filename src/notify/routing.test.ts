import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RunView } from '../runs/run-view.ts';
import { routeNotice, routeSchema, subjectOf, type Route } from './routing.ts';

const routes: Route[] = [
  routeSchema.parse({
    name: 'prod critical',
    match: { namespaces: ['prod', 'payments-*'], severities: ['critical'] },
    to: ['oncall'],
  }),
  routeSchema.parse({ match: { events: ['approval'] }, to: ['approvers', 'oncall'] }),
  routeSchema.parse({ match: { categories: ['failed'] }, to: ['kubewhy-admins'] }),
  routeSchema.parse({ to: ['archive'] }),
];

function alertRun(
  overrides: {
    namespace?: string;
    severity?: string;
    attachedSeverity?: string;
    status?: RunView['status'];
    category?: string;
  } = {},
): RunView {
  return {
    id: 'run-1',
    status: overrides.status ?? 'completed',
    source: 'alertmanager',
    trigger: {
      kind: 'alert',
      alert: {
        labels: { alertname: 'KubePodCrashLooping', ...(overrides.severity ? { severity: overrides.severity } : {}) },
        annotations: {},
      },
    },
    rung: 'OBSERVE',
    ...(overrides.namespace ? { namespace: overrides.namespace } : {}),
    ...(overrides.attachedSeverity
      ? {
          alerts: [
            {
              fingerprint: 'f2',
              status: 'firing',
              startsAt: '2026-12-02T07:00:00Z',
              labels: { severity: overrides.attachedSeverity },
              receivedAt: '2026-12-02T07:00:00Z',
              repeats: 0,
            },
          ],
        }
      : {}),
    createdAt: '2026-12-02T07:00:00Z',
    attempts: 1,
    ...(overrides.category
      ? {
          diagnosis: {
            category: overrides.category as never,
            summary: 's',
            evidence: ['e'],
            confidence: 'high',
            actions: [],
          },
        }
      : {}),
    actions: [],
  };
}

test('a critical alert in a prod namespace goes to on-call and the archive', () => {
  assert.deepEqual(
    routeNotice(
      routes,
      subjectOf('finished', alertRun({ namespace: 'prod', severity: 'critical', category: 'oom-killed' })),
    ),
    ['oncall', 'archive'],
  );
  assert.deepEqual(
    routeNotice(
      routes,
      subjectOf('finished', alertRun({ namespace: 'payments-eu', severity: 'critical', category: 'oom-killed' })),
    ),
    ['oncall', 'archive'],
  );
});

test('a namespace prefix matches only what starts with it; a warning is not critical', () => {
  assert.deepEqual(
    routeNotice(
      routes,
      subjectOf('finished', alertRun({ namespace: 'production', severity: 'critical', category: 'oom-killed' })),
    ),
    ['archive'],
  );
  assert.deepEqual(
    routeNotice(
      routes,
      subjectOf('finished', alertRun({ namespace: 'prod', severity: 'warning', category: 'oom-killed' })),
    ),
    ['archive'],
  );
});

test('the most urgent severity among the run’s alerts is the one routed on', () => {
  const subject = subjectOf(
    'finished',
    alertRun({ namespace: 'prod', severity: 'warning', attachedSeverity: 'critical' }),
  );
  assert.equal(subject.severity, 'critical');
});

test('an incident a person typed has no severity: a severity filter never matches it', () => {
  const run: RunView = {
    ...alertRun({ namespace: 'prod' }),
    source: 'api',
    trigger: { kind: 'incident', text: 'checkout is slow', namespace: 'prod' },
  };
  assert.equal(subjectOf('finished', run).severity, undefined);
  assert.deepEqual(routeNotice(routes, subjectOf('finished', run)), ['archive']);
});

test('a destination named by two routes gets the notice once', () => {
  assert.deepEqual(
    routeNotice(
      routes,
      subjectOf(
        'approval',
        alertRun({ namespace: 'prod', severity: 'critical', status: 'awaiting_approval', category: 'bad-credentials' }),
      ),
    ),
    ['oncall', 'approvers', 'archive'],
  );
});

test('a run that ended without a diagnosis is routed as category failed', () => {
  const subject = subjectOf('finished', alertRun({ namespace: 'dev', status: 'failed' }));
  assert.equal(subject.category, 'failed');
  assert.deepEqual(routeNotice(routes, subject), ['kubewhy-admins', 'archive']);
});

test('the schema refuses an unknown event, category or a namespace that is no name', () => {
  assert.equal(routeSchema.safeParse({ match: { events: ['started'] }, to: ['a'] }).success, false);
  assert.equal(routeSchema.safeParse({ match: { categories: ['slow'] }, to: ['a'] }).success, false);
  assert.equal(routeSchema.safeParse({ match: { namespaces: ['Prod!'] }, to: ['a'] }).success, false);
  assert.equal(routeSchema.safeParse({ match: {}, to: [] }).success, false);
});
