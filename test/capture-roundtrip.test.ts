/**
 * `kubewhy capture` against a live API server (the mock cluster, in process, serving a public
 * scenario), then `kubewhy diagnose --scenario OUT` on what it wrote: the replayed capture is
 * diagnosed as the original scenario is (its expect: category and culprit), from the
 * incident text the capture wrote itself, one scenario of each kind of failure.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { startMockCluster } from '../mock-cluster/index.ts';
import { loadScenario, scenarioExpect } from '../mock-cluster/loader.ts';
import { runKubewhy, type CliResult } from './helpers/run-kubewhy.ts';

const work = mkdtempSync(join(tmpdir(), 'kubewhy-capture-'));
const env = { ...process.env, KUBEWHY_MODEL: 'offline', ANTHROPIC_API_KEY: '', KUBEWHY_DATA_DIR: join(work, 'data') };

const kubewhy = (args: string[]): Promise<CliResult> => runKubewhy(args, { env });

const CASES = [
  { scenario: 'worker-bad-flag', namespace: 'queue', kind: 'a crash loop with logs' },
  { scenario: 'orders-worker-oom', namespace: 'shop', kind: 'an OOM kill' },
  { scenario: 'frontend-bad-image-tag', namespace: 'web', kind: 'an image pull failure' },
  { scenario: 'mailer-missing-secret', namespace: 'notifications', kind: 'a missing Secret' },
  { scenario: 'worker-node-notready', namespace: 'prod', kind: 'a node failure' },
  { scenario: 'api-insufficient-cpu', namespace: 'shop', kind: 'a pod pending for want of cpu' },
  { scenario: 'etl-runner-node-selector', namespace: 'data', kind: 'a pod no node may take' },
  { scenario: 'checkout-secret-rotation', namespace: 'staging', kind: 'bad credentials after a rollout' },
];

describe('kubewhy capture, replayed', () => {
  for (const { scenario: name, namespace, kind } of CASES) {
    it(`${kind} (${name}): the capture is diagnosed as the original`, async () => {
      const original = await loadScenario(`mock-cluster/scenarios/${name}`);
      const mock = await startMockCluster({ scenario: original });
      const out = join(work, name);
      try {
        const captured = await kubewhy(['capture', '--namespace', namespace, '--kubeconfig', mock.kubeconfigPath, out]);
        assert.equal(captured.code, 0, captured.stderr);
        assert.match(captured.stdout, /replay it: kubewhy diagnose --scenario /);
      } finally {
        await mock.close();
      }
      const meta = parse(readFileSync(join(out, 'scenario.yaml'), 'utf8')) as {
        name: string;
        now: string;
        trigger: { incident: string };
        expect?: unknown;
      };
      assert.equal(meta.name, name);
      assert.ok(!Number.isNaN(Date.parse(meta.now)));
      assert.equal(meta.expect, undefined, 'a capture does not guess what is right');
      const replayed = await kubewhy(['diagnose', '--scenario', out, '--json']);
      assert.equal(replayed.code, 0, replayed.stderr);
      const diagnosis = (
        JSON.parse(replayed.stdout) as {
          diagnosis: { category: string; culprit: { kind: string; namespace?: string; name: string } };
        }
      ).diagnosis;
      const culprit = [diagnosis.culprit.kind, diagnosis.culprit.namespace, diagnosis.culprit.name]
        .filter(Boolean)
        .join('/');
      const expect = scenarioExpect(original);
      assert.deepEqual(
        { category: diagnosis.category, culprit },
        { category: expect.category, culprit: expect.culprit },
        `incident: ${meta.trigger.incident}`,
      );
    });
  }

  it('replays a capture with the logs the tools read: current and previous, under logs/<namespace>/<pod>/', async () => {
    const out = join(work, 'worker-bad-flag');
    const files = readFileSync(join(out, 'cluster.yaml'), 'utf8');
    assert.match(
      files,
      /deployment\.kubernetes\.io\/revision/,
      'rollout history: the ReplicaSets with their revisions',
    );
    const previous = readFileSync(join(out, 'logs/queue/worker-5df4745ddb-fcrxb/worker.previous.log'), 'utf8');
    assert.match(previous, /flag provided but not defined: -concurency/);
  });
});
