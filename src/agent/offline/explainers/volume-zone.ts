/**
 * PersistentVolume node affinity ↔ the nodes' zones: the volume can only be attached in
 * a zone (or on a host) where no schedulable node is, so the pod that mounts it cannot
 * schedule ("volume node affinity conflict").
 */
import type { MismatchFacts, NodeRequirement } from './facts.ts';
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
  schedulerSays,
} from './node-fit.ts';

const ID = 'volume-zone-has-no-node';
const ZONE = 'topology.kubernetes.io/zone';
const LEGACY_ZONE = 'failure-domain.beta.kubernetes.io/zone';
const OTHER_ZONE_KEY: Readonly<Record<string, string>> = { [ZONE]: LEGACY_ZONE, [LEGACY_ZONE]: ZONE };

function explain({ volume, nodes, pod, schedulingMessage }: MismatchFacts): Mismatch | undefined {
  if (!volume || !nodes || nodes.length === 0 || volume.nodeAffinity.length === 0) return undefined;
  const schedulable = nodes.filter((node) => isOpenFor(node, pod));
  // The scheduler's "volume node affinity conflict" outweighs a node list read later: set the volume against the nodes outside its zone.
  const fitting = schedulable.filter((node) => meetsAll(node, volume.nodeAffinity));
  const conflict = schedulingMessage !== undefined && /volume node affinity conflict/i.test(schedulingMessage);
  if (fitting.length > 0 && !conflict) return undefined;
  const open = schedulable.filter((node) => !fitting.includes(node));
  if (open.length === 0) return undefined;
  const alone = volume.nodeAffinity.filter((requirement) => !open.some((node) => meetsRequirement(node, requirement)));
  const unmet: readonly NodeRequirement[] = alone.length > 0 ? alone : volume.nodeAffinity;
  const who = `PersistentVolume ${volume.volume} (claim ${volume.claim}${pod ? `, mounted by ${describePod(pod).replace(/^Pod /, 'pod ')}` : ''})`;
  const evidence: string[] = [];
  for (const requirement of unmet) {
    const kind = OTHER_ZONE_KEY[requirement.key]
      ? 'zone'
      : requirement.key === 'kubernetes.io/hostname'
        ? 'node'
        : 'label';
    const carried = describeValues(open, requirement.key);
    const nodeSide = !carried
      ? `no schedulable node has the label ${requirement.key}`
      : kind === 'node'
        ? `the schedulable nodes are ${carried}`
        : `the nodes are in ${kind === 'zone' ? 'zones ' : ''}${carried}`;
    evidence.push(
      `${who} can only attach where ${describeRequirement({ requirement })}, but no schedulable node is there: ${nodeSide}.`,
    );
    const otherKey = OTHER_ZONE_KEY[requirement.key];
    const underOtherKey = otherKey
      ? open.filter((node) => meetsRequirement(node, { ...requirement, key: otherKey }))
      : [];
    if (otherKey && underOtherKey.length > 0)
      evidence.push(
        `Nodes ${listNames(underOtherKey.map((node) => node.name))} are in that zone under the label ${otherKey}, not ${requirement.key}: the volume and the nodes use different zone labels.`,
      );
    const closed = nodes.filter((node) => !schedulable.includes(node) && meetsRequirement(node, requirement));
    if (closed.length > 0)
      evidence.push(`Nodes ${listNames(closed.map((node) => node.name))} meet it but are cordoned.`);
  }
  if (fitting.length > 0)
    evidence.push(
      `Nodes ${listNames(fitting.map((node) => node.name))} meet it now, but the scheduler found none that did when it last tried: they may have joined since, or another rule keeps the pod off them.`,
    );
  evidence.push(...schedulerSays(schedulingMessage));
  evidence.push(
    unmet.some((requirement) => requirement.key === 'kubernetes.io/hostname')
      ? 'A local volume lives on one node: bring that node back (or uncordon it), or delete the claim and its volume so that the pod gets a new one, which loses the data on it.'
      : 'A volume cannot follow the pod to another zone: bring a node up where the volume is (let the node group scale into that zone, or uncordon), or restore the data from a snapshot into a zone that has nodes.',
  );
  return {
    id: ID,
    evidence,
    sides: {
      expected: unmet.map((requirement) => describeRequirement({ requirement })).join(', '),
      actual: unmet
        .map((requirement) => `nodes: ${describeValues(open, requirement.key) ?? `no ${requirement.key}`}`)
        .join('; '),
    },
  };
}

const inZone = (key: string, zone: string): NodeRequirement[] => [{ key, operator: 'In', values: [zone] }];
const pod = examplePod('postgres', {
  name: 'postgres-0',
  namespace: 'orders',
  labels: { app: 'postgres', 'statefulset.kubernetes.io/pod-name': 'postgres-0' },
  owner: { kind: 'StatefulSet', name: 'postgres' },
});
const volume = (nodeAffinity: NodeRequirement[]) => ({
  claim: 'data-postgres-0',
  volume: 'pvc-3f1c9a2e-8b7d-4c61-9e0a-5d2b7f14c8e3',
  nodeAffinity,
});
const outsideA = THREE_ZONES.filter((node) => node.labels[ZONE] !== 'eu-west-1a');
const message =
  '0/2 nodes are available: 2 node(s) had volume node affinity conflict. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.';

export const VOLUME_ZONE: Explainer = {
  id: ID,
  compares: 'PersistentVolume node affinity ↔ node zones',
  means:
    "The pod's volume lives in a zone (or on a host) where no node can take the pod, so it stays Pending until a node exists there.",
  source:
    "PersistentVolume spec.nodeAffinity.required (set by the EBS/PD/Azure Disk CSI driver, or a local volume's host) against the nodes' topology.kubernetes.io/zone labels; the scheduler's \"volume node affinity conflict\"",
  explain,
  examples: {
    match: [
      {
        facts: { pod, volume: volume(inZone(ZONE, 'eu-west-1a')), nodes: outsideA, schedulingMessage: message },
        says: [
          /pvc-3f1c9a2e.* \(claim data-postgres-0, mounted by pod orders\/postgres-0 \(StatefulSet postgres\)\) can only attach where topology\.kubernetes\.io\/zone in \[eu-west-1a\]/,
          /the nodes are in zones eu-west-1b \(1 node\), eu-west-1c \(1 node\)/,
          /volume node affinity conflict/,
        ],
      },
      {
        facts: { pod, volume: volume(inZone(LEGACY_ZONE, 'eu-west-1a')), nodes: THREE_ZONES },
        says: [
          /failure-domain\.beta\.kubernetes\.io\/zone in \[eu-west-1a\]/,
          /no schedulable node has the label failure-domain/,
          /ip-10-0-1-23\.eu-west-1\.compute\.internal are in that zone under the label topology\.kubernetes\.io\/zone/,
        ],
      },
      {
        facts: {
          pod,
          volume: volume(inZone(ZONE, 'eu-west-1a')),
          nodes: [
            ...outsideA,
            exampleNode('ip-10-0-1-56.eu-west-1.compute.internal', { zone: 'eu-west-1a', unschedulable: true }),
          ],
        },
        says: [
          /zones eu-west-1b \(1 node\), eu-west-1c \(1 node\)/,
          /ip-10-0-1-56\.eu-west-1\.compute\.internal meet it but are cordoned/,
        ],
      },
      {
        facts: {
          volume: {
            claim: 'data-kafka-2',
            volume: 'local-pv-9d3e1f7a',
            nodeAffinity: inZone('kubernetes.io/hostname', 'ip-10-0-2-14.eu-west-1.compute.internal'),
          },
          nodes: THREE_ZONES,
        },
        says: [
          /kubernetes\.io\/hostname in \[ip-10-0-2-14\.eu-west-1\.compute\.internal\]/,
          /the schedulable nodes are ip-10-0-1-23\.eu-west-1\.compute\.internal, ip-10-0-2-87/,
          /A local volume lives on one node/,
        ],
      },
      {
        // The scheduler said so: a node in the volume's zone listed now does not undo its verdict.
        facts: { pod, volume: volume(inZone(ZONE, 'eu-west-1a')), nodes: THREE_ZONES, schedulingMessage: message },
        says: [
          /can only attach where topology\.kubernetes\.io\/zone in \[eu-west-1a\]/,
          /eu-west-1b \(1 node\), eu-west-1c \(1 node\)/,
          /ip-10-0-1-23\.eu-west-1\.compute\.internal meet it now, but the scheduler found none/,
        ],
      },
    ],
    noMatch: [
      { pod, volume: volume(inZone(ZONE, 'eu-west-1a')), nodes: THREE_ZONES },
      { pod, volume: volume(inZone(ZONE, 'eu-west-1b')), nodes: outsideA },
      // Dynamic volumes of a driver without topology have no node affinity.
      { pod, volume: volume([]), nodes: outsideA },
      { pod, volume: volume(inZone(ZONE, 'eu-west-1a')) },
    ],
  },
};
