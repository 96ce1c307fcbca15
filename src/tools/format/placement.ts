/**
 * Where a pod may run, as text a model can set against the nodes: node affinity terms with
 * their keys and values, pod (anti-)affinity with its selector and topology key, and the
 * pod facts kubectl shows beside them (labels a selector matches, the container runtime).
 */
import type {
  V1Affinity,
  V1NodeSelector,
  V1NodeSelectorRequirement,
  V1Pod,
  V1PodAffinityTerm,
} from '@kubernetes/client-node';
import { formatLabelSelector } from './selectors.ts';

/** `topology.kubernetes.io/zone in (eu-west-1a,eu-west-1b)`, as a nodeSelectorTerm's expression reads. */
function formatRequirement(requirement: V1NodeSelectorRequirement): string {
  const values = (requirement.values ?? []).join(',');
  switch (requirement.operator) {
    case 'In':
      return `${requirement.key} in (${values})`;
    case 'NotIn':
      return `${requirement.key} notin (${values})`;
    case 'Exists':
      return requirement.key;
    case 'DoesNotExist':
      return `!${requirement.key}`;
    case 'Gt':
      return `${requirement.key}>${values}`;
    case 'Lt':
      return `${requirement.key}<${values}`;
    default:
      return `${requirement.key} ${requirement.operator} (${values})`;
  }
}

/** A required node selector's terms (a PV's `spec.nodeAffinity.required`): terms are alternatives, joined by `or`. */
export function formatNodeSelector(selector: V1NodeSelector | undefined): string | undefined {
  const terms = (selector?.nodeSelectorTerms ?? [])
    .map((term) => [...(term.matchExpressions ?? []), ...(term.matchFields ?? [])].map(formatRequirement).join(','))
    .filter(Boolean);
  return terms.length ? terms.join(' or ') : undefined;
}

function formatPodTerm(term: V1PodAffinityTerm): string {
  const selector = formatLabelSelector(term.labelSelector) || 'every pod';
  return `${selector} per ${term.topologyKey}${term.namespaces?.length ? ` in ${term.namespaces.join(',')}` : ''}`;
}

/** One expression of a node selector term; a `matchFields` expression is keyed `metadata.name` (the node's name). */
export interface NodeRequirementData {
  key: string;
  operator: string;
  values?: string[];
}

/** The expressions of a node selector with exactly one term (several terms are alternatives, which a flat list cannot say). */
export function singleTermRequirements(selector: V1NodeSelector | undefined): NodeRequirementData[] | undefined {
  const terms = selector?.nodeSelectorTerms ?? [];
  if (terms.length !== 1) return undefined;
  const [term] = terms;
  const requirements = [
    ...(term?.matchExpressions ?? []).map((requirement) => ({
      key: requirement.key,
      operator: requirement.operator,
      ...(requirement.values ? { values: requirement.values } : {}),
    })),
    ...(term?.matchFields ?? []).map((requirement) => ({
      key: 'metadata.name',
      operator: requirement.operator,
      ...(requirement.values ? { values: requirement.values } : {}),
    })),
  ];
  return requirements.length ? requirements : undefined;
}

/**
 * Each required affinity rule of a pod spec as one string: `nodeAffinity required kubernetes.io/arch in (arm64)`,
 * `podAntiAffinity required app=rabbitmq per kubernetes.io/hostname`. Terms of one rule are
 * alternatives (`or`), expressions of one term all hold (`,`). Preferred rules never keep a pod
 * from a node, so they are left out (the affinity kinds still name them).
 */
export function describeAffinity(affinity: V1Affinity | undefined): string[] {
  const rules: string[] = [];
  const node = affinity?.nodeAffinity;
  const required = formatNodeSelector(node?.requiredDuringSchedulingIgnoredDuringExecution);
  if (required) rules.push(`nodeAffinity required ${required}`);
  for (const [kind, podRules] of [
    ['podAffinity', affinity?.podAffinity],
    ['podAntiAffinity', affinity?.podAntiAffinity],
  ] as const) {
    for (const term of podRules?.requiredDuringSchedulingIgnoredDuringExecution ?? [])
      rules.push(`${kind} required ${formatPodTerm(term)}`);
  }
  return rules;
}

/**
 * Labels the controllers add to tell their own pods apart, and Helm's bookkeeping: no Service
 * selects on them, so they explain no selector mismatch.
 */
const CONTROLLER_LABELS =
  /^(pod-template-hash|controller-revision-hash|pod-template-generation|statefulset\.kubernetes\.io\/pod-name|apps\.kubernetes\.io\/pod-index|controller-uid|job-name|batch\.kubernetes\.io\/(controller-uid|job-name|job-completion-index)|helm\.sh\/chart|app\.kubernetes\.io\/managed-by|heritage)$/;

/** The pod's labels a Service or workload selector would match on, as `key=value` items. */
export function selectableLabels(labels: Record<string, string> | undefined): string[] {
  return Object.entries(labels ?? {})
    .filter(([key]) => !CONTROLLER_LABELS.test(key))
    .map(([key, value]) => `${key}=${value}`);
}

/** The container runtime running the pod's containers (`containerd`, `cri-o`, `docker`), from their container IDs. */
export function containerRuntime(pod: V1Pod): string | undefined {
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  const runtimes = new Set(
    statuses
      .map((status) => /^([a-z0-9-]+):\/\//.exec(status.containerID ?? '')?.[1])
      .filter((runtime): runtime is string => runtime !== undefined),
  );
  return runtimes.size ? [...runtimes].join(',') : undefined;
}
