/**
 * `kubewhy capture`'s refusals: each is one clear line on stderr and exit code 2, before
 * anything is written: a kubeconfig that cannot be read, a context that is not in it, a
 * namespace the cluster does not have, an OUT that is not empty (unless --force), a bad
 * --since. And the pieces it is built from: durations, the incident text.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { startMockCluster, type MockCluster } from '../mock-cluster/index.ts';
import { parseDuration } from '../src/capture/parse-duration.ts';
import { findFailingPods } from '../src/capture/failing-pods.ts';
import { incidentText } from '../src/capture/incident-text.ts';
import type { CapturedObject } from '../src/capture/captured-object.ts';

const run = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'kubewhy-capture-cli-'));
// No KUBECONFIG from the person running the tests, and a home without ~/.kube/config.
const env = {
  ...process.env,
  ANTHROPIC_API_KEY: '',
  KUBECONFIG: '',
  HOME: work,
  KUBEWHY_CLUSTER: 'auto',
  KUBERNETES_SERVICE_HOST: '',
};

async function capture(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['bin/kubewhy.js', 'capture', ...args], {
      env,
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failure.code ?? 1, stdout: failure.stdout ?? '', stderr: failure.stderr ?? '' };
  }
}

describe('kubewhy capture refuses, with exit code 2', () => {
  let mock: MockCluster;
  before(async () => {
    mock = await startMockCluster({ scenario: 'mock-cluster/scenarios/worker-bad-flag' });
  });
  after(async () => mock.close());

  it('a kubeconfig that is not there', async () => {
    const result = await capture([
      '--namespace',
      'queue',
      '--kubeconfig',
      join(work, 'missing.yaml'),
      join(work, 'out-a'),
    ]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /^kubewhy capture: kubeconfig not found: .*missing\.yaml\n$/);
    assert.equal(existsSync(join(work, 'out-a')), false, 'nothing is written');
  });

  it('no kubeconfig at all: says where it looked', async () => {
    const result = await capture(['--namespace', 'queue', join(work, 'out-b')]);
    assert.equal(result.code, 2);
    assert.match(
      result.stderr,
      /no cluster to read\. Looked, as kubectl does, for:[\s\S]*\.kube\/config \(not there\)/,
    );
  });

  it('a context that is not in the kubeconfig', async () => {
    const result = await capture([
      '--namespace',
      'queue',
      '--kubeconfig',
      mock.kubeconfigPath,
      '--context',
      'prod',
      join(work, 'out-c'),
    ]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /context "prod" is not in kubeconfig .* \(it has contexts: kubewhy-mock\)/);
  });

  it('a namespace that does not exist', async () => {
    const result = await capture(['--namespace', 'queu', '--kubeconfig', mock.kubeconfigPath, join(work, 'out-d')]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /namespace "queu" does not exist in this cluster/);
    assert.equal(existsSync(join(work, 'out-d')), false);
  });

  it('an OUT that is not empty, unless --force', async () => {
    const out = join(work, 'out-e');
    mkdirSync(out);
    writeFileSync(join(out, 'notes.txt'), 'mine\n');
    const refused = await capture(['--namespace', 'queue', '--kubeconfig', mock.kubeconfigPath, out]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /out-e exists and is not empty: choose another folder, or pass --force/);
    const forced = await capture([
      '--namespace',
      'queue',
      '--kubeconfig',
      mock.kubeconfigPath,
      '--force',
      '--name',
      'queue-worker-crash',
      '--incident',
      'workers in queue crash',
      out,
    ]);
    assert.equal(forced.code, 0, forced.stderr);
    const meta = readFileSync(join(out, 'scenario.yaml'), 'utf8');
    assert.match(meta, /^name: queue-worker-crash$/m);
    assert.match(meta, /incident: workers in queue crash/);
    assert.equal(readFileSync(join(out, 'notes.txt'), 'utf8'), 'mine\n', 'only what a capture writes is replaced');
  });

  it('a --since that is not a duration; a missing --namespace', async () => {
    const since = await capture([
      '--namespace',
      'queue',
      '--kubeconfig',
      mock.kubeconfigPath,
      '--since',
      'yesterday',
      join(work, 'out-f'),
    ]);
    assert.equal(since.code, 2);
    assert.match(since.stderr, /--since expects a duration such as 90s, 30m, 2h or 1d, got "yesterday"/);
    const noNamespace = await capture([join(work, 'out-g')]);
    assert.equal(noNamespace.code, 2);
    assert.match(noNamespace.stderr, /--namespace is required/);
  });
});

describe('capture pieces', () => {
  it('parseDuration reads kubectl durations', () => {
    assert.equal(parseDuration('2h'), 7_200_000);
    assert.equal(parseDuration('1h30m'), 5_400_000);
    assert.equal(parseDuration('90s'), 90_000);
    assert.equal(parseDuration('1d'), 86_400_000);
    assert.throws(() => parseDuration('2 hours'), /--since expects a duration/);
  });

  it('the incident text names the worst workload (a crash before pods that are only not ready), or the node that is down under the failing pods', () => {
    const now = Date.parse('2026-11-29T10:00:00Z');
    const pod = (name: string, owner: string, status: unknown): CapturedObject => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'shop', ownerReferences: [{ kind: 'ReplicaSet', name: owner, controller: true }] },
      status,
    });
    const replicaSet = (name: string, deployment: string): CapturedObject => ({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name,
        namespace: 'shop',
        ownerReferences: [{ kind: 'Deployment', name: deployment, controller: true }],
      },
    });
    const objects: CapturedObject[] = [
      replicaSet('api-1', 'api'),
      replicaSet('db-1', 'db'),
      ...['a', 'b', 'c'].map((suffix) =>
        pod(`api-1-${suffix}`, 'api-1', {
          phase: 'Running',
          containerStatuses: [{ name: 'api', ready: false, restartCount: 0, state: { running: {} } }],
        }),
      ),
      pod('db-1-a', 'db-1', {
        phase: 'Running',
        containerStatuses: [
          {
            name: 'db',
            ready: false,
            restartCount: 4,
            state: { waiting: { reason: 'CrashLoopBackOff' } },
            lastState: { terminated: { reason: 'Error', finishedAt: '2026-11-29T09:59:00Z' } },
          },
        ],
      }),
      // Restarted three days ago, fine since: history, not the incident.
      pod('api-1-d', 'api-1', {
        phase: 'Running',
        containerStatuses: [
          {
            name: 'api',
            ready: true,
            restartCount: 1,
            state: { running: {} },
            lastState: { terminated: { reason: 'Error', finishedAt: '2026-11-26T09:00:00Z' } },
          },
        ],
      }),
      {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: 'node-2' },
        status: {
          conditions: [
            { type: 'Ready', status: 'Unknown' },
            { type: 'MemoryPressure', status: 'False' },
          ],
        },
      },
    ];
    const troubles = findFailingPods(objects, { now, sinceMs: 7_200_000 });
    assert.deepEqual(
      troubles.map((trouble) => trouble.pod.metadata.name),
      ['api-1-a', 'api-1-b', 'api-1-c', 'db-1-a'],
    );
    assert.deepEqual(troubles[3]?.containers, [{ container: 'db', current: true, previous: true }]);
    assert.equal(
      incidentText({ namespace: 'shop', troubles, objects }),
      'deployment db in shop is failing: pod db-1-a CrashLoopBackOff, Error; 1 other workload(s) there have pods in trouble too; node node-2 (NotReady)',
    );
    const onNode2 = objects.map((object) =>
      object.kind === 'Pod' && object.metadata.name !== 'db-1-a' ? { ...object, spec: { nodeName: 'node-2' } } : object,
    );
    assert.equal(
      incidentText({ namespace: 'shop', troubles, objects: onNode2 }),
      'node node-2 (NotReady), and 4 pod(s) of shop run on it',
      'pods on a NotReady node may still say Running',
    );
    assert.match(incidentText({ namespace: 'shop', troubles: [], objects: [] }), /nothing in shop looked broken/);
  });
});
