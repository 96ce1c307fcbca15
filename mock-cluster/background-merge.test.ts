import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadBackground, mergeBackground } from './backgrounds.ts';
import { loadScenario, type LoadedScenario } from './loader.ts';
import { scenarioMetaSchema } from './scenario-schema.ts';
import type { KubeObject } from './types.ts';

const SCENARIOS = ['api-insufficient-cpu', 'grafana-healthy-false-alarm', 'worker-node-notready'];
const identity = (object: KubeObject): string =>
  `${object.kind}/${object.metadata.namespace ?? ''}/${object.metadata.name}`;
const age = (time: string, now: string): number => Date.parse(now) - Date.parse(time);

function scenarioOf(objects: KubeObject[]): LoadedScenario {
  const meta = scenarioMetaSchema.parse({
    name: 'synthetic',
    now: '2027-03-10T12:00:00Z',
    trigger: { incident: 'grafana is down' },
    expect: { category: 'no-issue', culprit: 'Namespace/monitoring' },
  });
  return { name: 'synthetic', dir: '', meta, objects, logs: [] };
}

test('merging leaves every scenario object as it was and adds the background around it', async () => {
  for (const name of SCENARIOS) {
    const scenario = await loadScenario(`mock-cluster/scenarios/${name}`);
    const before = structuredClone(scenario);
    for (const backgroundName of ['eks', 'aks', 'kubeadm']) {
      const merged = mergeBackground(scenario, await loadBackground(backgroundName));
      assert.deepEqual(scenario, before, 'the loaded scenario is not modified');
      assert.deepEqual(
        merged.objects.slice(0, scenario.objects.length),
        before.objects,
        `${name} in ${backgroundName}: scenario objects unchanged, in order`,
      );
      assert.deepEqual(merged.logs.slice(0, scenario.logs.length), before.logs);
      assert.deepEqual(
        { ...merged, objects: [], logs: [], background: undefined },
        { ...before, objects: [], logs: [], background: undefined },
        "name, meta and dir are the scenario's",
      );
      assert.equal(merged.background, backgroundName);
      assert.ok(merged.objects.length > scenario.objects.length + 50, 'the background adds its objects');
    }
  }
});

test('an object the scenario has wins: the background copy and what hangs off it are dropped', async () => {
  const scenario = await loadScenario('mock-cluster/scenarios/api-insufficient-cpu');
  const merged = mergeBackground(scenario, await loadBackground('eks'));
  const identities = merged.objects.map(identity);
  assert.equal(new Set(identities).size, identities.length, 'no identity twice');
  const coredns = scenario.objects.find((object) => object.kind === 'Deployment' && object.metadata.name === 'coredns');
  assert.ok(coredns, 'the scenario has its own coredns');
  const owners = merged.objects.filter(
    (object) =>
      object.kind === 'ReplicaSet' &&
      object.metadata.ownerReferences?.some((owner) => owner.kind === 'Deployment' && owner.name === 'coredns'),
  );
  assert.ok(
    owners.length > 0 &&
      owners.every((replicaSet) => replicaSet.metadata.ownerReferences?.[0]?.uid === coredns.metadata.uid),
    "only the scenario's ReplicaSets belong to its coredns",
  );
  const scenarioPods = new Set(scenario.objects.filter((object) => object.kind === 'Pod').map(identity));
  const dnsPods = merged.objects.filter(
    (object) => object.kind === 'Pod' && object.metadata.labels?.['k8s-app'] === 'kube-dns',
  );
  assert.ok(
    dnsPods.every((pod) => scenarioPods.has(identity(pod))),
    'no background pod answers for kube-dns',
  );
  assert.ok(
    !merged.logs.some((log) => log.pod.startsWith('coredns-') && !scenario.logs.includes(log)),
    'no background coredns log',
  );
});

test('a background workload a scenario Service would select gives way, with its endpoints, events and logs', async () => {
  const background = await loadBackground('eks');
  const scenario = scenarioOf([
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'monitoring', uid: 'scenario-ns' } },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'grafana', namespace: 'monitoring', uid: 'scenario-svc' },
      spec: { selector: { 'app.kubernetes.io/name': 'grafana' }, ports: [{ port: 80 }] },
    },
  ]);
  const merged = mergeBackground(scenario, background);
  const grafana = merged.objects.filter((object) => object.metadata.name.startsWith('kube-prometheus-stack-grafana'));
  assert.deepEqual(grafana.map(identity), [
    'ConfigMap/monitoring/kube-prometheus-stack-grafana',
    'Secret/monitoring/kube-prometheus-stack-grafana',
  ]);
  assert.ok(
    !merged.objects.some(
      (object) =>
        object.kind === 'Event' &&
        String((object['involvedObject'] as { name: string }).name).startsWith('kube-prometheus-stack-grafana'),
    ),
  );
  assert.ok(!merged.logs.some((log) => log.container === 'grafana'));
  assert.ok(
    merged.objects.some(
      (object) =>
        object.kind === 'StatefulSet' && object.metadata.name === 'prometheus-kube-prometheus-stack-prometheus',
    ),
    'the rest of monitoring stays',
  );
});

test("a node name the scenario defines keeps the scenario's node; background pods never land on it", async () => {
  const background = await loadBackground('eks');
  const taken = background.objects.find((object) => object.kind === 'Node');
  assert.ok(taken);
  const scenario = scenarioOf([
    {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: taken.metadata.name, uid: 'scenario-node' },
      status: { conditions: [{ type: 'Ready', status: 'False' }] },
    },
  ]);
  const merged = mergeBackground(scenario, background);
  assert.deepEqual(
    merged.objects.filter((object) => object.kind === 'Node' && object.metadata.name === taken.metadata.name),
    [scenario.objects[0]],
  );
  assert.ok(
    !merged.objects.some(
      (object) => object.kind === 'Pod' && (object['spec'] as { nodeName?: string }).nodeName === taken.metadata.name,
    ),
  );
});

test('times move onto the scenario clock: an object 3h old in the background is 3h old in the scenario', async () => {
  const background = await loadBackground('eks');
  const scenario = await loadScenario('mock-cluster/scenarios/worker-bad-flag');
  const merged = mergeBackground(scenario, background);
  const byIdentity = new Map(merged.objects.map((object) => [identity(object), object]));
  let compared = 0;
  for (const original of background.objects) {
    const moved = byIdentity.get(identity(original));
    if (!moved || scenario.objects.includes(moved)) continue;
    assert.equal(
      age(moved.metadata.creationTimestamp ?? '', scenario.meta.now),
      age(original.metadata.creationTimestamp ?? '', background.now),
      identity(original),
    );
    compared += 1;
  }
  assert.ok(compared > 100, `${compared} objects compared`);
  const warning = merged.objects.find(
    (object) =>
      object.kind === 'Event' && object['reason'] === 'FailedScheduling' && !scenario.objects.includes(object),
  );
  assert.ok(warning);
  assert.equal(
    age(String(warning['lastTimestamp']), scenario.meta.now),
    (2 * 60 + 20) * 60_000,
    'the 2h20m old warning is still 2h20m old',
  );
  const pods = merged.objects.filter(
    (object) => object.kind === 'Pod' && object.metadata.name.startsWith('price-api-'),
  );
  const lastState = pods
    .flatMap(
      (pod) =>
        (pod['status'] as { containerStatuses: { lastState: { terminated?: { finishedAt: string } } }[] })
          .containerStatuses,
    )
    .map((status) => status.lastState.terminated?.finishedAt)
    .find(Boolean);
  assert.equal(age(lastState ?? '', scenario.meta.now), 46 * 60 * 60_000, 'the OOM kill 1d22h ago is still 1d22h ago');
});

test('log lines keep their age too: ISO times anywhere in the line and klog headers', async () => {
  const background = await loadBackground('kubeadm');
  const scenario = await loadScenario('mock-cluster/scenarios/worker-bad-flag');
  const merged = mergeBackground(scenario, background);
  const shift = Date.parse(scenario.meta.now) - Date.parse(background.now);
  const etcd = (logs: typeof merged.logs): string => logs.find((log) => log.pod === 'etcd-dc1-k8s-cp01')?.text ?? '';
  const original = /"ts":"([^"]+)"/.exec(etcd(background.logs))?.[1] ?? '';
  const moved = /"ts":"([^"]+)"/.exec(etcd(merged.logs))?.[1] ?? '';
  assert.equal(Date.parse(moved) - Date.parse(original), shift);
  assert.match(moved, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/, 'written with the same precision');
  const klog = (logs: typeof merged.logs): string =>
    logs
      .find((log) => log.container === 'kube-controller-manager' && !log.previous)
      ?.text.split('\n')
      .at(-2) ?? '';
  const before = /^I(\d{2})(\d{2}) (\d{2}:\d{2}:\d{2}\.\d{3})/.exec(klog(background.logs));
  const after = /^I(\d{2})(\d{2}) (\d{2}:\d{2}:\d{2}\.\d{3})/.exec(klog(merged.logs));
  assert.ok(before && after);
  const at = (match: RegExpExecArray, year: string): number =>
    Date.parse(`${year}-${match[1]}-${match[2]}T${match[3]}Z`);
  assert.equal(at(after, scenario.meta.now.slice(0, 4)) - at(before, background.now.slice(0, 4)), shift);
});
