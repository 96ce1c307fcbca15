/**
 * `list_nodes`: nodes with readiness, pressure conditions, cordons and taints, zone, arch and
 * container runtime, and how much of their allocatable cpu, memory and pods the scheduled pods
 * already request; one node asked for by name also shows its labels.
 */
import { z } from 'zod';
import { objectName } from './names.ts';
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { ageSeconds, formatAge } from './format/age.ts';
import { BudgetedText } from './format/budget.ts';
import { oneLine } from './format/pod-status.ts';
import { formatQuantity, parseQuantity } from './format/quantity.ts';
import { failureFrom, success } from './tool-results.ts';
import type { ReadTool, ReadToolContext } from './tool.ts';
import type { ClusterResult } from '../cluster/cluster.ts';

export interface NodeSummaryData {
  name: string;
  ready: boolean;
  /** The Ready condition's status, reason and message when not Ready. */
  readyCondition?: { status: string; reason?: string; message?: string; lastTransitionAgeSeconds?: number };
  /** Conditions other than Ready that hold (MemoryPressure, DiskPressure, PIDPressure, NetworkUnavailable). */
  pressures: string[];
  unschedulable: boolean;
  taints: string[];
  roles: string[];
  zone?: string;
  instanceType?: string;
  /** `kubernetes.io/arch` (or the kubelet's reported architecture): what image platform the node runs. */
  arch?: string;
  /** The kubelet's container runtime, e.g. `containerd://1.7.22`. */
  containerRuntime?: string;
  /** Every label but the well-known noise; only when one node was asked for by name. */
  labels?: Record<string, string>;
  kubeletVersion?: string;
  /** The node's InternalIP (`kubectl get nodes -o wide`): how node-exporter's `instance` names it. */
  internalIP?: string;
  ageSeconds?: number;
  allocatable: Record<string, string>;
  /** Sum of the requests of non-terminated pods on the node; absent when pods could not be read. */
  requested?: Record<string, string>;
  /** What is left of allocatable after the scheduled pods' requests, for a resource more than half requested: where a new pod fits or not. */
  tight?: Record<string, string>;
  podCount?: number;
  healthy: boolean;
}

export interface NodesData {
  total: number;
  notReady: number;
  nodes: NodeSummaryData[];
}

/**
 * Node conditions that mean trouble when True: the kubelet's pressures and
 * NetworkUnavailable, and node-problem-detector's (KernelDeadlock, ReadonlyFilesystem,
 * Frequent...Restart, Corrupt...). Others are informational (k3s's EtcdIsVoter).
 */
function isProblemCondition(type: string): boolean {
  return (
    type !== 'Ready' &&
    /Pressure$|Unavailable$|Problem$|Deadlock|Readonly|ReadOnly|^Frequent|^Corrupt|Unhealthy$|Unready$/.test(type)
  );
}

const input = z.object({
  name: objectName().optional().describe('One node by name'),
  labelSelector: z
    .string()
    .optional()
    .describe('Label selector on nodes, e.g. "node-role.kubernetes.io/worker" or "gpu=true"'),
});

const TRACKED_RESOURCES = ['cpu', 'memory', 'pods', 'nvidia.com/gpu'];

function sumRequests(pods: readonly V1Pod[]): Map<string, { requests: Record<string, number>; count: number }> {
  const byNode = new Map<string, { requests: Record<string, number>; count: number }>();
  for (const pod of pods) {
    const node = pod.spec?.nodeName;
    if (!node || pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') continue;
    const entry = byNode.get(node) ?? { requests: {}, count: 0 };
    entry.count += 1;
    for (const container of pod.spec?.containers ?? []) {
      for (const [resource, quantity] of Object.entries(container.resources?.requests ?? {})) {
        const value = parseQuantity(String(quantity));
        if (Number.isFinite(value)) entry.requests[resource] = (entry.requests[resource] ?? 0) + value;
      }
    }
    byNode.set(node, entry);
  }
  return byNode;
}

/** Past this many nodes, one list of every pod costs less than a list per node. */
const PER_NODE_LIST_LIMIT = 5;

/**
 * The pods scheduled on `nodes` (every node when undefined): a field-selected list per node
 * when there are few, so a question about one node never reads the whole cluster's pods;
 * otherwise one list of every pod, the same list `list_pods` makes, which the run's read
 * cache then answers once for both.
 */
async function readScheduledPods(
  context: ReadToolContext,
  nodes: readonly V1Node[] | undefined,
): Promise<ClusterResult<V1Pod[]>> {
  const read = (fieldSelector?: string) =>
    context.cluster.list('Pod', {
      ...(fieldSelector ? { fieldSelector } : {}),
      maxItems: 20_000,
      signal: context.signal,
    });
  if (nodes === undefined || nodes.length > PER_NODE_LIST_LIMIT) {
    const all = await read();
    return all.ok ? { ok: true, value: all.value.items } : all;
  }
  const pods: V1Pod[] = [];
  for (const listed of await Promise.all(nodes.map((node) => read(`spec.nodeName=${node.metadata?.name ?? ''}`)))) {
    if (!listed.ok) return listed;
    pods.push(...listed.value.items);
  }
  return { ok: true, value: pods };
}

function summarizeNode(
  node: V1Node,
  usage: { requests: Record<string, number>; count: number } | undefined,
  now: Date,
  podsRead: boolean,
): NodeSummaryData {
  const conditions = node.status?.conditions ?? [];
  const ready = conditions.find((condition) => condition.type === 'Ready');
  const pressures = conditions
    .filter((condition) => condition.status === 'True' && isProblemCondition(condition.type))
    .map((condition) => condition.type);
  const labels = node.metadata?.labels ?? {};
  const roles = Object.keys(labels)
    .filter((key) => key.startsWith('node-role.kubernetes.io/'))
    .map((key) => key.slice('node-role.kubernetes.io/'.length));
  const allocatable = Object.fromEntries(
    Object.entries(node.status?.allocatable ?? {})
      .filter(([resource]) => TRACKED_RESOURCES.includes(resource))
      .map(([resource, quantity]) => [resource, String(quantity)]),
  );
  const isReady = ready?.status === 'True';
  const age = ageSeconds(node.metadata?.creationTimestamp, now);
  const transition = ageSeconds(ready?.lastTransitionTime, now);
  const requested = podsRead
    ? Object.fromEntries(
        TRACKED_RESOURCES.filter((resource) => resource !== 'pods' && (usage?.requests[resource] ?? 0) > 0).map(
          (resource) => [resource, formatQuantity(resource, usage?.requests[resource] ?? 0)],
        ),
      )
    : undefined;
  const tight = podsRead ? tightResources(node.status?.allocatable ?? {}, usage?.requests ?? {}) : undefined;
  const zone = labels['topology.kubernetes.io/zone'] ?? labels['failure-domain.beta.kubernetes.io/zone'];
  const arch = labels['kubernetes.io/arch'] ?? node.status?.nodeInfo?.architecture;
  const containerRuntime = node.status?.nodeInfo?.containerRuntimeVersion;
  const instanceType = labels['node.kubernetes.io/instance-type'];
  const internalIP = node.status?.addresses?.find((address) => address.type === 'InternalIP')?.address;
  return {
    name: node.metadata?.name ?? '',
    ready: isReady,
    ...(!isReady && ready
      ? {
          readyCondition: {
            status: ready.status,
            ...(ready.reason ? { reason: ready.reason } : {}),
            ...(ready.message ? { message: ready.message } : {}),
            ...(transition !== undefined ? { lastTransitionAgeSeconds: transition } : {}),
          },
        }
      : {}),
    pressures,
    unschedulable: node.spec?.unschedulable ?? false,
    taints: (node.spec?.taints ?? []).map(
      (taint) => `${taint.key}${taint.value ? `=${taint.value}` : ''}:${taint.effect}`,
    ),
    roles,
    ...(zone ? { zone } : {}),
    ...(instanceType ? { instanceType } : {}),
    ...(arch ? { arch } : {}),
    ...(containerRuntime ? { containerRuntime } : {}),
    ...(node.status?.nodeInfo?.kubeletVersion ? { kubeletVersion: node.status.nodeInfo.kubeletVersion } : {}),
    ...(internalIP ? { internalIP } : {}),
    ...(age !== undefined ? { ageSeconds: age } : {}),
    allocatable,
    ...(requested ? { requested, podCount: usage?.count ?? 0 } : {}),
    ...(tight && Object.keys(tight).length ? { tight } : {}),
    healthy: isReady && pressures.length === 0 && !(node.spec?.unschedulable ?? false),
  };
}

/** Half of allocatable or less left: the node is filling for that resource, and what it has free decides where a pod fits. */
const TIGHT_SHARE = 0.5;

/** The free amount of each cpu or memory resource the pods' requests leave at half of allocatable or less. */
function tightResources(allocatable: Record<string, string>, requests: Record<string, number>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(allocatable)
      .filter(([resource]) => resource !== 'pods' && TRACKED_RESOURCES.includes(resource))
      .map(([resource, quantity]) => [resource, parseQuantity(quantity), requests[resource] ?? 0] as const)
      .filter(([, total, used]) => total > 0 && used > 0 && total - used <= total * TIGHT_SHARE)
      .map(([resource, total, used]) => [resource, formatQuantity(resource, Math.max(0, total - used))]),
  );
}

/** A value every node shares (arch, runtime) is said once in the header rather than on each line. */
function sharedValue(
  nodes: readonly NodeSummaryData[],
  pick: (node: NodeSummaryData) => string | undefined,
): string | undefined {
  const values = new Set(nodes.map(pick));
  const [only] = values;
  return values.size === 1 && only !== undefined && nodes.length > 1 ? only : undefined;
}

/** Labels that repeat what the line already says, or that no selector uses. */
const NOISY_NODE_LABELS =
  /^(kubernetes\.io\/(hostname|os)|beta\.kubernetes\.io\/|failure-domain\.beta\.kubernetes\.io\/|node-role\.kubernetes\.io\/|kubernetes\.io\/arch$|topology\.kubernetes\.io\/zone$|node\.kubernetes\.io\/instance-type$)/;

interface SharedValues {
  arch?: string;
}

function formatNode(node: NodeSummaryData, now: Date, shared: SharedValues = {}): string {
  const state = node.ready
    ? 'Ready'
    : `NotReady${node.readyCondition ? ` (${node.readyCondition.status}${node.readyCondition.reason ? ` ${node.readyCondition.reason}` : ''}${node.readyCondition.lastTransitionAgeSeconds !== undefined ? ` for ${formatAge(new Date(now.getTime() - node.readyCondition.lastTransitionAgeSeconds * 1000), now)}` : ''}${node.readyCondition.message ? `: ${oneLine(node.readyCondition.message, 200)}` : ''})` : ''}`;
  const parts = [`${node.name}: ${state}`];
  if (node.pressures.length) parts.push(`conditions ${node.pressures.join(',')}`);
  if (node.unschedulable) parts.push('cordoned (SchedulingDisabled)');
  if (node.taints.length) parts.push(`taints ${node.taints.join(', ')}`);
  const allocation = Object.entries(node.allocatable)
    .filter(([resource]) => resource !== 'pods')
    .map(
      ([resource, allocatable]) =>
        `${resource} ${node.requested?.[resource] ?? (node.requested ? '0' : '?')}/${formatQuantity(resource, parseQuantity(allocatable))}${node.tight?.[resource] ? ` (${node.tight[resource]} free)` : ''}`,
    );
  if (node.requested) allocation.push(`pods ${node.podCount ?? 0}/${node.allocatable.pods ?? '?'}`);
  // The header says once that these are requested/allocatable.
  parts.push(allocation.join(', '));
  if (node.roles.length) parts.push(`roles ${node.roles.join(',')}`);
  if (node.zone) parts.push(`zone ${node.zone}`);
  if (node.arch && !shared.arch) parts.push(`arch ${node.arch}`);
  if (node.instanceType && node.labels) parts.push(`instance-type ${node.instanceType}`);
  // Where an exporter's `instance` or a log's IP points: said for the node asked for, or one in trouble.
  if (node.internalIP && (!node.healthy || node.labels)) parts.push(`internal IP ${node.internalIP}`);
  // The runtime matters on a node in trouble (a runtime that is down), or the one asked for.
  if (node.containerRuntime && (!node.healthy || node.labels)) parts.push(`runtime ${node.containerRuntime}`);
  if (node.labels)
    parts.push(
      `labels ${
        Object.entries(node.labels)
          .map(([key, value]) => `${key}=${value}`)
          .join(',') || 'none beyond the well-known ones'
      }`,
    );
  if (node.ageSeconds !== undefined)
    parts.push(`age ${formatAge(new Date(now.getTime() - node.ageSeconds * 1000), now)}`);
  return parts.join(', ');
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

export const listNodesTool: ReadTool<typeof input, NodesData, 'list_nodes'> = {
  name: 'list_nodes',
  description:
    "Lists nodes: Ready or NotReady (with the kubelet's reason and since when), pressure conditions (MemoryPressure, DiskPressure, PIDPressure), " +
    'cordons, taints, zone, arch (kubernetes.io/arch), container runtime, and cpu/memory/GPU requested by scheduled pods against allocatable ' +
    "(like `kubectl describe node`'s Allocated resources). Not-ready and pressured nodes first; with name, also the node's labels. " +
    'Use it for Pending pods (does any node have room? do taints, nodeSelector or affinity exclude them?), exec format error (image arch against node arch) and for pods failing on one node.',
  input,
  risk: 'read',
  async run(args, context) {
    const listed = await context.cluster.list('Node', {
      ...(args.labelSelector ? { labelSelector: args.labelSelector } : {}),
      maxItems: 5000,
      signal: context.signal,
    });
    if (!listed.ok) return failureFrom(listed.error);
    const nodes = listed.value.items.filter((node) => args.name === undefined || node.metadata?.name === args.name);
    if (args.name !== undefined && nodes.length === 0) {
      const names = listed.value.items.flatMap((node) => (node.metadata?.name ? [node.metadata.name] : []));
      const existing =
        names.length === 0
          ? 'the cluster lists no node'
          : `the cluster has ${names.length} node(s): ${names.slice(0, 30).join(', ')}${names.length > 30 ? ', ...' : ''}`;
      return {
        ok: false,
        error: 'not-found',
        content: `not-found: node "${args.name}" does not exist${args.labelSelector ? ` among nodes matching ${args.labelSelector}` : ''}; ${existing}. Call list_nodes without name.`,
      };
    }
    // Requests are summed over every namespace's pods, which a namespace allowlist forbids reading.
    const pods = context.allowedNamespaces
      ? undefined
      : await readScheduledPods(
          context,
          nodes.length === listed.value.items.length && args.name === undefined && !args.labelSelector
            ? undefined
            : nodes,
        );
    const podsRead = pods?.ok === true;
    const usage = sumRequests(pods?.ok ? pods.value : []);
    const now = context.cluster.now();
    const summaries = nodes
      .map((node) => {
        const summary = summarizeNode(node, usage.get(node.metadata?.name ?? ''), now, podsRead);
        if (args.name === undefined) return summary;
        return {
          ...summary,
          labels: Object.fromEntries(
            Object.entries(node.metadata?.labels ?? {}).filter(([key]) => !NOISY_NODE_LABELS.test(key)),
          ),
        };
      })
      .sort((left, right) => Number(left.healthy) - Number(right.healthy) || left.name.localeCompare(right.name));
    const data: NodesData = {
      total: summaries.length,
      notReady: summaries.filter((node) => !node.ready).length,
      nodes: summaries.slice(0, 500),
    };
    const text = new BudgetedText(context.outputBudgetBytes);
    const shared: SharedValues = optional(
      'arch',
      sharedValue(summaries, (node) => node.arch),
    );
    text.add(
      `${summaries.length} node(s): ${data.notReady} not ready, ${summaries.filter((node) => node.pressures.length).length} under pressure, ${summaries.filter((node) => node.unschedulable).length} cordoned${shared.arch ? `, all arch ${shared.arch}` : ''}; ` +
        `resources as requested/allocatable.` +
        `${podsRead ? '' : " (pod requests not summed: pods across namespaces are outside this run's reach)"}`,
    );
    for (const node of summaries) if (!text.add(formatNode(node, now, shared))) break;
    return success(text.finish('narrow with name or labelSelector.'), data, text.truncated);
  },
};
