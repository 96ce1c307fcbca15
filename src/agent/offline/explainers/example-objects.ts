/**
 * Builders for the objects in the table's examples, so each example states only what its
 * row compares and the rest reads like a real EKS cluster in eu-west-1.
 */
import type { ContainerFacts, NodeFacts, PodFacts } from './facts.ts';

type NodeOptions = Partial<Omit<NodeFacts, 'name'>> & { readonly zone?: string; readonly arch?: string };

/** A worker node: m6i.xlarge, amd64, eu-west-1a, untainted, empty, unless told otherwise. */
export function exampleNode(name: string, options: NodeOptions = {}): NodeFacts {
  const { zone = 'eu-west-1a', arch = 'amd64', labels = {}, ...rest } = options;
  return {
    name,
    labels: {
      'kubernetes.io/hostname': name,
      'kubernetes.io/os': 'linux',
      'kubernetes.io/arch': arch,
      'topology.kubernetes.io/region': 'eu-west-1',
      'topology.kubernetes.io/zone': zone,
      'node.kubernetes.io/instance-type': arch === 'arm64' ? 'm7g.xlarge' : 'm6i.xlarge',
      'eks.amazonaws.com/nodegroup': arch === 'arm64' ? 'general-arm' : 'general',
      ...labels,
    },
    taints: [],
    allocatable: { cpu: '3920m', memory: '14918Mi', pods: '58', 'ephemeral-storage': '76224326324' },
    ...rest,
  };
}

export function exampleContainer(name: string, options: Partial<Omit<ContainerFacts, 'name'>> = {}): ContainerFacts {
  return {
    name,
    image: `123456789012.dkr.ecr.eu-west-1.amazonaws.com/shop/${name}:1.8.2`,
    ports: [],
    probes: [],
    ...options,
  };
}

/** A Deployment pod with the kubelet's default tolerations and one container named after the app. */
export function examplePod(app: string, options: Partial<PodFacts> = {}): PodFacts {
  return {
    name: `${app}-7c9d5b6f4-2xkqp`,
    namespace: 'shop',
    labels: { app, 'pod-template-hash': '7c9d5b6f4' },
    tolerations: [
      'node.kubernetes.io/not-ready:NoExecute op=Exists for 300s',
      'node.kubernetes.io/unreachable:NoExecute op=Exists for 300s',
    ],
    containers: [exampleContainer(app)],
    owner: { kind: 'ReplicaSet', name: `${app}-7c9d5b6f4` },
    ...options,
  };
}

/** The three general nodes of the example cluster, one per zone. */
export const THREE_ZONES: readonly NodeFacts[] = [
  exampleNode('ip-10-0-1-23.eu-west-1.compute.internal', { zone: 'eu-west-1a' }),
  exampleNode('ip-10-0-2-87.eu-west-1.compute.internal', { zone: 'eu-west-1b' }),
  exampleNode('ip-10-0-3-142.eu-west-1.compute.internal', { zone: 'eu-west-1c' }),
];
