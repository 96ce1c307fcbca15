/**
 * Pod requests ↔ each candidate node's free allocatable: no node the pod may use (selector,
 * affinity and taints passed, the pin respected) has room for what it requests. A DaemonSet
 * pod is pinned to one node, so only that node's room counts, however empty the others.
 */
import type { MismatchFacts, NodeFacts, PodFacts } from './facts.ts';
import type { Explainer, Mismatch } from './types.ts';
import { THREE_ZONES, exampleContainer, exampleNode, examplePod } from './example-objects.ts';
import { candidateNodes, describePod, listNames, pinnedNode, schedulerSays } from './node-fit.ts';
import { formatAmount, readAmount } from './quantity.ts';

const ID = 'requests-exceed-node-room';

interface Shortfall {
  readonly resource: string;
  readonly asked: number;
  readonly free: number;
  readonly allocatable: number;
  readonly requested: number;
}

/** The pod's requests summed over its containers, as amounts; plus the one pod slot it takes where the node counts pods. */
function podAsks(pod: PodFacts): Map<string, number> {
  const asks = new Map<string, number>();
  for (const container of pod.containers) {
    for (const [resource, quantity] of Object.entries(container.requests ?? {})) {
      const amount = readAmount(resource, quantity);
      if (amount !== undefined) asks.set(resource, (asks.get(resource) ?? 0) + amount);
    }
  }
  return asks;
}

function shortfallsOn(node: NodeFacts, asks: ReadonlyMap<string, number>): Shortfall[] {
  const wanted = new Map(asks);
  if (node.allocatable.pods !== undefined && node.requested?.pods !== undefined) wanted.set('pods', 1);
  const short: Shortfall[] = [];
  for (const [resource, asked] of wanted) {
    const offered = node.allocatable[resource];
    // A node that does not list an extended resource (a GPU) has none of it; a missing cpu or memory is unknown, not zero.
    if (offered === undefined && !resource.includes('/')) continue;
    const allocatable = offered === undefined ? 0 : (readAmount(resource, offered) ?? 0);
    const requested = readAmount(resource, node.requested?.[resource] ?? '0') ?? 0;
    const free = Math.max(0, allocatable - requested);
    if (asked > free) short.push({ resource, asked, free, allocatable, requested });
  }
  return short;
}

function describeShortfall({ resource, asked, free, allocatable, requested }: Shortfall): string {
  const format = (amount: number) => formatAmount(resource, amount);
  if (resource === 'pods')
    return `pods: ${format(requested)} of ${format(allocatable)} pod slots in use, none left for this pod`;
  return `${resource}: the pod requests ${format(asked)}, ${format(free)} free (${format(allocatable)} allocatable, ${format(requested)} requested by its pods), short by ${format(asked - free)}`;
}

function explain({ pod, nodes, schedulingMessage }: MismatchFacts): Mismatch | undefined {
  if (!pod || !nodes) return undefined;
  const asks = podAsks(pod);
  if (asks.size === 0) return undefined;
  const candidates = candidateNodes(pod, nodes);
  if (candidates.length === 0) return undefined;
  const all = candidates.map((node) => ({ node, shortfalls: shortfallsOn(node, asks) }));
  const roomy = all.filter(({ shortfalls }) => shortfalls.length === 0).map(({ node }) => node.name);
  // Room on a node the scheduler's last word did not count ("0/4 nodes are available: 4 Insufficient cpu" with more
  // nodes now): those nodes came, or freed room, after its last attempt; the ones it counted are still short.
  if (roomy.length > 0 && !(schedulerCountsEveryNodeShort(schedulingMessage) && roomy.length < all.length))
    return undefined;
  const short = all.filter(({ shortfalls }) => shortfalls.length > 0);
  const pin = pinnedNode(pod);
  const evidence: string[] = [];
  if (pin) {
    const [{ node, shortfalls }] = short as [(typeof short)[number]];
    evidence.push(
      `${describePod(pod)} is pinned to node ${node.name} (${pin.by}) and does not fit there: ${shortfalls.map(describeShortfall).join('; ')}.`,
    );
    const others = nodes.filter((other) => other.name !== node.name);
    if (others.length > 0)
      evidence.push(
        `Room on the other ${others.length} ${others.length === 1 ? 'node' : 'nodes'} (${listNames(
          others.map((other) => other.name),
          2,
        )}) does not help: ${pod.owner?.kind === 'DaemonSet' ? 'a DaemonSet pod runs only on the node it was created for' : 'the pod may run on no other node'}, so "didn't match Pod's node affinity/selector" for them is expected.`,
      );
  } else {
    evidence.push(
      roomy.length === 0
        ? `No node that ${describePod(pod).replace(/^Pod /, 'pod ')} may use has room for its requests.`
        : `The scheduler's last attempt found no room for ${describePod(pod).replace(/^Pod /, 'pod ')}; ${listNames(roomy, 3)} ${roomy.length === 1 ? 'has' : 'have'} room now (added or freed since), the nodes below do not.`,
    );
    for (const { node, shortfalls } of short.slice(0, 5))
      evidence.push(`Node ${node.name}: ${shortfalls.map(describeShortfall).join('; ')}.`);
    if (short.length > 5) evidence.push(`${short.length - 5} more candidate nodes are short as well.`);
  }
  evidence.push(...schedulerSays(schedulingMessage));
  const resources = [...new Set(short.flatMap(({ shortfalls }) => shortfalls.map((shortfall) => shortfall.resource)))];
  const requests = resources.filter((resource) => resource !== 'pods');
  if (pin && pod.owner?.kind === 'DaemonSet')
    evidence.push(
      `Free ${resources.join(' and ')} on ${pin.name} (move or shrink pods there), lower the DaemonSet's requests, or give it a priorityClassName such as system-node-critical so it can preempt.`,
    );
  else if (requests.length === 0)
    evidence.push(
      "The candidate nodes are at their pod limit (max pods): move pods off one, or add nodes that the pod's selector and tolerations allow.",
    );
  else
    evidence.push(
      `Lower the pod's ${requests.join(' and ')} requests, free room on a candidate node, or add nodes that its selector and tolerations allow (the autoscaler must be able to make them).`,
    );
  const closest = short.reduce((best, next) => (next.shortfalls.length < best.shortfalls.length ? next : best));
  return {
    id: ID,
    evidence,
    sides: {
      expected: closest.shortfalls
        .map((shortfall) => `${shortfall.resource} ${formatAmount(shortfall.resource, shortfall.asked)}`)
        .join(', '),
      actual: `${closest.shortfalls.map((shortfall) => `${shortfall.resource} ${formatAmount(shortfall.resource, shortfall.free)}`).join(', ')} free on ${closest.node.name}`,
    },
  };
}

/** The scheduler's message says every node it counted lacks a resource: `0/4 nodes are available: 4 Insufficient cpu`. */
function schedulerCountsEveryNodeShort(message: string | undefined): boolean {
  const match = /\b0\/(\d+) nodes are available: (\d+) Insufficient [\w./-]+/.exec(message ?? '');
  return match !== null && match[1] === match[2];
}

const busy = (name: string, zone: string, requested: Record<string, string>) =>
  exampleNode(name, { zone, requested: { pods: '31', ...requested } });
const fullNodes = [
  busy('ip-10-0-1-23.eu-west-1.compute.internal', 'eu-west-1a', { cpu: '3610m', memory: '11264Mi' }),
  busy('ip-10-0-2-87.eu-west-1.compute.internal', 'eu-west-1b', { cpu: '2100m', memory: '13824Mi' }),
  busy('ip-10-0-3-142.eu-west-1.compute.internal', 'eu-west-1c', { cpu: '3850m', memory: '6Gi' }),
];
const search = examplePod('search-indexer', {
  containers: [exampleContainer('search-indexer', { requests: { cpu: '500m', memory: '2Gi' } })],
});
const agentNode = 'ip-10-0-3-142.eu-west-1.compute.internal';
const agent = examplePod('datadog-agent', {
  name: 'datadog-agent-x7k2p',
  namespace: 'monitoring',
  owner: { kind: 'DaemonSet', name: 'datadog-agent' },
  requiredNodeAffinity: [{ key: 'metadata.name', operator: 'In', values: [agentNode] }],
  tolerations: [
    'node.kubernetes.io/not-ready:NoExecute op=Exists',
    'node.kubernetes.io/unreachable:NoExecute op=Exists',
    'node.kubernetes.io/disk-pressure:NoSchedule op=Exists',
    'node.kubernetes.io/unschedulable:NoSchedule op=Exists',
  ],
  containers: [
    exampleContainer('agent', { image: 'gcr.io/datadoghq/agent:7.58.0', requests: { cpu: '200m', memory: '256Mi' } }),
    exampleContainer('trace-agent', {
      image: 'gcr.io/datadoghq/agent:7.58.0',
      requests: { cpu: '100m', memory: '128Mi' },
    }),
  ],
});
const trainer = examplePod('model-trainer', {
  namespace: 'ml',
  containers: [exampleContainer('trainer', { requests: { cpu: '2', memory: '8Gi', 'nvidia.com/gpu': '1' } })],
});
const emptyNodes = THREE_ZONES.map((node) => ({ ...node, requested: { cpu: '0', memory: '0' } }));

export const NODE_CAPACITY: Explainer = {
  id: ID,
  compares: 'Pod requests ↔ node free allocatable',
  means:
    'No node the pod may use has enough unrequested cpu, memory, pods or extended resource left, so it stays Pending until room is made or a node is added.',
  source:
    'Sum of spec.containers[].resources.requests against each candidate node\'s status.allocatable minus the requests of its pods ("Allocated resources" in kubectl describe node); the scheduler\'s "Insufficient cpu"',
  explain,
  examples: {
    match: [
      {
        facts: {
          pod: search,
          nodes: fullNodes,
          schedulingMessage: '0/3 nodes are available: 2 Insufficient cpu, 1 Insufficient memory.',
        },
        says: [
          /Node ip-10-0-1-23\.eu-west-1\.compute\.internal: cpu: the pod requests 500m, 310m free \(3920m allocatable, 3610m requested by its pods\), short by 190m/,
          /Node ip-10-0-2-87\.eu-west-1\.compute\.internal: memory: the pod requests 2Gi, 1.07Gi free .* short by 954Mi/,
          /Insufficient cpu/,
        ],
      },
      {
        facts: {
          pod: agent,
          nodes: [busy(agentNode, 'eu-west-1c', { cpu: '3810m', memory: '9Gi' }), ...emptyNodes.slice(0, 2)],
          schedulingMessage:
            "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match Pod's node affinity/selector.",
        },
        says: [
          /pinned to node ip-10-0-3-142\.eu-west-1\.compute\.internal \(required node affinity metadata\.name in \[ip-10-0-3-142\.eu-west-1\.compute\.internal\]\)/,
          /cpu: the pod requests 300m, 110m free .* short by 190m/,
          /other 2 nodes .* does not help: a DaemonSet pod runs only on the node it was created for/,
          /system-node-critical/,
        ],
      },
      {
        facts: { pod: trainer, nodes: emptyNodes },
        says: [/nvidia\.com\/gpu: the pod requests 1, 0 free \(0 allocatable/],
      },
      // The scheduler counted three nodes, all short; a fourth has room now: the three are still named, the fourth said to have come since.
      {
        facts: {
          pod: search,
          nodes: [
            ...fullNodes,
            ...emptyNodes.slice(0, 1).map((node) => ({ ...node, name: 'ip-10-0-9-9.eu-west-1.compute.internal' })),
          ],
          schedulingMessage: '0/3 nodes are available: 3 Insufficient cpu.',
        },
        says: [
          /ip-10-0-9-9\.eu-west-1\.compute\.internal has room now/,
          /Node ip-10-0-1-23\.eu-west-1\.compute\.internal: cpu: the pod requests 500m, 310m free/,
        ],
      },
      {
        facts: {
          pod: search,
          nodes: [
            exampleNode('ip-10-0-1-23.eu-west-1.compute.internal', {
              requested: { cpu: '1', memory: '2Gi', pods: '58' },
            }),
          ],
        },
        says: [/pods: 58 of 58 pod slots in use/, /at their pod limit/],
      },
    ],
    noMatch: [
      // A roomy node, and no scheduler's word that every node is short: the pod fits somewhere.
      { pod: search, nodes: [...fullNodes, ...emptyNodes.slice(0, 1)] },
      { pod: search, nodes: emptyNodes },
      // The DaemonSet's own node has room, whatever the others look like.
      { pod: agent, nodes: [busy(agentNode, 'eu-west-1c', { cpu: '1', memory: '4Gi' }), ...fullNodes.slice(0, 2)] },
      // No requests: nothing to fit.
      { pod: examplePod('search-indexer'), nodes: fullNodes },
      // The only roomy node is tainted: the taint row's finding, not a lack of room here.
      {
        pod: search,
        nodes: [
          exampleNode('ip-10-0-2-201.eu-west-1.compute.internal', { taints: ['nvidia.com/gpu=present:NoSchedule'] }),
        ],
      },
    ],
  },
};
