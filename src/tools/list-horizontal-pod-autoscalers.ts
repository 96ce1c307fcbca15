/**
 * `list_horizontal_pod_autoscalers`: HorizontalPodAutoscalers (autoscaling/v2) with target,
 * min, max, current and desired replicas, metrics against their targets and conditions; those
 * at max or in trouble first. For those, the target workload's replicas and its unhealthy pods
 * follow, so "why do the extra replicas not come up" needs no second call.
 */
import { z } from 'zod';
import { namespaceName, objectName } from './names.ts';
import type { V1LabelSelector, V2HorizontalPodAutoscaler } from '@kubernetes/client-node';
import type { ReadCluster } from '../cluster/cluster.ts';
import { formatAutoscalerMetrics } from './format/autoscaler-metrics.ts';
import { BudgetedText } from './format/budget.ts';
import { formatPodGroup, readPodGroup } from './format/pod-group.ts';
import { oneLine } from './format/pod-status.ts';
import { formatLabelSelector } from './format/selectors.ts';
import { describeIncomplete, failureFrom, resolveNamespaces, success } from './tool-results.ts';
import type { ReadTool } from './tool.ts';

export interface AutoscalersData {
  autoscalers: AutoscalerData[];
}

export interface AutoscalerData {
  namespace: string;
  name: string;
  target: { kind: string; name: string };
  minReplicas: number;
  maxReplicas: number;
  currentReplicas: number;
  desiredReplicas: number;
  /** Current or desired replicas have reached maxReplicas (what KubeHpaMaxedOut alerts on). */
  atMax: boolean;
  /** `cpu 92% of 70% target`, one per metric of the spec. */
  metrics: string[];
  conditions: { type: string; status: string; reason?: string; message?: string }[];
}

const input = z.object({
  namespace: namespaceName().optional().describe('Namespace; omitted: every namespace this run may read'),
  name: objectName()
    .optional()
    .describe('One HorizontalPodAutoscaler by name (usually the name of the workload it scales)'),
});

/** Targets whose workload is read and shown with the autoscaler, at most. */
const TARGETS_SHOWN = 3;

function summarizeAutoscaler(autoscaler: V2HorizontalPodAutoscaler): AutoscalerData {
  const maxReplicas = autoscaler.spec?.maxReplicas ?? 0;
  const currentReplicas = autoscaler.status?.currentReplicas ?? 0;
  const desiredReplicas = autoscaler.status?.desiredReplicas ?? 0;
  return {
    namespace: autoscaler.metadata?.namespace ?? '',
    name: autoscaler.metadata?.name ?? '',
    target: { kind: autoscaler.spec?.scaleTargetRef.kind ?? '?', name: autoscaler.spec?.scaleTargetRef.name ?? '?' },
    minReplicas: autoscaler.spec?.minReplicas ?? 1,
    maxReplicas,
    currentReplicas,
    desiredReplicas,
    atMax: maxReplicas > 0 && Math.max(currentReplicas, desiredReplicas) >= maxReplicas,
    metrics: formatAutoscalerMetrics(autoscaler),
    conditions: (autoscaler.status?.conditions ?? []).map((condition) => ({
      type: condition.type,
      status: condition.status,
      ...(condition.reason ? { reason: condition.reason } : {}),
      ...(condition.message ? { message: condition.message } : {}),
    })),
  };
}

/** An autoscaler that cannot act, or whose workload has not caught up with it. */
function isTroubled(autoscaler: AutoscalerData): boolean {
  const failing = autoscaler.conditions.some(
    (condition) => ['AbleToScale', 'ScalingActive'].includes(condition.type) && condition.status === 'False',
  );
  return autoscaler.atMax || failing || autoscaler.currentReplicas !== autoscaler.desiredReplicas;
}

function formatAutoscaler(
  autoscaler: AutoscalerData,
  options: { withNamespace: boolean; withConditions: boolean },
): string[] {
  const where = options.withNamespace ? `${autoscaler.namespace}/` : '';
  const flags = [
    autoscaler.atMax ? 'AT MAX' : '',
    autoscaler.currentReplicas !== autoscaler.desiredReplicas ? 'CURRENT != DESIRED' : '',
  ]
    .filter(Boolean)
    .join(', ');
  const lines = [
    `${where}${autoscaler.name} -> ${autoscaler.target.kind}/${autoscaler.target.name}: replicas current ${autoscaler.currentReplicas}, desired ${autoscaler.desiredReplicas}, ` +
      `min ${autoscaler.minReplicas}, max ${autoscaler.maxReplicas}; metrics ${autoscaler.metrics.join(', ') || '(none)'}${flags ? `  <- ${flags}` : ''}`,
  ];
  if (options.withConditions) {
    for (const condition of autoscaler.conditions) {
      lines.push(
        `  ${condition.type}=${condition.status}${condition.reason ? ` ${condition.reason}` : ''}${condition.message ? `: ${oneLine(condition.message, 200)}` : ''}`,
      );
    }
  }
  return lines;
}

interface ScaledWorkload {
  metadata?: { name?: string };
  spec?: { replicas?: number; selector?: V1LabelSelector };
  status?: { replicas?: number; readyReplicas?: number; updatedReplicas?: number; availableReplicas?: number };
}

/** The target workload's replicas and its unhealthy pods (a Pending pod carries the scheduler's message). */
async function describeTarget(input: {
  cluster: ReadCluster;
  autoscaler: AutoscalerData;
  signal: AbortSignal;
  now: Date;
}): Promise<string[]> {
  const { kind, name } = input.autoscaler.target;
  const reference = { namespace: input.autoscaler.namespace, name };
  const options = { signal: input.signal };
  let read;
  if (kind === 'Deployment') read = await input.cluster.get('Deployment', reference, options);
  else if (kind === 'StatefulSet') read = await input.cluster.get('StatefulSet', reference, options);
  else if (kind === 'ReplicaSet') read = await input.cluster.get('ReplicaSet', reference, options);
  else return [`  target ${kind}/${name}: not a built-in workload; read it with the tools for its kind.`];
  const label = `target ${kind} ${reference.namespace}/${name}`;
  if (!read.ok) {
    return [
      read.error.kind === 'not-found'
        ? `  ${label} does not exist: the autoscaler scales nothing.`
        : `  ${label} could not be read (${read.error.kind}: ${read.error.message}).`,
    ];
  }
  const workload: ScaledWorkload = read.value;
  const status = workload.status ?? {};
  const lines = [
    `  ${label}: spec.replicas ${workload.spec?.replicas ?? '?'}, created ${status.replicas ?? 0}, ready ${status.readyReplicas ?? 0}, updated ${status.updatedReplicas ?? 0}, available ${status.availableReplicas ?? 0}`,
  ];
  const pods = await readPodGroup({
    cluster: input.cluster,
    namespace: reference.namespace,
    labelSelector: formatLabelSelector(workload.spec?.selector),
    signal: input.signal,
  });
  for (const line of formatPodGroup(pods, input.now)) lines.push(`  ${line}`);
  return lines;
}

export const listHorizontalPodAutoscalersTool: ReadTool<
  typeof input,
  AutoscalersData,
  'list_horizontal_pod_autoscalers'
> = {
  name: 'list_horizontal_pod_autoscalers',
  description:
    'Lists HorizontalPodAutoscalers (autoscaling/v2): target workload, min/max/current/desired replicas, each metric against its target ' +
    '("cpu 92% of 70% target") and the conditions (AbleToScale, ScalingActive, ScalingLimited with reasons); those at max or whose workload lags ' +
    "come first, followed by the target workload's replicas and its unhealthy pods (Pending pods with the scheduler's message). Use it for " +
    'KubeHpaMaxedOut and KubeHpaReplicasMismatch, then look at the target workload: why its extra replicas do not come up, or why load grew.',
  input,
  risk: 'read',
  async run(args, context) {
    const found: V2HorizontalPodAutoscaler[] = [];
    const notes: string[] = [];
    for (const namespace of resolveNamespaces(args.namespace, context)) {
      const listed = await context.cluster.list('HorizontalPodAutoscaler', {
        ...(namespace !== undefined ? { namespace } : {}),
        ...(args.name ? { fieldSelector: `metadata.name=${args.name}` } : {}),
        maxItems: 1000,
        signal: context.signal,
      });
      if (!listed.ok) return failureFrom(listed.error);
      found.push(...listed.value.items);
      const note = describeIncomplete({
        incomplete: listed.value.incomplete,
        read: listed.value.items.length,
        ...(listed.value.partialError ? { partialError: listed.value.partialError } : {}),
      });
      if (note) notes.push(note);
    }
    const where = args.namespace ? ` in namespace ${args.namespace}` : '';
    if (args.name && found.length === 0) {
      return {
        ok: false,
        error: 'not-found',
        content: `not-found: no HorizontalPodAutoscaler named "${args.name}"${where}. Call list_horizontal_pod_autoscalers without name to see which exist; a workload without one is scaled by hand (describe_deployment).`,
      };
    }
    const autoscalers = found
      .map(summarizeAutoscaler)
      .sort(
        (left, right) =>
          Number(isTroubled(right)) - Number(isTroubled(left)) ||
          Number(right.atMax) - Number(left.atMax) ||
          left.namespace.localeCompare(right.namespace) ||
          left.name.localeCompare(right.name),
      );
    const data: AutoscalersData = { autoscalers: autoscalers.slice(0, 500) };
    const now = context.cluster.now();
    const text = new BudgetedText(context.outputBudgetBytes);
    text.add(
      `${autoscalers.length} HorizontalPodAutoscaler(s)${where}: ${autoscalers.filter((autoscaler) => autoscaler.atMax).length} at max replicas; ${autoscalers.filter(isTroubled).length} at max, behind their desired count or unable to scale.`,
    );
    for (const note of notes) text.add(note);
    const shownTargets = autoscalers
      .filter((autoscaler) => args.name !== undefined || isTroubled(autoscaler))
      .slice(0, TARGETS_SHOWN);
    const targetLines = await Promise.all(
      shownTargets.map((autoscaler) =>
        describeTarget({ cluster: context.cluster, autoscaler, signal: context.signal, now }),
      ),
    );
    for (const autoscaler of autoscalers) {
      const index = shownTargets.indexOf(autoscaler);
      const lines = formatAutoscaler(autoscaler, {
        withNamespace: !args.namespace,
        withConditions: args.name !== undefined || isTroubled(autoscaler),
      });
      if (!text.add([...lines, ...(index >= 0 ? (targetLines[index] ?? []) : [])].join('\n'))) break;
    }
    return success(text.finish('narrow with namespace and name.'), data, text.truncated);
  },
};
