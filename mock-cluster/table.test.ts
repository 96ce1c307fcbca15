import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { humanDuration } from './duration.ts';
import { summarizePod, type PodShape } from './pod-status.ts';
import { parseFieldSelector, parseLabelSelector } from './selectors.ts';
import { startMockCluster, type MockCluster } from './server.ts';

const FIXTURE = new URL('./testdata/conformance', import.meta.url).pathname;
const TABLE =
  'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

interface Table {
  kind: string;
  columnDefinitions: { name: string; priority: number }[];
  rows: { cells: unknown[]; object?: { kind: string; metadata: { name: string; namespace?: string } } }[];
}

let cluster: MockCluster;
before(async () => {
  cluster = await startMockCluster({ scenario: FIXTURE });
});
after(() => cluster.close());

async function table(
  path: string,
): Promise<{ columns: string[]; rows: Map<string, Record<string, unknown>>; raw: Table }> {
  const response = await fetch(`${cluster.url}${path}`, { headers: { accept: TABLE } });
  const raw = (await response.json()) as Table;
  const columns = raw.columnDefinitions.map((column) => column.name);
  const rows = new Map(
    raw.rows.map((row) => [
      String(row.object?.metadata.name ?? row.cells[0]),
      Object.fromEntries(columns.map((column, index) => [column, row.cells[index]])),
    ]),
  );
  return { columns, rows, raw };
}

describe('the Table kubectl get asks for', () => {
  test('pods: NAME READY STATUS RESTARTS AGE, computed as kubectl does', async () => {
    const { columns, rows, raw } = await table('/api/v1/pods');
    assert.equal(raw.kind, 'Table');
    assert.deepEqual(columns.slice(0, 5), ['Name', 'Ready', 'Status', 'Restarts', 'Age']);
    const status = (name: string): unknown => rows.get(name)?.['Status'];
    assert.equal(status('checkout-7d9f8c6b5-x2k4q'), 'CrashLoopBackOff');
    assert.match(String(rows.get('checkout-7d9f8c6b5-x2k4q')?.['Restarts']), /^5 \(2m\d*s? ago\)$/);
    assert.equal(status('orders-migrate'), 'Init:CrashLoopBackOff');
    assert.equal(status('search-indexer'), 'Init:0/1');
    assert.equal(status('db-backup-q7r2t'), 'Completed');
    assert.equal(status('cart-old'), 'Terminating');
    assert.equal(status('report-generator'), 'Pending');
    assert.equal(status('cart-new'), 'ContainerCreating');
    assert.equal(status('payments-canary'), 'ImagePullBackOff');
    assert.deepEqual(
      [
        rows.get('web-6f5d8b7c9-abcde')?.['Ready'],
        status('web-6f5d8b7c9-abcde'),
        rows.get('web-6f5d8b7c9-abcde')?.['Age'],
      ],
      ['1/1', 'Running', '28d'],
    );
    assert.equal(
      raw.rows[0]?.object?.kind,
      'PartialObjectMetadata',
      'rows carry metadata, so kubectl -A can show the namespace',
    );
  });

  test('deployments: READY UP-TO-DATE AVAILABLE, with wide columns at priority 1', async () => {
    const { columns, rows, raw } = await table('/apis/apps/v1/namespaces/shop/deployments');
    assert.deepEqual(columns.slice(0, 5), ['Name', 'Ready', 'Up-to-date', 'Available', 'Age']);
    assert.deepEqual(
      raw.columnDefinitions.filter((column) => column.priority === 1).map((column) => column.name),
      ['Containers', 'Images', 'Selector'],
    );
    assert.deepEqual(rows.get('checkout'), {
      Name: 'checkout',
      Ready: '0/2',
      'Up-to-date': 2,
      Available: 0,
      Age: '9d',
      Containers: 'app',
      Images: 'registry.example.com/shop/checkout:1.2.0',
      Selector: 'app=checkout',
    });
  });

  test('events, nodes and other kinds get their printer columns; unknown kinds get NAME and AGE', async () => {
    const events = await table('/api/v1/namespaces/shop/events?fieldSelector=involvedObject.name%3Dreport-generator');
    assert.deepEqual(
      events.columns.filter((_, index) => events.raw.columnDefinitions[index]?.priority === 0),
      ['Last Seen', 'Type', 'Reason', 'Object', 'Message'],
    );
    assert.equal(events.raw.rows[0]?.cells[3], 'pod/report-generator');
    const nodes = await table('/api/v1/nodes');
    assert.deepEqual([nodes.rows.get('node-a')?.['Status'], nodes.rows.get('node-a')?.['Roles']], ['Ready', 'worker']);
    await fetch(`${cluster.url}/apis/widgets.example.com/v1/namespaces/shop/widgets`, {
      method: 'POST',
      body: JSON.stringify({ apiVersion: 'widgets.example.com/v1', kind: 'Widget', metadata: { name: 'w' } }),
      headers: { 'content-type': 'application/json' },
    });
    assert.deepEqual((await table('/apis/widgets.example.com/v1/namespaces/shop/widgets')).columns, ['Name', 'Age']);
  });

  test('a single object is a one-row Table', async () => {
    const { rows } = await table('/api/v1/namespaces/shop/pods/payments-canary');
    assert.deepEqual([...rows.keys()], ['payments-canary']);
  });

  test('Table lists page with limit and continue', async () => {
    const response = await fetch(`${cluster.url}/api/v1/namespaces/shop/pods?limit=3`, { headers: { accept: TABLE } });
    const first = (await response.json()) as Table & { metadata: { continue?: string } };
    assert.equal(first.rows.length, 3);
    assert.ok(first.metadata.continue);
  });
});

describe('printer details', () => {
  test('humanDuration matches apimachinery', () => {
    const seconds = 1000;
    assert.deepEqual(
      [
        59,
        119,
        120,
        125,
        600,
        10_799,
        10_800,
        8 * 3600 - 60,
        47 * 3600,
        49 * 3600,
        8 * 86_400,
        800 * 86_400,
        3000 * 86_400,
      ].map((value) => humanDuration(value * seconds)),
      ['59s', '119s', '2m', '2m5s', '10m', '179m', '3h', '7h59m', '47h', '2d1h', '8d', '2y70d', '8y'],
    );
  });

  test('restartable init containers count towards READY; a completed pod with a running sidecar is Running', () => {
    const pod: PodShape = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', creationTimestamp: '2026-11-29T09:00:00Z' },
      spec: { initContainers: [{ name: 'proxy', restartPolicy: 'Always' }], containers: [{ name: 'app' }] },
      status: {
        phase: 'Running',
        conditions: [
          { type: 'Initialized', status: 'True' },
          { type: 'Ready', status: 'True' },
        ],
        initContainerStatuses: [{ name: 'proxy', started: true, ready: true, state: { running: {} } }],
        containerStatuses: [{ name: 'app', ready: true, state: { running: {} } }],
      },
    };
    assert.deepEqual(
      [
        summarizePod(pod, Date.parse('2026-11-29T10:00:00Z')).ready,
        summarizePod(pod, Date.parse('2026-11-29T10:00:00Z')).status,
      ],
      ['2/2', 'Running'],
    );
  });

  test('label and field selectors', () => {
    const match = parseLabelSelector('app in (a, b),env!=prod,!legacy,tier');
    assert.equal(match({ app: 'a', env: 'dev', tier: 'web' }), true);
    assert.equal(match({ app: 'c', tier: 'web' }), false);
    assert.equal(match({ app: 'a', tier: 'web', legacy: 'yes' }), false);
    assert.equal(parseLabelSelector('replicas>2')({ replicas: '3' }), true);
    assert.throws(() => parseLabelSelector('app in (a'), /unable to parse/);
    const event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e', namespace: 'shop' },
      involvedObject: { kind: 'Pod', name: 'p' },
      type: 'Warning',
    };
    assert.equal(parseFieldSelector('involvedObject.name=p,type!=Normal', 'Event')(event), true);
    assert.throws(() => parseFieldSelector('spec.foo=bar', 'Pod'), /field label not supported: spec.foo/);
  });
});
