/**
 * The chart runs several replicas only when they share PostgreSQL: SQLite is one file that
 * one pod alone may write, so the schema and the templates refuse replicaCount > 1 there.
 * On PostgreSQL the URL reaches the pod only through a Secret, each replica names itself
 * after its pod, upgrades roll, no claim is made and a disruption budget keeps one serving.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  chartDirectory,
  lintChart,
  renderChart,
  runHelm,
  templateChart,
  writeValuesFile,
  type ChartValues,
} from './fixtures/helm-support/helm.ts';
import { findAllSchemaProblems } from './fixtures/helm-support/kubernetes-schema.ts';
import {
  filterByKind,
  findDeployment,
  findKubewhyContainer,
  type DeploymentObject,
} from './fixtures/helm-support/objects.ts';

const threeReplicasOnPostgresql: ChartValues = {
  replicaCount: 3,
  database: { type: 'postgresql', postgresql: { existingSecret: 'kubewhy-db' } },
};

function findEnvironmentVariable(deployment: DeploymentObject, name: string): unknown {
  return findKubewhyContainer(deployment).env?.find((variable) => variable.name === name);
}

function findDataVolume(deployment: DeploymentObject): unknown {
  return deployment.spec.template.spec.volumes?.find((volume) => volume.name === 'data');
}

/** `helm template` without the values schema, so that the templates' own checks speak. */
async function templateWithoutSchema(values: ChartValues): Promise<{ code: number; stderr: string }> {
  const valuesFile = await writeValuesFile(values);
  return runHelm([
    'template',
    'kubewhy',
    chartDirectory,
    '--namespace',
    'kubewhy',
    '--skip-schema-validation',
    '-f',
    valuesFile,
  ]);
}

describe('one replica on SQLite, by default', () => {
  test('renders one replica with the SQLite claim, a Recreate strategy and no database URL', async () => {
    const objects = await renderChart();
    const deployment = findDeployment(objects);
    assert.equal(deployment.spec.replicas, 1);
    assert.equal(deployment.spec.strategy?.type, 'Recreate');
    assert.deepEqual(findDataVolume(deployment), {
      name: 'data',
      persistentVolumeClaim: { claimName: 'kubewhy-data' },
    });
    assert.equal(filterByKind(objects, 'PersistentVolumeClaim').length, 1);
    assert.equal(findEnvironmentVariable(deployment, 'KUBEWHY_DATABASE_URL'), undefined);
    assert.equal(findEnvironmentVariable(deployment, 'KUBEWHY_REPLICA'), undefined);
  });

  test('creates no disruption budget unless asked, which then allows one pod down', async () => {
    assert.deepEqual(filterByKind(await renderChart(), 'PodDisruptionBudget'), []);
    const [budget] = filterByKind(
      await renderChart({ values: { podDisruptionBudget: { enabled: true } } }),
      'PodDisruptionBudget',
    );
    assert.equal((budget?.['spec'] as { maxUnavailable?: unknown } | undefined)?.maxUnavailable, 1);
  });
});

describe('several replicas are refused without PostgreSQL', () => {
  test('the schema refuses replicaCount 3 on SQLite, naming database.type postgresql', async () => {
    const result = await templateChart({ values: { replicaCount: 3 } });
    assert.notEqual(result.code, 0, 'helm template accepted three replicas on SQLite');
    assert.match(result.stderr, /\/database\/type.*'postgresql'/);
    assert.match(result.stderr, /\/replicaCount.*maximum/);
  });

  test('the templates refuse it too, saying why', async () => {
    const result = await templateWithoutSchema({ replicaCount: 3 });
    assert.notEqual(result.code, 0);
    assert.match(
      result.stderr,
      /replicaCount is 3 but database.type is "sqlite": several replicas need database.type "postgresql"/,
    );
    assert.match(result.stderr, /one file that one pod alone may write/);
  });

  test('PostgreSQL without the Secret holding its URL is refused by the schema and the templates', async () => {
    const values = { database: { type: 'postgresql' } };
    const schemaResult = await templateChart({ values });
    assert.notEqual(schemaResult.code, 0, 'helm template accepted postgresql without existingSecret');
    assert.match(schemaResult.stderr, /\/database\/postgresql\/existingSecret.*minLength/);
    const templateResult = await templateWithoutSchema(values);
    assert.notEqual(templateResult.code, 0);
    assert.match(
      templateResult.stderr,
      /database.type is "postgresql" but database.postgresql.existingSecret is empty/,
    );
  });

  test('the database URL cannot be slipped in through extraEnv', async () => {
    const result = await templateChart({
      values: { extraEnv: [{ name: 'KUBEWHY_DATABASE_URL', value: 'postgres://kubewhy:password@db/kubewhy' }] },
    });
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /extraEnv sets KUBEWHY_DATABASE_URL, which the chart sets/);
  });
});

describe('several replicas on PostgreSQL', () => {
  test('renders three replicas that roll one at a time', async () => {
    const deployment = findDeployment(await renderChart({ values: threeReplicasOnPostgresql }));
    assert.equal(deployment.spec.replicas, 3);
    assert.deepEqual(deployment.spec.strategy, {
      type: 'RollingUpdate',
      rollingUpdate: { maxSurge: 1, maxUnavailable: 0 },
    });
  });

  test('the URL comes from the Secret and each replica is named after its pod', async () => {
    const deployment = findDeployment(await renderChart({ values: threeReplicasOnPostgresql }));
    assert.deepEqual(findEnvironmentVariable(deployment, 'KUBEWHY_DATABASE_URL'), {
      name: 'KUBEWHY_DATABASE_URL',
      valueFrom: { secretKeyRef: { name: 'kubewhy-db', key: 'url' } },
    });
    assert.deepEqual(findEnvironmentVariable(deployment, 'KUBEWHY_REPLICA'), {
      name: 'KUBEWHY_REPLICA',
      valueFrom: { fieldRef: { fieldPath: 'metadata.name' } },
    });
  });

  test('the run lease is 30 s unless set, and a lease under 3 s is refused', async () => {
    assert.deepEqual(
      findEnvironmentVariable(
        findDeployment(await renderChart({ values: threeReplicasOnPostgresql })),
        'KUBEWHY_RUN_LEASE_SECONDS',
      ),
      { name: 'KUBEWHY_RUN_LEASE_SECONDS', value: '30' },
    );
    const postgresql = { existingSecret: 'kubewhy-db', runLeaseSeconds: 60 };
    const deployment = findDeployment(
      await renderChart({ values: { ...threeReplicasOnPostgresql, database: { type: 'postgresql', postgresql } } }),
    );
    assert.deepEqual(findEnvironmentVariable(deployment, 'KUBEWHY_RUN_LEASE_SECONDS'), {
      name: 'KUBEWHY_RUN_LEASE_SECONDS',
      value: '60',
    });
    await assert.rejects(
      renderChart({
        values: {
          ...threeReplicasOnPostgresql,
          database: { type: 'postgresql', postgresql: { ...postgresql, runLeaseSeconds: 1 } },
        },
      }),
      /runLeaseSeconds/,
    );
  });

  test('the Secret key is configurable', async () => {
    const values = {
      ...threeReplicasOnPostgresql,
      database: { type: 'postgresql', postgresql: { existingSecret: 'db', existingSecretKey: 'dsn' } },
    };
    const deployment = findDeployment(await renderChart({ values }));
    assert.deepEqual(findEnvironmentVariable(deployment, 'KUBEWHY_DATABASE_URL'), {
      name: 'KUBEWHY_DATABASE_URL',
      valueFrom: { secretKeyRef: { name: 'db', key: 'dsn' } },
    });
  });

  test('mounts no claim: the data dir is a bounded emptyDir, and no PersistentVolumeClaim is rendered', async () => {
    const objects = await renderChart({ values: threeReplicasOnPostgresql });
    const deployment = findDeployment(objects);
    assert.deepEqual(findDataVolume(deployment), { name: 'data', emptyDir: { sizeLimit: '1Gi' } });
    assert.deepEqual(findEnvironmentVariable(deployment, 'KUBEWHY_DATA_DIR'), {
      name: 'KUBEWHY_DATA_DIR',
      value: '/var/lib/kubewhy',
    });
    assert.ok(
      findKubewhyContainer(deployment).volumeMounts?.some(
        (mount) => mount.name === 'data' && mount.mountPath === '/var/lib/kubewhy',
      ),
    );
    assert.deepEqual(filterByKind(objects, 'PersistentVolumeClaim'), []);
  });

  test('a disruption budget lets one replica go at a time, unless turned off', async () => {
    const [budget] = filterByKind(await renderChart({ values: threeReplicasOnPostgresql }), 'PodDisruptionBudget');
    assert.ok(budget, 'no PodDisruptionBudget with three replicas');
    assert.equal((budget['spec'] as { maxUnavailable?: unknown }).maxUnavailable, 1);
    const turnedOff = await renderChart({
      values: { ...threeReplicasOnPostgresql, podDisruptionBudget: { enabled: false } },
    });
    assert.deepEqual(filterByKind(turnedOff, 'PodDisruptionBudget'), []);
  });

  test('a replica still migrating is neither restarted nor sent traffic', async () => {
    const container = findKubewhyContainer(findDeployment(await renderChart({ values: threeReplicasOnPostgresql })));
    // Liveness and readiness wait for the startup probe; the service listens only once migrated.
    assert.ok(container.startupProbe?.httpGet, 'no startup probe');
    const { periodSeconds, failureThreshold } = container.startupProbe as {
      periodSeconds: number;
      failureThreshold: number;
    };
    assert.ok(periodSeconds * failureThreshold >= 60, `the startup probe gives ${periodSeconds * failureThreshold} s`);
    assert.deepEqual(container.readinessProbe?.httpGet, { path: '/readyz', port: 'http' });
  });

  test('every rendered object is a valid Kubernetes object', async () => {
    assert.deepEqual(await findAllSchemaProblems(await renderChart({ values: threeReplicasOnPostgresql })), []);
  });

  test('helm lint --strict passes', async () => {
    const result = await lintChart(threeReplicasOnPostgresql);
    assert.equal(result.code, 0, `helm lint failed:\n${result.stdout}\n${result.stderr}`);
    assert.match(result.stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/);
  });
});
