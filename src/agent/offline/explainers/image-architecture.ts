/**
 * Image architecture ↔ the nodes' kubernetes.io/arch: the container's binary fails with
 * "exec format error", built for another CPU than the node it runs on.
 */
import type { MismatchFacts, NodeFacts } from './facts.ts';
import type { Explainer, Mismatch } from './types.ts';
import { THREE_ZONES, exampleContainer, exampleNode, examplePod } from './example-objects.ts';
import { logContainerOf } from './log-container.ts';
import { listNames } from './node-fit.ts';

const ID = 'image-architecture-not-node';
const ARCH_IN_REFERENCE =
  /(?:^|[^a-z0-9])(arm64v8|arm64|aarch64|amd64|x86_64|x86-64|arm32v7|armv7|armhf|ppc64le|s390x)(?=[^a-z0-9]|$)/i;
const ARCH_NAMES: Readonly<Record<string, string>> = {
  arm64v8: 'arm64',
  aarch64: 'arm64',
  x86_64: 'amd64',
  'x86-64': 'amd64',
  arm32v7: 'arm',
  armv7: 'arm',
  armhf: 'arm',
};

/** The architecture an image reference names in its repository or tag (`api:1.4.2-arm64`, `arm64v8/nginx`). */
export function archInImage(reference: string | undefined): string | undefined {
  const named = reference ? ARCH_IN_REFERENCE.exec(reference)?.[1]?.toLowerCase() : undefined;
  return named ? (ARCH_NAMES[named] ?? named) : undefined;
}

function archOf(node: NodeFacts): string | undefined {
  return node.labels['kubernetes.io/arch'] ?? node.labels['beta.kubernetes.io/arch'];
}

function explain(facts: MismatchFacts): Mismatch | undefined {
  const line = facts.logLines?.find((text) => /exec format error/i.test(text));
  if (!line || !facts.nodes) return undefined;
  const own = facts.pod?.nodeName ? facts.nodes.filter((node) => node.name === facts.pod?.nodeName) : [];
  const nodes = (own.length > 0 ? own : facts.nodes).filter((node) => archOf(node) !== undefined);
  if (nodes.length === 0) return undefined;
  const arches = [...new Set(nodes.map((node) => archOf(node)!))];
  const nodeSide =
    own.length > 0
      ? `node ${own[0]!.name} (kubernetes.io/arch=${arches[0]})`
      : `the nodes (${arches
          .map(
            (arch) =>
              `kubernetes.io/arch=${arch} on ${listNames(
                nodes.filter((node) => archOf(node) === arch).map((node) => node.name),
                2,
              )}`,
          )
          .join('; ')})`;
  const container = logContainerOf(facts);
  const image = container?.image ?? facts.imageChange?.to;
  const imageArch = archInImage(image) ?? archInImage(facts.imageChange?.to);
  const evidence = [
    `Container ${container?.name ?? 'of the pod'} cannot run its binary ("${line.trim()}"): exec format error means the binary was built for another CPU architecture than ${nodeSide}.`,
  ];
  if (image && imageArch && !arches.includes(imageArch))
    evidence.push(
      `The image ${image} names ${imageArch} in its reference, while the ${own.length > 0 ? 'node is' : 'nodes are'} ${arches.join(', ')}.`,
    );
  if (image && imageArch && own.length > 0 && arches.includes(imageArch))
    evidence.push(
      `The image ${image} names ${imageArch} like the node, so look at the file itself: a script without a #! line fails the same way.`,
    );
  if (facts.imageChange)
    evidence.push(
      `The newest rollout${facts.imageChange.revision !== undefined ? ` (revision ${facts.imageChange.revision})` : ''} changed the image from ${facts.imageChange.from} to ${facts.imageChange.to}: check which platforms ${facts.imageChange.to} was built for (docker buildx imagetools inspect ${facts.imageChange.to}).`,
    );
  const runsOnImageArch = imageArch ? facts.nodes.some((node) => archOf(node) === imageArch) : false;
  evidence.push(
    `Build the image for linux/${arches.join(' and linux/')} (a multi-arch manifest)${runsOnImageArch ? `, or pin the pod to the ${imageArch} nodes with nodeSelector kubernetes.io/arch=${imageArch}` : ''}, or roll back to an image that ran.`,
  );
  return {
    id: ID,
    evidence,
    sides: {
      expected: `linux/${arches.join(', linux/')} (${own.length > 0 ? `node ${own[0]!.name}` : 'the nodes'})`,
      actual:
        imageArch && !arches.includes(imageArch)
          ? `image ${image} built for ${imageArch}`
          : `image ${image ?? 'of the container'}, not runnable there`,
    },
  };
}

const registry = '123456789012.dkr.ecr.eu-west-1.amazonaws.com/payments/ledger';
const nodeName = 'ip-10-0-2-87.eu-west-1.compute.internal';
const ledger = (image: string) =>
  examplePod('ledger', { namespace: 'payments', nodeName, containers: [exampleContainer('ledger', { image })] });
const mixed = [
  ...THREE_ZONES,
  exampleNode('ip-10-0-4-201.eu-west-1.compute.internal', { arch: 'arm64', zone: 'eu-west-1b' }),
];

export const IMAGE_ARCHITECTURE: Explainer = {
  id: ID,
  compares: 'Image architecture ↔ node kubernetes.io/arch',
  means:
    "The image holds a binary for another CPU than the node's, typically an image built on an Apple Silicon laptop (arm64) running on amd64 nodes, so the container exits at once.",
  source:
    'The runtime\'s "exec /x: exec format error" in the container log or termination message, against the node\'s kubernetes.io/arch label and the image reference',
  explain,
  examples: {
    match: [
      {
        facts: {
          pod: ledger(`${registry}:3.2.0-arm64`),
          nodes: THREE_ZONES,
          logLines: ['exec /app/ledger: exec format error'],
        },
        says: [
          /"exec \/app\/ledger: exec format error"/,
          /node ip-10-0-2-87\.eu-west-1\.compute\.internal \(kubernetes\.io\/arch=amd64\)/,
          /ledger:3\.2\.0-arm64 names arm64 .* while the node is amd64/,
        ],
      },
      {
        facts: {
          pod: ledger(`${registry}:3.2.0`),
          nodes: THREE_ZONES,
          logLines: ['exec /app/ledger: exec format error'],
          imageChange: { from: `${registry}:3.1.4`, to: `${registry}:3.2.0`, revision: 14 },
        },
        says: [
          /kubernetes\.io\/arch=amd64/,
          /revision 14\) changed the image from .*ledger:3\.1\.4 to .*ledger:3\.2\.0/,
          /imagetools inspect/,
        ],
      },
      {
        facts: {
          pod: ledger('docker.io/arm64v8/nginx:1.27'),
          nodes: mixed,
          logLines: ['standard_init_linux.go:228: exec user process caused: exec format error'],
        },
        says: [/arm64v8\/nginx:1\.27 names arm64/, /nodeSelector kubernetes\.io\/arch=arm64/],
      },
      {
        facts: {
          pod: { ...ledger(`${registry}:3.2.0`), nodeName: undefined },
          nodes: mixed,
          logLines: ['exec /app/ledger: exec format error'],
        },
        says: [
          /the nodes \(kubernetes\.io\/arch=amd64 on ip-10-0-1-23\.eu-west-1\.compute\.internal, ip-10-0-2-87\.eu-west-1\.compute\.internal and 1 more; kubernetes\.io\/arch=arm64 on ip-10-0-4-201/,
          /linux\/amd64 and linux\/arm64/,
        ],
      },
    ],
    noMatch: [
      {
        pod: ledger(`${registry}:3.2.0-arm64`),
        nodes: THREE_ZONES,
        logLines: ['{"level":"info","msg":"ledger listening on :8080"}'],
      },
      {
        pod: ledger(`${registry}:3.2.0`),
        nodes: THREE_ZONES,
        logLines: ['exec /app/ledger: no such file or directory'],
      },
      // Nothing known of the nodes: only one side.
      { pod: ledger(`${registry}:3.2.0-arm64`), logLines: ['exec /app/ledger: exec format error'] },
    ],
  },
};
