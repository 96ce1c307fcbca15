import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { listScenarioDirs } from './loader.ts';
import { collectClusterMetrics } from './metrics.ts';
import { formatExposition, type MetricSample } from './metrics-format.ts';
import { parseQuantity } from './metrics-quotas.ts';
import { startMockCluster, type MockCluster } from './server.ts';
import type { KubeObject } from './types.ts';

const FIXTURE = new URL('./testdata/conformance', import.meta.url).pathname;
const SCENARIOS = new URL('./scenarios', import.meta.url).pathname;
const NEW_ALERTS_FIXTURE = new URL('../test/fixtures/e2e-new-alerts', import.meta.url).pathname;

function object(
  apiVersion: string,
  kind: string,
  metadata: KubeObject['metadata'],
  rest: Record<string, unknown> = {},
): KubeObject {
  return { apiVersion, kind, metadata, ...rest };
}

/** The samples kube-state-metrics would export for these objects. */
function samplesOf(...objects: KubeObject[]): MetricSample[] {
  return collectClusterMetrics((apiVersion, kind) =>
    objects.filter((candidate) => candidate.apiVersion === apiVersion && candidate.kind === kind),
  );
}

/** The value of the one sample of `name` whose labels include `labels`; undefined when there is none. */
function valueOf(samples: MetricSample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const matching = samples.filter(
    (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
  assert.ok(matching.length <= 1, `${name} ${JSON.stringify(labels)} matches ${matching.length} samples`);
  return matching[0]?.value;
}

const crashLoopingPod = object(
  'v1',
  'Pod',
  {
    name: 'api-7d9f-x2k4q',
    namespace: 'shop',
    uid: 'u-1',
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'api-7d9f', uid: 'u-rs', controller: true }],
  },
  {
    spec: { nodeName: 'node-a', containers: [{ name: 'app', image: 'shop/api:4' }] },
    status: {
      phase: 'Running',
      conditions: [
        { type: 'Ready', status: 'False' },
        { type: 'PodScheduled', status: 'True' },
      ],
      containerStatuses: [
        {
          name: 'app',
          ready: false,
          restartCount: 8,
          image: 'shop/api:4',
          state: { waiting: { reason: 'CrashLoopBackOff' } },
          lastState: { terminated: { reason: 'Error', exitCode: 1 } },
        },
      ],
    },
  },
);

describe('pod metrics', () => {
  test('a crash-looping container: waiting reason, last termination, restarts, phase and readiness', () => {
    const samples = samplesOf(crashLoopingPod);
    const container = { namespace: 'shop', pod: 'api-7d9f-x2k4q', container: 'app' };
    assert.equal(
      valueOf(samples, 'kube_pod_container_status_waiting_reason', { ...container, reason: 'CrashLoopBackOff' }),
      1,
    );
    assert.equal(valueOf(samples, 'kube_pod_container_status_waiting', container), 1);
    assert.equal(
      valueOf(samples, 'kube_pod_container_status_last_terminated_reason', { ...container, reason: 'Error' }),
      1,
    );
    assert.equal(valueOf(samples, 'kube_pod_container_status_last_terminated_exitcode', container), 1);
    assert.equal(valueOf(samples, 'kube_pod_container_status_restarts_total', container), 8);
    assert.equal(valueOf(samples, 'kube_pod_container_status_ready', container), 0);
    assert.deepEqual(
      samples
        .filter((sample) => sample.name === 'kube_pod_status_phase')
        .map((sample) => `${sample.labels['phase']}=${sample.value}`),
      ['Pending=0', 'Succeeded=0', 'Failed=0', 'Unknown=0', 'Running=1'],
    );
    assert.equal(valueOf(samples, 'kube_pod_status_ready', { pod: 'api-7d9f-x2k4q', condition: 'false' }), 1);
    assert.equal(valueOf(samples, 'kube_pod_status_ready', { pod: 'api-7d9f-x2k4q', condition: 'true' }), 0);
    assert.equal(
      valueOf(samples, 'kube_pod_info', {
        pod: 'api-7d9f-x2k4q',
        node: 'node-a',
        created_by_kind: 'ReplicaSet',
        created_by_name: 'api-7d9f',
      }),
      1,
    );
    assert.equal(
      valueOf(samples, 'kube_pod_owner', {
        pod: 'api-7d9f-x2k4q',
        owner_kind: 'ReplicaSet',
        owner_name: 'api-7d9f',
        owner_is_controller: 'true',
      }),
      1,
    );
  });

  test('a bare pod that failed and an unschedulable one: <none> owner, Failed phase, reason, init containers', () => {
    const failed = object(
      'v1',
      'Pod',
      { name: 'reindex-0412', namespace: 'data' },
      {
        status: {
          phase: 'Failed',
          reason: 'Evicted',
          containerStatuses: [{ name: 'job', state: { terminated: { reason: 'OOMKilled', exitCode: 137 } } }],
        },
      },
    );
    const pending = object(
      'v1',
      'Pod',
      { name: 'etl-1', namespace: 'data' },
      {
        status: {
          phase: 'Pending',
          conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }],
          initContainerStatuses: [
            { name: 'wait', restartCount: 3, state: { waiting: { reason: 'CrashLoopBackOff' } } },
          ],
        },
      },
    );
    const samples = samplesOf(failed, pending);
    assert.equal(
      valueOf(samples, 'kube_pod_owner', { pod: 'reindex-0412', owner_kind: '<none>', owner_name: '<none>' }),
      1,
    );
    assert.equal(valueOf(samples, 'kube_pod_status_phase', { pod: 'reindex-0412', phase: 'Failed' }), 1);
    assert.equal(valueOf(samples, 'kube_pod_status_reason', { pod: 'reindex-0412', reason: 'Evicted' }), 1);
    assert.equal(
      valueOf(samples, 'kube_pod_container_status_terminated_reason', { pod: 'reindex-0412', reason: 'OOMKilled' }),
      1,
    );
    assert.equal(valueOf(samples, 'kube_pod_status_unschedulable', { pod: 'etl-1' }), 1);
    assert.equal(valueOf(samples, 'kube_pod_status_scheduled', { pod: 'etl-1', condition: 'false' }), 1);
    assert.equal(
      valueOf(samples, 'kube_pod_init_container_status_waiting_reason', {
        pod: 'etl-1',
        container: 'wait',
        reason: 'CrashLoopBackOff',
      }),
      1,
    );
    assert.equal(
      valueOf(samples, 'kube_pod_init_container_status_restarts_total', { pod: 'etl-1', container: 'wait' }),
      3,
    );
    assert.equal(
      valueOf(samples, 'kube_pod_container_status_waiting_reason', { pod: 'etl-1' }),
      undefined,
      'no container status, no container series',
    );
  });
});

describe('workload metrics', () => {
  test('a deployment: spec replicas default to 1, unset status counts are 0, each condition has three status series', () => {
    const samples = samplesOf(
      object(
        'apps/v1',
        'Deployment',
        { name: 'cart', namespace: 'shop', generation: 4 },
        {
          spec: {},
          status: {
            replicas: 1,
            updatedReplicas: 1,
            conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }],
          },
        },
      ),
    );
    const labels = { namespace: 'shop', deployment: 'cart' };
    assert.equal(valueOf(samples, 'kube_deployment_spec_replicas', labels), 1);
    assert.equal(valueOf(samples, 'kube_deployment_status_replicas_available', labels), 0);
    assert.equal(valueOf(samples, 'kube_deployment_status_replicas_updated', labels), 1);
    assert.equal(valueOf(samples, 'kube_deployment_metadata_generation', labels), 4);
    assert.deepEqual(
      samples
        .filter((sample) => sample.name === 'kube_deployment_status_condition')
        .map((sample) => `${sample.labels['condition']}/${sample.labels['status']}=${sample.value}`),
      ['Progressing/true=0', 'Progressing/false=1', 'Progressing/unknown=0'],
    );
  });

  test('stateful sets, daemon sets, jobs and cron jobs carry the labels kube-state-metrics uses', () => {
    const samples = samplesOf(
      object(
        'apps/v1',
        'StatefulSet',
        { name: 'postgres', namespace: 'db' },
        {
          spec: { replicas: 3 },
          status: { replicas: 3, readyReplicas: 2, currentRevision: 'postgres-1', updateRevision: 'postgres-1' },
        },
      ),
      object(
        'apps/v1',
        'DaemonSet',
        { name: 'fluent-bit', namespace: 'logging' },
        { status: { desiredNumberScheduled: 3, numberReady: 2 } },
      ),
      object(
        'batch/v1',
        'Job',
        { name: 'report-29410560', namespace: 'finance' },
        { status: { failed: 2, conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded' }] } },
      ),
      object('batch/v1', 'CronJob', { name: 'report', namespace: 'finance' }, { spec: { schedule: '0 2 * * *' } }),
    );
    assert.equal(valueOf(samples, 'kube_statefulset_replicas', { namespace: 'db', statefulset: 'postgres' }), 3);
    assert.equal(valueOf(samples, 'kube_statefulset_status_replicas_ready', { statefulset: 'postgres' }), 2);
    assert.equal(
      valueOf(samples, 'kube_statefulset_status_update_revision', { statefulset: 'postgres', revision: 'postgres-1' }),
      1,
    );
    assert.equal(
      valueOf(samples, 'kube_daemonset_status_number_ready', { namespace: 'logging', daemonset: 'fluent-bit' }),
      2,
    );
    assert.equal(valueOf(samples, 'kube_daemonset_status_number_available', { daemonset: 'fluent-bit' }), 0);
    assert.equal(
      valueOf(samples, 'kube_job_failed', { namespace: 'finance', job_name: 'report-29410560', condition: 'true' }),
      1,
    );
    assert.equal(
      valueOf(samples, 'kube_job_status_failed', { job_name: 'report-29410560', reason: 'BackoffLimitExceeded' }),
      2,
    );
    assert.equal(valueOf(samples, 'kube_job_owner', { job_name: 'report-29410560', owner_kind: '<none>' }), 1);
    assert.equal(
      valueOf(samples, 'kube_cronjob_info', { cronjob: 'report', schedule: '0 2 * * *', concurrency_policy: 'Allow' }),
      1,
    );
  });
});

describe('autoscaler metrics', () => {
  test('an autoscaler: bounds (min defaults to 1), replicas, conditions, and the targets kube-state-metrics can convert', () => {
    const samples = samplesOf(
      object(
        'autoscaling/v2',
        'HorizontalPodAutoscaler',
        { name: 'search', namespace: 'api', generation: 2 },
        {
          spec: {
            scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'search' },
            maxReplicas: 10,
            metrics: [
              { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } },
              { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '1Gi' } } },
              {
                type: 'Pods',
                pods: { metric: { name: 'queue_depth' }, target: { type: 'AverageValue', averageValue: '500m' } },
              },
              {
                type: 'External',
                external: { metric: { name: 'sqs_messages' }, target: { type: 'Value', value: '30' } },
              },
            ],
          },
          status: {
            currentReplicas: 4,
            desiredReplicas: 6,
            conditions: [{ type: 'AbleToScale', status: 'False', reason: 'FailedUpdateScale' }],
          },
        },
      ),
    );
    const labels = { namespace: 'api', horizontalpodautoscaler: 'search' };
    assert.equal(valueOf(samples, 'kube_horizontalpodautoscaler_spec_min_replicas', labels), 1);
    assert.equal(valueOf(samples, 'kube_horizontalpodautoscaler_spec_max_replicas', labels), 10);
    assert.equal(valueOf(samples, 'kube_horizontalpodautoscaler_status_current_replicas', labels), 4);
    assert.equal(valueOf(samples, 'kube_horizontalpodautoscaler_status_desired_replicas', labels), 6);
    assert.equal(valueOf(samples, 'kube_horizontalpodautoscaler_metadata_generation', labels), 2);
    assert.equal(
      valueOf(samples, 'kube_horizontalpodautoscaler_info', {
        ...labels,
        scaletargetref_api_version: 'apps/v1',
        scaletargetref_kind: 'Deployment',
        scaletargetref_name: 'search',
      }),
      1,
    );
    assert.equal(
      valueOf(samples, 'kube_horizontalpodautoscaler_status_condition', {
        ...labels,
        condition: 'AbleToScale',
        status: 'false',
      }),
      1,
    );
    assert.equal(
      valueOf(samples, 'kube_horizontalpodautoscaler_status_condition', {
        ...labels,
        condition: 'AbleToScale',
        status: 'true',
      }),
      0,
    );
    assert.deepEqual(
      samples
        .filter((sample) => sample.name === 'kube_horizontalpodautoscaler_spec_target_metric')
        .map((sample) => `${sample.labels['metric_name']}/${sample.labels['metric_target_type']}=${sample.value}`),
      ['cpu/utilization=60', `memory/average=${2 ** 30}`, 'sqs_messages/value=30'],
      'a fractional quantity (500m) has no series, as AsInt64 refuses it',
    );
  });

  test('a claim exports one access mode series per mode it asks for', () => {
    const samples = samplesOf(
      object(
        'v1',
        'PersistentVolumeClaim',
        { name: 'static-assets', namespace: 'web' },
        { spec: { accessModes: ['ReadOnlyMany', 'ReadWriteOnce'] }, status: { phase: 'Bound' } },
      ),
    );
    assert.equal(
      valueOf(samples, 'kube_persistentvolumeclaim_access_mode', {
        persistentvolumeclaim: 'static-assets',
        access_mode: 'ReadOnlyMany',
      }),
      1,
    );
    assert.equal(
      valueOf(samples, 'kube_persistentvolumeclaim_access_mode', {
        persistentvolumeclaim: 'static-assets',
        access_mode: 'ReadWriteOnce',
      }),
      1,
    );
  });

  test('the e2e-new-alerts fixture serves an HPA at its maximum, a misscheduled and an unscheduled DaemonSet pod, and a partial StatefulSet update', async () => {
    const cluster = await startMockCluster({ scenario: NEW_ALERTS_FIXTURE });
    try {
      const text = await (await fetch(`${cluster.url}/metrics`)).text();
      for (const line of [
        'kube_horizontalpodautoscaler_status_current_replicas{namespace="web",horizontalpodautoscaler="frontend"} 4',
        'kube_horizontalpodautoscaler_spec_max_replicas{namespace="web",horizontalpodautoscaler="frontend"} 4',
        'kube_horizontalpodautoscaler_status_desired_replicas{namespace="web",horizontalpodautoscaler="api"} 6',
        'kube_daemonset_status_number_misscheduled{namespace="monitoring",daemonset="node-agent"} 1',
        'kube_daemonset_status_desired_number_scheduled{namespace="logging",daemonset="log-shipper"} 3',
        'kube_daemonset_status_current_number_scheduled{namespace="logging",daemonset="log-shipper"} 2',
        'kube_statefulset_status_update_revision{namespace="web",statefulset="session-store",revision="session-store-7f9c4d2a1"} 1',
      ]) {
        assert.ok(text.split('\n').includes(line), `missing: ${line}`);
      }
      if (spawnSync('promtool', ['--version']).status === 0) {
        const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
        assert.equal(check.status, 0, `${check.stdout}${check.stderr}`);
      }
    } finally {
      await cluster.close();
    }
  });
});

describe('node, storage and service metrics', () => {
  test('node conditions, cordon and taints; claim phase; ready and not-ready endpoint addresses', () => {
    const samples = samplesOf(
      object(
        'v1',
        'Node',
        { name: 'worker-2' },
        {
          spec: { taints: [{ key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' }] },
          status: {
            conditions: [
              { type: 'Ready', status: 'Unknown' },
              { type: 'MemoryPressure', status: 'True' },
            ],
          },
        },
      ),
      object(
        'v1',
        'PersistentVolumeClaim',
        { name: 'data-postgres-0', namespace: 'db' },
        { spec: { storageClassName: 'fast-ssd' }, status: { phase: 'Pending' } },
      ),
      object(
        'v1',
        'Service',
        { name: 'gateway', namespace: 'payments' },
        { spec: { type: 'ClusterIP', clusterIP: '10.0.0.7' } },
      ),
      object(
        'v1',
        'Endpoints',
        { name: 'gateway', namespace: 'payments' },
        { subsets: [{ addresses: [{ ip: '10.1.0.4' }], notReadyAddresses: [{ ip: '10.1.0.5' }] }] },
      ),
      object('v1', 'Endpoints', { name: 'empty', namespace: 'payments' }),
    );
    assert.equal(
      valueOf(samples, 'kube_node_status_condition', { node: 'worker-2', condition: 'Ready', status: 'unknown' }),
      1,
    );
    assert.equal(
      valueOf(samples, 'kube_node_status_condition', { node: 'worker-2', condition: 'Ready', status: 'true' }),
      0,
    );
    assert.equal(
      valueOf(samples, 'kube_node_status_condition', { node: 'worker-2', condition: 'MemoryPressure', status: 'true' }),
      1,
    );
    assert.equal(valueOf(samples, 'kube_node_spec_unschedulable', { node: 'worker-2' }), 0);
    assert.equal(
      valueOf(samples, 'kube_node_spec_taint', {
        node: 'worker-2',
        key: 'node.kubernetes.io/unreachable',
        value: '',
        effect: 'NoSchedule',
      }),
      1,
    );
    assert.equal(
      valueOf(samples, 'kube_persistentvolumeclaim_status_phase', {
        namespace: 'db',
        persistentvolumeclaim: 'data-postgres-0',
        phase: 'Pending',
      }),
      1,
    );
    assert.equal(
      valueOf(samples, 'kube_persistentvolumeclaim_info', {
        persistentvolumeclaim: 'data-postgres-0',
        storageclass: 'fast-ssd',
      }),
      1,
    );
    assert.equal(valueOf(samples, 'kube_service_spec_type', { service: 'gateway', type: 'ClusterIP' }), 1);
    assert.equal(valueOf(samples, 'kube_endpoint_address', { endpoint: 'gateway', ip: '10.1.0.4', ready: 'true' }), 1);
    assert.equal(valueOf(samples, 'kube_endpoint_address', { endpoint: 'gateway', ip: '10.1.0.5', ready: 'false' }), 1);
    assert.equal(valueOf(samples, 'kube_endpoint_info', { endpoint: 'empty' }), 1);
    assert.equal(valueOf(samples, 'kube_endpoint_address', { endpoint: 'empty' }), undefined);
  });
});

describe('the exposition format', () => {
  test('one HELP and TYPE per family, families contiguous, label values escaped', () => {
    const text = formatExposition(
      { a_total: { help: 'A counter.', type: 'counter' }, b: { help: 'A gauge.', type: 'gauge' } },
      [
        { name: 'b', labels: { message: 'say "hi"\\n\nbye' }, value: 1 },
        { name: 'a_total', labels: {}, value: 3 },
        { name: 'b', labels: { message: 'plain' }, value: 0 },
      ],
    );
    assert.equal(
      text,
      [
        '# HELP a_total A counter.',
        '# TYPE a_total counter',
        'a_total 3',
        '# HELP b A gauge.',
        '# TYPE b gauge',
        'b{message="say \\"hi\\"\\\\n\\nbye"} 1',
        'b{message="plain"} 0',
        '',
      ].join('\n'),
    );
  });

  const promtool = spawnSync('promtool', ['--version']).status === 0;
  test(
    'promtool accepts the metrics of every public scenario',
    { skip: promtool ? false : 'promtool is not installed (apt-get install prometheus)' },
    async () => {
      for (const directory of await listScenarioDirs(SCENARIOS)) {
        const cluster = await startMockCluster({ scenario: directory });
        try {
          const text = await (await fetch(`${cluster.url}/metrics`)).text();
          const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
          assert.equal(check.status, 0, `${directory}: ${check.stdout}${check.stderr}`);
        } finally {
          await cluster.close();
        }
      }
    },
  );
});

describe('GET /metrics on the mock cluster', () => {
  let cluster: MockCluster;
  before(async () => {
    cluster = await startMockCluster({ scenario: FIXTURE });
  });
  after(() => cluster.close());

  test('answers in the text format, outside fault injection and the API request log', async () => {
    cluster.faults.set([{ fault: 'error', status: 500 }]);
    try {
      const response = await fetch(`${cluster.url}/metrics`);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
      assert.match(
        await response.text(),
        /^kube_deployment_spec_replicas\{namespace="shop",deployment="checkout"\} \d+$/m,
      );
      assert.equal((await fetch(`${cluster.url}/api/v1/pods`)).status, 500, 'the API itself is faulted');
      assert.ok(!cluster.requestLog.some((entry) => entry.path === '/metrics'));
    } finally {
      cluster.faults.clear();
    }
  });

  test('reflects writes at the next scrape', async () => {
    const scaled = await fetch(`${cluster.url}/apis/apps/v1/namespaces/shop/deployments/checkout/scale`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ spec: { replicas: 7 } }),
    });
    assert.equal(scaled.status, 200);
    assert.match(
      await (await fetch(`${cluster.url}/metrics`)).text(),
      /^kube_deployment_spec_replicas\{namespace="shop",deployment="checkout"\} 7$/m,
    );
  });

  test('refuses writes', async () => {
    assert.equal((await fetch(`${cluster.url}/metrics`, { method: 'POST' })).status, 405);
  });
});

test('resource quotas export their hard limits and use as numbers', () => {
  assert.equal(parseQuantity('4Gi'), 4 * 2 ** 30);
  assert.equal(parseQuantity('500m'), 0.5);
  assert.equal(parseQuantity('20'), 20);
  assert.equal(parseQuantity('not a quantity'), undefined);
});
