import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exampleNode, examplePod } from './example-objects.ts';
import { blockingTaints, candidateNodes, meetsRequirement, parseTaint, pinnedNode } from './node-fit.ts';

const tainted = exampleNode('ip-10-0-2-201.eu-west-1.compute.internal', {
  taints: ['dedicated=gpu:NoSchedule', 'spot:NoExecute', 'maintenance=soon:PreferNoSchedule'],
});
const untolerated = (tolerations: string[]) =>
  blockingTaints(tainted, examplePod('trainer', { tolerations })).map((taint) => taint.text);

test('reads taints as kubectl prints them, with and without a value', () => {
  assert.deepEqual(parseTaint('dedicated=gpu:NoSchedule'), {
    key: 'dedicated',
    value: 'gpu',
    effect: 'NoSchedule',
    text: 'dedicated=gpu:NoSchedule',
  });
  assert.deepEqual(parseTaint('node.kubernetes.io/unschedulable:NoSchedule')?.value, '');
  assert.equal(parseTaint('<none>'), undefined);
});

test('a toleration covers a taint when key, value and effect agree, or op=Exists leaves them open', () => {
  assert.deepEqual(untolerated([]), ['dedicated=gpu:NoSchedule', 'spot:NoExecute']);
  assert.deepEqual(untolerated(['dedicated=gpu:NoSchedule', 'spot:NoExecute op=Exists']), []);
  assert.deepEqual(untolerated(['dedicated op=Exists', 'spot:NoExecute op=Exists for 300s']), []);
  assert.deepEqual(untolerated(['op=Exists']), []);
  assert.deepEqual(untolerated(['dedicated=cpu:NoSchedule', 'spot:NoSchedule op=Exists']), [
    'dedicated=gpu:NoSchedule',
    'spot:NoExecute',
  ]);
});

test('a cordoned node repels pods that do not tolerate node.kubernetes.io/unschedulable', () => {
  const cordoned = exampleNode('ip-10-0-1-23.eu-west-1.compute.internal', { unschedulable: true });
  assert.deepEqual(
    blockingTaints(cordoned, examplePod('web')).map((taint) => taint.text),
    ['node.kubernetes.io/unschedulable:NoSchedule'],
  );
  assert.deepEqual(
    blockingTaints(
      cordoned,
      examplePod('node-exporter', { tolerations: ['node.kubernetes.io/unschedulable:NoSchedule op=Exists'] }),
    ),
    [],
  );
});

test('node selector operators follow the API: NotIn and DoesNotExist hold where the label is absent', () => {
  const node = exampleNode('ip-10-0-1-23.eu-west-1.compute.internal', { labels: { 'example.com/cores': '16' } });
  assert.equal(meetsRequirement(node, { key: 'disktype', operator: 'NotIn', values: ['hdd'] }), true);
  assert.equal(meetsRequirement(node, { key: 'disktype', operator: 'DoesNotExist' }), true);
  assert.equal(meetsRequirement(node, { key: 'disktype', operator: 'Exists' }), false);
  assert.equal(meetsRequirement(node, { key: 'example.com/cores', operator: 'Gt', values: ['8'] }), true);
  assert.equal(meetsRequirement(node, { key: 'metadata.name', operator: 'In', values: [node.name] }), true);
});

test('a DaemonSet pod is pinned by its metadata.name affinity, a bound pod by spec.nodeName', () => {
  const name = 'ip-10-0-3-142.eu-west-1.compute.internal';
  const daemon = examplePod('fluent-bit', {
    requiredNodeAffinity: [{ key: 'metadata.name', operator: 'In', values: [name] }],
  });
  assert.equal(pinnedNode(daemon)?.name, name);
  assert.equal(pinnedNode(examplePod('web', { nodeName: name }))?.name, name);
  assert.equal(pinnedNode(examplePod('web')), undefined);
  const nodes = [exampleNode('ip-10-0-1-23.eu-west-1.compute.internal'), exampleNode(name)];
  assert.deepEqual(
    candidateNodes(daemon, nodes).map((node) => node.name),
    [name],
  );
});
