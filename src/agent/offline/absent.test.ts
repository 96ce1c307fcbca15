import assert from 'node:assert/strict';
import { test } from 'node:test';
import { diagnoseMissing, missingFromWords } from './absent.ts';
import type { Candidate } from './mentions.ts';

const CANDIDATES: Candidate[] = [
  {
    focus: { kind: 'workload', workloadKind: 'Deployment', namespace: 'finance', name: 'invoice-worker' },
    name: 'invoice-worker',
    namespace: 'finance',
    unhealthy: false,
  },
  {
    focus: { kind: 'workload', workloadKind: 'CronJob', namespace: 'finance', name: 'month-end-accruals' },
    name: 'month-end-accruals',
    namespace: 'finance',
    unhealthy: true,
  },
  {
    focus: { kind: 'workload', workloadKind: 'Deployment', namespace: 'shop', name: 'cart' },
    name: 'cart',
    namespace: 'shop',
    unhealthy: true,
  },
  { focus: { kind: 'node', name: 'node-a' }, name: 'node-a', unhealthy: false },
  { focus: { kind: 'node', name: 'node-b' }, name: 'node-b', unhealthy: false },
];
const NAMESPACES = ['finance', 'shop'];

test('a node that does not exist: the answer names it and the nodes there are, and blames nothing else', () => {
  const diagnosis = diagnoseMissing(
    missingFromWords({
      unknown: { name: 'worker-3', kind: 'Node' },
      candidates: CANDIDATES,
      namespaces: NAMESPACES,
      namespace: undefined,
    }),
  );
  assert.equal(diagnosis.category, 'no-issue');
  assert.equal(diagnosis.confidence, 'low');
  assert.deepEqual(diagnosis.culprit, { kind: 'Node', name: 'worker-3' });
  assert.deepEqual(diagnosis.notFound, [{ kind: 'Node', name: 'worker-3' }]);
  assert.match(diagnosis.summary, /^node "worker-3" was not found; the cluster has nodes: node-a, node-b\./);
});

test('a workload named without a kind: the workloads of its namespace are listed, those sharing a word first', () => {
  const diagnosis = diagnoseMissing(
    missingFromWords({
      unknown: { name: 'billing-worker' },
      candidates: CANDIDATES,
      namespaces: NAMESPACES,
      namespace: 'finance',
    }),
  );
  assert.deepEqual(diagnosis.culprit, { kind: 'Deployment', namespace: 'finance', name: 'billing-worker' });
  assert.deepEqual(diagnosis.notFound, [{ kind: 'Workload', namespace: 'finance', name: 'billing-worker' }]);
  assert.match(
    diagnosis.summary,
    /^"billing-worker" in namespace finance was not found; the cluster has workloads in finance: invoice-worker, month-end-accruals\./,
  );
  assert.doesNotMatch(diagnosis.summary, /cart/);
});

test('a name given in no namespace is looked for in every one, and names no culprit it cannot name in full', () => {
  const diagnosis = diagnoseMissing(
    missingFromWords({
      unknown: { name: 'payments', kind: 'Deployment' },
      candidates: CANDIDATES,
      namespaces: NAMESPACES,
      namespace: undefined,
    }),
  );
  assert.equal(diagnosis.culprit, undefined);
  assert.deepEqual(diagnosis.notFound, [{ kind: 'Deployment', name: 'payments' }]);
  assert.match(
    diagnosis.summary,
    /^Deployment "payments" was not found in any namespace; the cluster has Deployments: finance\/invoice-worker, shop\/cart\./,
  );
});

test("a namespace the tools say does not exist: the tool's own listing of the namespaces is kept", () => {
  const diagnosis = diagnoseMissing({
    kind: 'Namespace',
    name: 'nope',
    toolMessage:
      'not-found: namespace "nope" does not exist. The cluster has namespaces finance, shop. Check the namespace name.',
  });
  assert.deepEqual(diagnosis.culprit, { kind: 'Namespace', name: 'nope' });
  assert.match(diagnosis.summary, /^namespace "nope" was not found; the cluster has namespaces finance, shop\./);
  assert.ok(diagnosis.evidence.some((line) => line.startsWith('not-found: namespace "nope" does not exist')));
});

test('an object looked for in a namespace that does not exist: both are named as not found', () => {
  const diagnosis = diagnoseMissing({
    kind: 'Deployment',
    namespace: 'nope',
    name: 'cart',
    toolMessage:
      'not-found: namespace "nope" does not exist. The cluster has namespaces finance, shop. Check the namespace name.',
  });
  assert.deepEqual(diagnosis.culprit, { kind: 'Deployment', namespace: 'nope', name: 'cart' });
  assert.deepEqual(diagnosis.notFound, [
    { kind: 'Deployment', namespace: 'nope', name: 'cart' },
    { kind: 'Namespace', name: 'nope' },
  ]);
  assert.match(
    diagnosis.summary,
    /^Deployment "cart" in namespace nope was not found \(namespace "nope" does not exist\); the cluster has namespaces finance, shop\./,
  );
});

test("a node list with dotted names is quoted whole from the tool's message", () => {
  const diagnosis = diagnoseMissing({
    kind: 'Node',
    name: 'worker-3',
    toolMessage:
      'not-found: node "worker-3" does not exist; the cluster has 2 node(s): ip-10-0-1-2.ec2.internal, ip-10-0-1-3.ec2.internal. Call list_nodes without name.',
  });
  assert.match(
    diagnosis.summary,
    /^node "worker-3" was not found; the cluster has 2 node\(s\): ip-10-0-1-2\.ec2\.internal, ip-10-0-1-3\.ec2\.internal\. Nothing/,
  );
});
