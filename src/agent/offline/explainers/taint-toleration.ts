/**
 * Node taints ↔ pod tolerations: every node that would otherwise take the pod (selector
 * and affinity met, the pin respected) has a NoSchedule or NoExecute taint the pod does
 * not tolerate.
 */
import type { MismatchFacts, NodeFacts } from './facts.ts';
import type { Explainer, Mismatch } from './types.ts';
import { THREE_ZONES, exampleNode, examplePod } from './example-objects.ts';
import {
  type Taint,
  blockingTaints,
  describePod,
  listNames,
  meetsAll,
  nearToleration,
  pinnedNode,
  podRequirements,
  schedulerSays,
} from './node-fit.ts';

const ID = 'taint-not-tolerated';
// The kubelet adds these to every pod; naming them as "the pod's tolerations" would only distract.
const DEFAULT_TOLERATION = /^node\.kubernetes\.io\/(not-ready|unreachable):NoExecute op=Exists/;

function explain({ pod, nodes, schedulingMessage }: MismatchFacts): Mismatch | undefined {
  if (!pod || !nodes) return undefined;
  const requirements = podRequirements(pod).map(({ requirement }) => requirement);
  const pin = pinnedNode(pod);
  const fitting = nodes.filter((node) => (!pin || node.name === pin.name) && meetsAll(node, requirements));
  if (fitting.length === 0) return undefined;
  const blocked = fitting.map((node) => ({ node, taints: blockingTaints(node, pod) }));
  if (blocked.some(({ taints }) => taints.length === 0)) return undefined;
  // Nodes with the same untolerated taints are named together.
  const groups = new Map<string, { nodes: NodeFacts[]; taints: Taint[] }>();
  for (const { node, taints } of blocked) {
    const key = taints.map((taint) => taint.text).join(', ');
    const group = groups.get(key) ?? { nodes: [], taints };
    group.nodes.push(node);
    groups.set(key, group);
  }
  const own = (pod.tolerations ?? []).filter((toleration) => !DEFAULT_TOLERATION.test(toleration));
  const repelled = [...groups.entries()].map(
    ([taints, group]) =>
      `${group.nodes.length === 1 ? 'Node' : 'Nodes'} ${listNames(group.nodes.map((node) => node.name))} ${group.nodes.length === 1 ? 'has' : 'have'} the taint ${taints}, which ${describePod(pod).replace(/^Pod /, 'pod ')} does not tolerate.`,
  );
  // The first sentence names both sides: the nodes' taints and the pod's tolerations.
  const evidence = [
    `${repelled.join(' ')} ${own.length > 0 ? `The pod tolerates only ${own.join(', ')}.` : 'The pod has no tolerations beyond the default not-ready/unreachable ones.'}`,
  ];
  const taints = [...new Map(blocked.flatMap(({ taints: list }) => list).map((taint) => [taint.text, taint])).values()];
  for (const taint of taints) {
    const near = nearToleration(pod, taint);
    if (near)
      evidence.push(
        `Its toleration ${near} names the key ${taint.key} but does not cover ${taint.text}: value and effect must match too (or use op=Exists).`,
      );
  }
  if (pin) evidence.push(`The pod is pinned to node ${pin.name} (${pin.by}), so only that node counts.`);
  evidence.push(...schedulerSays(schedulingMessage));
  const cordoned = taints.some((taint) => taint.key === 'node.kubernetes.io/unschedulable');
  evidence.push(
    cordoned && taints.length === 1
      ? 'Uncordon the node (kubectl uncordon) if its maintenance is over, or add nodes.'
      : `Add a toleration for ${taints.map((taint) => taint.text).join(', ')} to the pod template${pod.owner ? ` of ${pod.owner.kind} ${pod.owner.name}` : ''} if it is meant to run there, or remove the taint from the node (kubectl taint node <node> ${taints[0]!.key}-) if it should not be there.`,
  );
  return {
    id: ID,
    evidence,
    sides: {
      expected: `tolerations for ${taints.map((taint) => taint.text).join(', ')}`,
      actual: own.length > 0 ? `pod tolerates ${own.join(', ')}` : 'pod tolerates only the defaults',
    },
  };
}

const gpuTaint = 'nvidia.com/gpu=present:NoSchedule';
const gpuNode = (name: string) =>
  exampleNode(name, {
    zone: 'eu-west-1b',
    taints: [gpuTaint],
    labels: { 'node.kubernetes.io/instance-type': 'g5.xlarge', 'workload-class': 'gpu' },
  });
const gpuNodes = [
  gpuNode('ip-10-0-2-201.eu-west-1.compute.internal'),
  gpuNode('ip-10-0-2-202.eu-west-1.compute.internal'),
];
const trainer = (tolerations: string[] = []) =>
  examplePod('model-trainer', {
    namespace: 'ml',
    nodeSelector: { 'workload-class': 'gpu' },
    tolerations: [
      'node.kubernetes.io/not-ready:NoExecute op=Exists for 300s',
      'node.kubernetes.io/unreachable:NoExecute op=Exists for 300s',
      ...tolerations,
    ],
  });
const nodes = [...THREE_ZONES, ...gpuNodes];

export const TAINT_TOLERATION: Explainer = {
  id: ID,
  compares: 'Node taints ↔ pod tolerations',
  means:
    'Every node the pod may otherwise use repels it with a taint it does not tolerate, so it stays Pending (or is evicted, for NoExecute).',
  source:
    'Node spec.taints against pod spec.tolerations, after nodeSelector and node affinity; the scheduler\'s "had untolerated taint {key: value}"',
  explain,
  examples: {
    match: [
      {
        facts: {
          pod: trainer(),
          nodes,
          schedulingMessage:
            "0/5 nodes are available: 2 node(s) had untolerated taint {nvidia.com/gpu: present}, 3 node(s) didn't match Pod's node affinity/selector.",
        },
        says: [
          /Nodes ip-10-0-2-201\.eu-west-1\.compute\.internal, ip-10-0-2-202\.eu-west-1\.compute\.internal have the taint nvidia\.com\/gpu=present:NoSchedule, which pod ml\/model-trainer-7c9d5b6f4-2xkqp .* does not tolerate/,
          /no tolerations beyond the default/,
          /Add a toleration for nvidia\.com\/gpu=present:NoSchedule/,
        ],
      },
      {
        facts: { pod: trainer(['nvidia.com/gpu=true:NoSchedule']), nodes },
        says: [
          /tolerates only nvidia\.com\/gpu=true:NoSchedule/,
          /toleration nvidia\.com\/gpu=true:NoSchedule names the key nvidia\.com\/gpu but does not cover nvidia\.com\/gpu=present:NoSchedule/,
        ],
      },
      {
        facts: { pod: trainer(['nvidia.com/gpu:NoExecute op=Exists']), nodes },
        says: [/names the key nvidia\.com\/gpu but does not cover nvidia\.com\/gpu=present:NoSchedule/],
      },
      {
        facts: { pod: examplePod('checkout'), nodes: THREE_ZONES.map((node) => ({ ...node, unschedulable: true })) },
        says: [/have the taint node\.kubernetes\.io\/unschedulable:NoSchedule/, /Uncordon the node/],
      },
    ],
    noMatch: [
      { pod: trainer(['nvidia.com/gpu=present:NoSchedule']), nodes },
      { pod: trainer(['nvidia.com/gpu:NoSchedule op=Exists']), nodes },
      { pod: trainer(['nvidia.com/gpu op=Exists']), nodes },
      { pod: trainer(['op=Exists']), nodes },
      // One untainted node fits: the pod is not repelled everywhere.
      { pod: examplePod('checkout'), nodes: [...THREE_ZONES, ...gpuNodes] },
      // A PreferNoSchedule taint only steers; it does not keep the pod away.
      {
        pod: examplePod('checkout'),
        nodes: THREE_ZONES.map((node) => ({ ...node, taints: ['spot=true:PreferNoSchedule'] })),
      },
      // No node matches the selector at all: the selector row's finding, not this one.
      { pod: trainer(), nodes: THREE_ZONES },
    ],
  },
};
