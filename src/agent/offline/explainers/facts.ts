/**
 * What the mismatch explainers read: one plain object the engine fills from tool results
 * (kubectl-style text where kubectl prints text). Every field is optional; an explainer
 * that lacks either side of what it compares stays silent rather than guess. The
 * explainers never fetch anything and never change this object.
 */

export type Labels = Readonly<Record<string, string>>;

/** Resource name to Kubernetes quantity, as the API prints it: `{ cpu: '500m', memory: '1Gi', 'nvidia.com/gpu': '1' }`. */
export type Quantities = Readonly<Record<string, string>>;

/**
 * One expression of a node selector term (a pod's required node affinity, or a
 * PersistentVolume's `spec.nodeAffinity.required`). The key `metadata.name` stands for a
 * `matchFields` expression on the node's name: how a DaemonSet pins its pod to one node.
 */
export interface NodeRequirement {
  readonly key: string;
  readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';
  readonly values?: readonly string[];
}

export interface ProbeFacts {
  readonly kind: 'liveness' | 'readiness' | 'startup';
  readonly handler: 'httpGet' | 'tcpSocket' | 'grpc' | 'exec';
  /** A number, or the name of one of the container's ports. Absent for exec probes. */
  readonly port?: number | string;
  /** httpGet only. */
  readonly path?: string;
}

export interface ContainerFacts {
  readonly name: string;
  readonly image: string;
  readonly command?: readonly string[];
  readonly args?: readonly string[];
  readonly ports: readonly { readonly name?: string; readonly containerPort: number }[];
  readonly requests?: Quantities;
  readonly probes: readonly ProbeFacts[];
}

export interface PodFacts {
  readonly name: string;
  readonly namespace: string;
  readonly labels: Labels;
  /** spec.nodeName: the node the pod is bound to. Pins the pod to that node. */
  readonly nodeName?: string;
  readonly nodeSelector?: Labels;
  /**
   * As `kubectl describe pod` prints them: `dedicated=gpu:NoSchedule`,
   * `node.kubernetes.io/not-ready:NoExecute op=Exists for 300s`, `op=Exists` (tolerates all).
   */
  readonly tolerations?: readonly string[];
  /** The expressions of the pod's required nodeSelectorTerm; all must hold (one term, not ORed terms). */
  readonly requiredNodeAffinity?: readonly NodeRequirement[];
  readonly containers: readonly ContainerFacts[];
  readonly owner?: { readonly kind: string; readonly name: string };
}

export interface NodeFacts {
  readonly name: string;
  readonly labels: Labels;
  /** As `kubectl describe node` prints them: `dedicated=gpu:NoSchedule`, `node.kubernetes.io/unschedulable:NoSchedule`. */
  readonly taints: readonly string[];
  readonly allocatable: Quantities;
  /** Sum of the requests of the pods already on the node, this pod excluded. Absent: taken as nothing requested. */
  readonly requested?: Quantities;
  /** Cordoned (spec.unschedulable). */
  readonly unschedulable?: boolean;
}

export interface ServiceFacts {
  readonly name: string;
  readonly namespace: string;
  /** Empty for a Service without a selector (endpoints kept by hand): the explainers leave it alone. */
  readonly selector: Labels;
  /** targetPort as the API holds it, filled with `port` where the manifest left it out. */
  readonly ports: readonly { readonly name?: string; readonly port: number; readonly targetPort: number | string }[];
}

export interface VolumeFacts {
  /** The PersistentVolumeClaim the pod mounts. */
  readonly claim: string;
  /** The PersistentVolume bound to it. */
  readonly volume: string;
  /** The PV's spec.nodeAffinity.required expressions (one term). */
  readonly nodeAffinity: readonly NodeRequirement[];
}

export interface ImageChange {
  readonly from: string;
  readonly to: string;
  /** The rollout revision (deployment.kubernetes.io/revision) that brought `to`. */
  readonly revision?: number;
}

export interface MismatchFacts {
  /** The pod under diagnosis. */
  readonly pod?: PodFacts;
  /** The cluster's nodes (all of them, not only the pod's). */
  readonly nodes?: readonly NodeFacts[];
  /** The Service that should reach the pod. */
  readonly service?: ServiceFacts;
  /** Every pod of the Service's namespace, for selector near misses. */
  readonly namespacePods?: readonly { readonly name: string; readonly labels: Labels }[];
  /** The claimed volume of the pod that does not schedule. */
  readonly volume?: VolumeFacts;
  /** The FailedScheduling event / PodScheduled condition message, quoted as corroboration. */
  readonly schedulingMessage?: string;
  /** The failing container's log, plus its waiting/termination message. */
  readonly logLines?: readonly string[];
  /** The container `logLines` and `listeningPorts` come from. Absent: the pod's only container. */
  readonly logContainer?: string;
  /** The image change of the newest rollout revision. */
  readonly imageChange?: ImageChange;
  /** Ports the log says the process listens on ("listening on :8080"). */
  readonly listeningPorts?: readonly number[];
  /** Ports the kubelet's probes were refused on (connection refused): nothing listened there. */
  readonly refusedProbePorts?: readonly number[];
}
