/**
 * The reasons in the scheduler's FailedScheduling message ("0/3 nodes are available:
 * 3 Insufficient memory, 1 node(s) had untolerated taint ..."), each mapped to why no node
 * took the pod: not enough resources, placement rules, or an unbound volume claim.
 */
import type { Row } from './types.ts';

export type SchedulingVerdict = 'unschedulable-resources' | 'unschedulable-placement' | 'pvc-unbound';

export interface SchedulingReason extends Row {
  readonly verdict: SchedulingVerdict;
}

export const SCHEDULING_REASONS: readonly SchedulingReason[] = [
  {
    id: 'scheduling-pvc-unbound',
    verdict: 'pvc-unbound',
    pattern:
      /unbound (immediate )?PersistentVolumeClaim|persistentvolumeclaim ".*" not found|node\(s\) didn't find available persistent volumes|waiting for first consumer|running PreBind plugin "VolumeBinding": binding volumes/i,
    means: 'A volume claim of the pod is not bound (or missing), so no node can take it yet.',
    source:
      "kube-scheduler VolumeBinding plugin: pod has unbound immediate PersistentVolumeClaims; node(s) didn't find available persistent volumes to bind",
    examples: {
      match: [
        'pod has unbound immediate PersistentVolumeClaims',
        "3 node(s) didn't find available persistent volumes to bind",
        'running PreBind plugin "VolumeBinding": binding volumes: context deadline exceeded',
      ],
      noMatch: ['3 node(s) had volume node affinity conflict'],
    },
  },
  {
    id: 'scheduling-insufficient-resources',
    verdict: 'unschedulable-resources',
    pattern: /Insufficient [\w./-]+|Too many pods|didn't have free ports|exceed(s|ed)? .*(allocatable|capacity)/i,
    means: "The nodes lack free CPU, memory, GPUs, pod slots or host ports for the pod's requests.",
    source:
      "kube-scheduler NodeResourcesFit and NodePorts plugins: 3 Insufficient memory; 1 Too many pods; 2 node(s) didn't have free ports for the requested pod ports",
    examples: {
      match: ['3 Insufficient nvidia.com/gpu', "2 node(s) didn't have free ports for the requested pod ports"],
      noMatch: ["2 node(s) didn't match Pod's node affinity/selector"],
    },
  },
  {
    id: 'scheduling-placement-rules',
    verdict: 'unschedulable-placement',
    pattern:
      /didn't match Pod's node affinity|node affinity\/selector|didn't match node selector|untolerated taint|had taint|didn't match pod (anti-)?affinity|pod (anti-)?affinity rules|didn't satisfy existing pods anti-affinity|didn't match pod topology spread|node\(s\) were unschedulable|node is unschedulable|volume node affinity conflict/i,
    means: 'Placement rules exclude the nodes: selectors, affinity, taints, topology spread, or cordoned nodes.',
    source:
      "kube-scheduler NodeAffinity, TaintToleration, InterPodAffinity, PodTopologySpread, NodeUnschedulable and VolumeZone plugins: 1 node(s) had untolerated taint {x: }; 2 node(s) didn't match Pod's node affinity/selector",
    examples: {
      match: [
        '1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }',
        '3 node(s) were unschedulable',
      ],
      noMatch: ['3 Insufficient cpu'],
    },
  },
];
