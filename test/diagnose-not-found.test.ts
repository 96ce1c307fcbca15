/**
 * `kubewhy diagnose --json` against the demo scenario (checkout-api in staging fails with bad
 * credentials after a rollout) with incident texts that name something the cluster does not
 * have, or nothing at all: the answer says what was not found, blames nothing from elsewhere
 * and claims no confidence it lacks, while the demo's own incident text still finds its culprit.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { Diagnosis } from '../src/agent/diagnosis.ts';

const run = promisify(execFile);
const SCENARIO = 'mock-cluster/scenarios/checkout-secret-rotation';
const env = {
  ...process.env,
  KUBEWHY_MODEL: 'offline',
  KUBEWHY_CLUSTER: 'mock',
  ANTHROPIC_API_KEY: '',
  KUBEWHY_DATA_DIR: mkdtempSync(join(tmpdir(), 'kubewhy-not-found-')),
};

async function diagnose(...args: string[]): Promise<Diagnosis> {
  return diagnoseIn(SCENARIO, ...args);
}

async function diagnoseIn(scenario: string, ...args: string[]): Promise<Diagnosis> {
  const { stdout } = await run(
    process.execPath,
    ['bin/kubewhy.js', 'diagnose', '--scenario', scenario, '--json', ...args],
    { env, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
  );
  const result = JSON.parse(stdout) as { status: string; diagnosis?: Diagnosis };
  assert.equal(result.status, 'completed');
  assert.ok(result.diagnosis, 'a completed run has a diagnosis');
  return result.diagnosis;
}

describe('kubewhy diagnose, when the words name what is not there', { concurrency: 3 }, () => {
  it('a node that does not exist: says so, lists the nodes there are, blames nothing else', async () => {
    const diagnosis = await diagnose('node worker-3 is NotReady');
    assert.equal(diagnosis.category, 'no-issue');
    assert.equal(diagnosis.confidence, 'low');
    assert.deepEqual(diagnosis.culprit, { kind: 'Node', name: 'worker-3' });
    assert.deepEqual(diagnosis.notFound, [{ kind: 'Node', name: 'worker-3' }]);
    assert.match(
      diagnosis.summary,
      /node "worker-3" was not found; the cluster has nodes: ip-10-20-1-34\.eu-west-1\.compute\.internal, /,
    );
    assert.doesNotMatch(diagnosis.summary, /checkout-api|password/);
  });

  it('a namespace that does not exist (--namespace): says so and lists the namespaces there are', async () => {
    const diagnosis = await diagnose('--namespace', 'nope', 'checkout is down');
    assert.equal(diagnosis.category, 'no-issue');
    assert.equal(diagnosis.confidence, 'low');
    assert.deepEqual(diagnosis.notFound, [{ kind: 'Namespace', name: 'nope' }]);
    assert.match(diagnosis.summary, /namespace "nope" was not found; the cluster has namespaces .*staging/);
    assert.doesNotMatch(diagnosis.summary, /could not find no/);
  });

  it('a Deployment that does not exist in the namespace named: says so and lists the Deployments there', async () => {
    const diagnosis = await diagnose('deployment cart in staging is crashing');
    assert.equal(diagnosis.category, 'no-issue');
    assert.equal(diagnosis.confidence, 'low');
    assert.deepEqual(diagnosis.culprit, { kind: 'Deployment', namespace: 'staging', name: 'cart' });
    assert.deepEqual(diagnosis.notFound, [{ kind: 'Deployment', namespace: 'staging', name: 'cart' }]);
    assert.match(
      diagnosis.summary,
      /Deployment "cart" in namespace staging was not found; the cluster has Deployments in staging: .*checkout-api/,
    );
    assert.equal(diagnosis.actions.length, 0, 'nothing is proposed for a workload that is not there');
  });

  it('a workload named without a namespace that none has: says it is in no namespace', async () => {
    const diagnosis = await diagnose('payments-api is down');
    assert.equal(diagnosis.category, 'no-issue');
    assert.equal(diagnosis.confidence, 'low');
    assert.equal(diagnosis.culprit, undefined, 'a workload in no namespace cannot be named as culprit');
    assert.deepEqual(diagnosis.notFound, [{ kind: 'Workload', name: 'payments-api' }]);
    assert.match(diagnosis.summary, /"payments-api" was not found in any namespace/);
  });

  for (const text of ['x', 'everything is fine, just checking']) {
    it(`words that name nothing ("${text}"): what fails is reported as such, without high confidence`, async () => {
      const diagnosis = await diagnose(text);
      assert.notEqual(diagnosis.confidence, 'high');
      assert.match(diagnosis.summary, /name no workload, pod, Service, node or namespace in the cluster/);
      assert.equal(diagnosis.notFound, undefined, 'nothing was named, so nothing is missing');
    });
  }

  it("the demo's own incident text still finds its culprit, with high confidence", async () => {
    const diagnosis = await diagnose('checkout-api in staging keeps restarting');
    assert.equal(diagnosis.category, 'bad-credentials');
    assert.deepEqual(diagnosis.culprit, { kind: 'Deployment', namespace: 'staging', name: 'checkout-api' });
    assert.equal(diagnosis.confidence, 'high');
    assert.equal(diagnosis.notFound, undefined);
    assert.ok(diagnosis.actions.some((action) => action.tool === 'rollout_undo'));
  });

  it('vague words that point at the failing workload still find it, with high confidence', async () => {
    const diagnosis = await diagnose('checkout keeps restarting');
    assert.equal(diagnosis.category, 'bad-credentials');
    assert.deepEqual(diagnosis.culprit, { kind: 'Deployment', namespace: 'staging', name: 'checkout-api' });
    assert.equal(diagnosis.confidence, 'high');
  });

  it('words that name nothing, where a node is down: the node is reported, but the answer says the words matched nothing and claims less', async () => {
    const diagnosis = await diagnoseIn('mock-cluster/scenarios/worker-node-notready', 'x');
    assert.equal(diagnosis.category, 'node-failure');
    assert.notEqual(diagnosis.confidence, 'high');
    assert.match(diagnosis.summary, /The words "x" name no workload, pod, Service, node or namespace in the cluster\./);
  });

  it('words that name the kind of what fails ("a node went NotReady") keep the confidence the evidence gives', async () => {
    const diagnosis = await diagnoseIn('mock-cluster/scenarios/worker-node-notready', 'a node went NotReady in prod');
    assert.equal(diagnosis.category, 'node-failure');
    assert.equal(diagnosis.confidence, 'high');
    assert.doesNotMatch(diagnosis.summary, /name no workload/);
  });
});
