/**
 * nodeSelector / required node affinity ↔ node labels: the pod asks for a label value no
 * schedulable node carries.
 */
import type { MismatchFacts } from './facts.ts';
import type { Explainer, Mismatch } from './types.ts';
import { THREE_ZONES, exampleNode, examplePod } from './example-objects.ts';
import {
  describePod,
  describeRequirement,
  describeValues,
  isOpenFor,
  listNames,
  meetsAll,
  meetsRequirement,
  podRequirements,
  schedulerSays,
} from './node-fit.ts';

const ID = 'node-selector-matches-no-node';

function explain({ pod, nodes, schedulingMessage }: MismatchFacts): Mismatch | undefined {
  if (!pod || !nodes || nodes.length === 0) return undefined;
  const asked = podRequirements(pod);
  if (asked.length === 0) return undefined;
  const open = nodes.filter((node) => isOpenFor(node, pod));
  if (
    open.some((node) =>
      meetsAll(
        node,
        asked.map(({ requirement }) => requirement),
      ),
    )
  )
    return undefined;
  const alone = asked.filter(({ requirement }) => !open.some((node) => meetsRequirement(node, requirement)));
  const evidence: string[] = [];
  for (const ask of alone) {
    const { key } = ask.requirement;
    const carried = describeValues(open, key);
    const nodeSide =
      key === 'metadata.name'
        ? `the nodes are ${carried}`
        : carried
          ? `the nodes carry ${key}=${carried}`
          : `no schedulable node has the label ${key}`;
    evidence.push(
      `${describePod(pod)} asks with its ${ask.origin} for ${describeRequirement(ask)}, but no schedulable node has it: ${nodeSide}.`,
    );
    const closed = nodes.filter((node) => !open.includes(node) && meetsRequirement(node, ask.requirement));
    if (closed.length > 0) evidence.push(`Only cordoned nodes meet it: ${listNames(closed.map((node) => node.name))}.`);
  }
  if (alone.length === 0)
    evidence.push(
      `${describePod(pod)} asks for ${asked.map(describeRequirement).join(' and ')}; each is met by some node, but no single schedulable node meets them all.`,
    );
  evidence.push(...schedulerSays(schedulingMessage));
  const first = (alone[0] ?? asked[0])!;
  evidence.push(
    `Correct the ${first.origin} in the pod template${pod.owner ? ` of ${pod.owner.kind} ${pod.owner.name}` : ''}, or label a node to match (kubectl label node <node> ${first.requirement.key}=${first.requirement.values?.[0] ?? '<value>'}) if the pod is right.`,
  );
  const unmet = alone.length > 0 ? alone : asked;
  return {
    id: ID,
    evidence,
    sides: {
      expected: unmet.map(describeRequirement).join(', '),
      actual: unmet
        .map(({ requirement }) => `nodes: ${describeValues(open, requirement.key) ?? `no ${requirement.key}`}`)
        .join('; '),
    },
  };
}

const gpuNodes = [
  ...THREE_ZONES,
  exampleNode('ip-10-0-2-201.eu-west-1.compute.internal', {
    zone: 'eu-west-1b',
    labels: { 'node.kubernetes.io/instance-type': 'g5.xlarge', 'karpenter.k8s.aws/instance-gpu-name': 'a10g' },
  }),
];
const worker = (options: Parameters<typeof examplePod>[1]) =>
  examplePod('embedding-worker', { namespace: 'ml', ...options });

export const NODE_SELECTOR: Explainer = {
  id: ID,
  compares: 'Pod nodeSelector / required node affinity ↔ node labels',
  means:
    'The pod may only run on nodes with a label no schedulable node carries, so it stays Pending; a typo in a value, a renamed node group or a node pool that was removed.',
  source:
    "Pod spec.nodeSelector and spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution against node metadata.labels; the scheduler's \"didn't match Pod's node affinity/selector\"",
  explain,
  examples: {
    match: [
      {
        facts: {
          pod: worker({ nodeSelector: { 'node.kubernetes.io/instance-type': 'g5.2xlarge' } }),
          nodes: gpuNodes,
          schedulingMessage: "0/4 nodes are available: 4 node(s) didn't match Pod's node affinity/selector.",
        },
        says: [
          /asks with its nodeSelector for node\.kubernetes\.io\/instance-type=g5\.2xlarge/,
          /the nodes carry node\.kubernetes\.io\/instance-type=m6i\.xlarge \(3 nodes\), g5\.xlarge \(1 node\)/,
          /didn't match Pod's node affinity/,
        ],
      },
      {
        facts: {
          pod: worker({
            requiredNodeAffinity: [
              { key: 'karpenter.k8s.aws/instance-gpu-name', operator: 'In', values: ['a100', 'h100'] },
            ],
          }),
          nodes: THREE_ZONES,
        },
        says: [
          /required node affinity for karpenter\.k8s\.aws\/instance-gpu-name in \[a100, h100\]/,
          /no schedulable node has the label karpenter\.k8s\.aws\/instance-gpu-name/,
        ],
      },
      {
        facts: {
          pod: worker({
            nodeSelector: {
              'node.kubernetes.io/instance-type': 'g5.xlarge',
              'topology.kubernetes.io/zone': 'eu-west-1a',
            },
          }),
          nodes: gpuNodes,
        },
        says: [/each is met by some node, but no single schedulable node meets them all/],
      },
      {
        facts: {
          pod: worker({ nodeSelector: { 'node.kubernetes.io/instance-type': 'g5.xlarge' } }),
          nodes: [...THREE_ZONES, { ...gpuNodes[3]!, unschedulable: true }],
        },
        says: [/Only cordoned nodes meet it: ip-10-0-2-201/],
      },
    ],
    noMatch: [
      { pod: worker({ nodeSelector: { 'node.kubernetes.io/instance-type': 'g5.xlarge' } }), nodes: gpuNodes },
      {
        pod: worker({
          requiredNodeAffinity: [{ key: 'topology.kubernetes.io/zone', operator: 'NotIn', values: ['eu-west-1a'] }],
        }),
        nodes: THREE_ZONES,
      },
      { pod: worker({}), nodes: THREE_ZONES },
      { pod: worker({ nodeSelector: { 'kubernetes.io/arch': 'amd64' } }), nodes: THREE_ZONES },
    ],
  },
};
