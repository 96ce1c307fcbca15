import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exampleContainer, exampleNode, examplePod } from './example-objects.ts';
import { EXPLAINERS, explainMismatches } from './table.ts';

test('every explainer has an id, both sides, a meaning, a source and examples both ways', () => {
  for (const row of EXPLAINERS) {
    assert.match(row.id, /^[a-z0-9]+(-[a-z0-9]+)*$/, `${row.id} is kebab-case`);
    assert.match(row.compares, /\S ↔ \S/, `${row.id} names its two sides`);
    assert.ok(row.means.length > 20 && row.source.length > 20, `${row.id} says what it means and where it reads`);
    assert.ok(row.examples.match.length > 0, `${row.id} has facts it must explain`);
    assert.ok(row.examples.noMatch.length > 0, `${row.id} has near misses it must leave alone`);
    for (const example of row.examples.match)
      assert.ok(example.says.length > 0, `${row.id}: each match example says what the evidence must contain`);
  }
});

test('explainer ids are unique', () => {
  const ids = EXPLAINERS.map((row) => row.id);
  assert.deepEqual(
    ids.filter((id, index) => ids.indexOf(id) !== index),
    [],
  );
});

test('every explainer explains its match examples in the words its examples expect', () => {
  for (const row of EXPLAINERS) {
    row.examples.match.forEach((example, index) => {
      const found = explainMismatches(example.facts).find((mismatch) => mismatch.id === row.id);
      assert.ok(found, `${row.id} match #${index} yields a mismatch`);
      const evidence = found.evidence.join('\n');
      for (const says of example.says) assert.match(evidence, says, `${row.id} match #${index}`);
      assert.ok(
        found.sides.expected.length > 0 && found.sides.actual.length > 0,
        `${row.id} match #${index} names both sides`,
      );
      assert.ok(found.evidence.length >= 2, `${row.id} match #${index} says what to change as well as what differs`);
    });
  }
});

test('every explainer leaves its near misses alone', () => {
  for (const row of EXPLAINERS) {
    row.examples.noMatch.forEach((facts, index) => {
      assert.equal(row.explain(facts), undefined, `${row.id} noMatch #${index}`);
      assert.ok(
        !explainMismatches(facts).some((mismatch) => mismatch.id === row.id),
        `${row.id} noMatch #${index} through the table`,
      );
    });
  }
});

test('empty facts explain nothing', () => {
  assert.deepEqual(explainMismatches({}), []);
});

test('a DaemonSet pod pinned to a full node lacks room even when the other nodes are empty', () => {
  const full = exampleNode('ip-10-0-1-23.eu-west-1.compute.internal', { requested: { cpu: '3900m', memory: '4Gi' } });
  const empty = exampleNode('ip-10-0-2-87.eu-west-1.compute.internal', {
    zone: 'eu-west-1b',
    requested: { cpu: '0', memory: '0' },
  });
  const pod = examplePod('fluent-bit', {
    name: 'fluent-bit-8xk2q',
    namespace: 'logging',
    owner: { kind: 'DaemonSet', name: 'fluent-bit' },
    requiredNodeAffinity: [{ key: 'metadata.name', operator: 'In', values: [full.name] }],
    containers: [exampleContainer('fluent-bit', { requests: { cpu: '100m', memory: '128Mi' } })],
  });
  const ids = explainMismatches({ pod, nodes: [full, empty] }).map((mismatch) => mismatch.id);
  assert.deepEqual(ids, ['requests-exceed-node-room']);
  assert.deepEqual(explainMismatches({ pod, nodes: [{ ...full, requested: { cpu: '1', memory: '4Gi' } }, empty] }), []);
});

test('a pod repelled by taints is explained by the taint row alone, not as a lack of room', () => {
  const tainted = exampleNode('ip-10-0-2-201.eu-west-1.compute.internal', { taints: ['dedicated=batch:NoSchedule'] });
  const pod = examplePod('reports', { containers: [exampleContainer('reports', { requests: { cpu: '8' } })] });
  assert.deepEqual(
    explainMismatches({ pod, nodes: [tainted] }).map((mismatch) => mismatch.id),
    ['taint-not-tolerated'],
  );
});

test('a NoExecute taint is not tolerated by a NoSchedule toleration of the same key', () => {
  const node = exampleNode('ip-10-0-3-142.eu-west-1.compute.internal', { taints: ['dedicated=batch:NoExecute'] });
  const pod = examplePod('reports', { tolerations: ['dedicated=batch:NoSchedule'] });
  const mismatch = explainMismatches({ pod, nodes: [node] }).find((found) => found.id === 'taint-not-tolerated');
  assert.ok(mismatch);
  assert.match(mismatch.sides.expected, /dedicated=batch:NoExecute/);
  assert.match(mismatch.sides.actual, /dedicated=batch:NoSchedule/);
});

test('a Service selector typo names both the selector and the label the pods carry', () => {
  const [mismatch] = explainMismatches({
    service: { name: 'cart', namespace: 'shop', selector: { app: 'cartt' }, ports: [{ port: 80, targetPort: 8080 }] },
    namespacePods: [{ name: 'cart-6b7f9d8c5-p4wz7', labels: { app: 'cart' } }],
  });
  assert.deepEqual(mismatch?.sides, { expected: 'app=cartt', actual: 'app=cart' });
});
