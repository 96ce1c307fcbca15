/**
 * The scheduler's node checks, as the explainers need them: whether a node meets a
 * node-selector expression, which of its taints a pod does not tolerate, and which node
 * a pod is pinned to. Reads facts only; mirrors the rules of the NodeAffinity,
 * TaintToleration and NodeUnschedulable plugins of kube-scheduler.
 */
import type { Labels, NodeFacts, NodeRequirement, PodFacts } from './facts.ts';

export interface Taint {
  readonly key: string;
  readonly value: string;
  readonly effect: string;
  /** As kubectl prints it. */
  readonly text: string;
}

interface Toleration {
  readonly key: string;
  readonly operator: 'Exists' | 'Equal';
  readonly value: string;
  /** Empty: every effect. */
  readonly effect: string;
}

/** A pod's ask of the nodes, with where in its spec it comes from. */
export interface PodRequirement {
  readonly requirement: NodeRequirement;
  readonly origin: 'nodeSelector' | 'required node affinity';
}

/** The taint kubectl cordon stands for; cordoned nodes are handled as if they carried it. */
export const CORDON_TAINT = 'node.kubernetes.io/unschedulable:NoSchedule';
const BLOCKING_EFFECTS = new Set(['NoSchedule', 'NoExecute']);

/** `key=value:Effect` or `key:Effect`; undefined for text of another form. */
export function parseTaint(text: string): Taint | undefined {
  const match = /^([^=:\s]+)(?:=([^:\s]*))?:(NoSchedule|PreferNoSchedule|NoExecute)$/.exec(text.trim());
  if (!match) return undefined;
  return { key: match[1]!, value: match[2] ?? '', effect: match[3]!, text: text.trim() };
}

function parseToleration(text: string): Toleration {
  const exists = /(^|\s)op=Exists\b/.test(text);
  const head = text
    .replace(/\s*op=Exists\b/, '')
    .replace(/\s+for \d+s$/, '')
    .trim();
  const [keyAndValue = '', effect = ''] = head.split(':');
  const [key = '', value = ''] = keyAndValue.split('=');
  return { key, operator: exists ? 'Exists' : 'Equal', value, effect };
}

function toleratesTaint(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect !== '' && toleration.effect !== taint.effect) return false;
  if (toleration.key === '') return toleration.operator === 'Exists';
  if (toleration.key !== taint.key) return false;
  return toleration.operator === 'Exists' || toleration.value === taint.value;
}

/** The node's NoSchedule and NoExecute taints (the cordon included) that none of the pod's tolerations covers. */
export function blockingTaints(node: NodeFacts, pod: PodFacts | undefined): Taint[] {
  const taints = node.taints.map(parseTaint).filter((taint): taint is Taint => taint !== undefined);
  if (node.unschedulable && !taints.some((taint) => taint.key === 'node.kubernetes.io/unschedulable'))
    taints.push(parseTaint(CORDON_TAINT)!);
  const tolerations = (pod?.tolerations ?? []).map(parseToleration);
  return taints.filter(
    (taint) =>
      BLOCKING_EFFECTS.has(taint.effect) && !tolerations.some((toleration) => toleratesTaint(toleration, taint)),
  );
}

/** Whether the pod may land on the node as far as a cordon goes (DaemonSet pods tolerate it). */
export function isOpenFor(node: NodeFacts, pod: PodFacts | undefined): boolean {
  return !blockingTaints(node, pod).some((taint) => taint.key === 'node.kubernetes.io/unschedulable');
}

/** A pod toleration that names the taint's key but misses it by value or effect, to quote as a near miss. */
export function nearToleration(pod: PodFacts, taint: Taint): string | undefined {
  return pod.tolerations?.find((text) => parseToleration(text).key === taint.key);
}

/** The node's value for a requirement's key; `metadata.name` is the node's name. */
export function nodeValue(node: NodeFacts, key: string): string | undefined {
  return key === 'metadata.name' ? node.name : node.labels[key];
}

export function meetsRequirement(node: NodeFacts, requirement: NodeRequirement): boolean {
  const value = nodeValue(node, requirement.key);
  const values = requirement.values ?? [];
  switch (requirement.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
      return value !== undefined && Number(value) > Number(values[0]);
    case 'Lt':
      return value !== undefined && Number(value) < Number(values[0]);
  }
}

export function meetsAll(node: NodeFacts, requirements: readonly NodeRequirement[]): boolean {
  return requirements.every((requirement) => meetsRequirement(node, requirement));
}

/** The pod's nodeSelector (as `In` expressions) followed by its required node affinity. */
export function podRequirements(pod: PodFacts): PodRequirement[] {
  const fromSelector = Object.entries(pod.nodeSelector ?? {}).map(([key, value]): PodRequirement => ({
    requirement: { key, operator: 'In', values: [value] },
    origin: 'nodeSelector',
  }));
  const fromAffinity = (pod.requiredNodeAffinity ?? []).map((requirement): PodRequirement => ({
    requirement,
    origin: 'required node affinity',
  }));
  return [...fromSelector, ...fromAffinity];
}

/** The one node the pod may run on: its spec.nodeName, or a `metadata.name in [node]` affinity (a DaemonSet pod). */
export function pinnedNode(pod: PodFacts): { readonly name: string; readonly by: string } | undefined {
  if (pod.nodeName) return { name: pod.nodeName, by: `spec.nodeName ${pod.nodeName}` };
  const pin = pod.requiredNodeAffinity?.find(
    (requirement) =>
      requirement.key === 'metadata.name' && requirement.operator === 'In' && requirement.values?.length === 1,
  );
  return pin ? { name: pin.values![0]!, by: `required node affinity metadata.name in [${pin.values![0]}]` } : undefined;
}

/** The nodes the pod could go to if they had room: selector and affinity met, no untolerated taint, the pin respected. */
export function candidateNodes(pod: PodFacts, nodes: readonly NodeFacts[]): NodeFacts[] {
  const requirements = podRequirements(pod).map(({ requirement }) => requirement);
  const pin = pinnedNode(pod);
  return nodes.filter(
    (node) =>
      (!pin || node.name === pin.name) && meetsAll(node, requirements) && blockingTaints(node, pod).length === 0,
  );
}

/** `topology.kubernetes.io/zone in [eu-west-1a]`, `disktype=ssd` for a nodeSelector entry. */
export function describeRequirement({
  requirement,
  origin,
}: {
  requirement: NodeRequirement;
  origin?: PodRequirement['origin'];
}): string {
  const { key, operator, values = [] } = requirement;
  if (origin === 'nodeSelector') return `${key}=${values[0]}`;
  switch (operator) {
    case 'In':
      return `${key} in [${values.join(', ')}]`;
    case 'NotIn':
      return `${key} notin [${values.join(', ')}]`;
    case 'Exists':
      return `${key} to exist`;
    case 'DoesNotExist':
      return `${key} to be absent`;
    case 'Gt':
      return `${key} > ${values[0]}`;
    case 'Lt':
      return `${key} < ${values[0]}`;
  }
}

/** What the nodes carry for a key: `eu-west-1b (2 nodes), eu-west-1c (1 node)`; undefined when none has it. */
export function describeValues(nodes: readonly NodeFacts[], key: string): string | undefined {
  const counts = new Map<string, number>();
  for (const node of nodes) {
    const value = nodeValue(node, key);
    if (value !== undefined) counts.set(value, (counts.get(value) ?? 0) + 1);
  }
  if (counts.size === 0) return undefined;
  const names = key === 'metadata.name' || key === 'kubernetes.io/hostname';
  return [...counts]
    .map(([value, count]) => (names ? value : `${value} (${count} ${count === 1 ? 'node' : 'nodes'})`))
    .join(', ');
}

export function selects(selector: Labels, labels: Labels): boolean {
  return Object.entries(selector).every(([key, value]) => labels[key] === value);
}

/** "Pod shop/web-1 (Deployment web)" */
export function describePod(pod: PodFacts): string {
  return `Pod ${pod.namespace}/${pod.name}${pod.owner ? ` (${pod.owner.kind} ${pod.owner.name})` : ''}`;
}

/** Names, at most `limit` of them, then how many more: `a, b, c and 2 more`. */
export function listNames(names: readonly string[], limit = 3): string {
  if (names.length <= limit) return names.join(', ');
  return `${names.slice(0, limit).join(', ')} and ${names.length - limit} more`;
}

export function schedulerSays(message: string | undefined): string[] {
  return message ? [`The scheduler reports: "${message}".`] : [];
}
