/**
 * Rule `pod-unschedulable`: a Pending pod the scheduler places nowhere, read from its
 * message (resources, placement rules, an unbound claim), with the pod's own requests or
 * placement rules as evidence.
 */
import type { CaseView, Finding } from '../case.ts';
import { readSchedulingMessage, type SchedulingVerdict } from '../scheduling-signals.ts';

/** The scheduler's message for a Pending pod, when it names a reason. */
export function schedulingOf(view: CaseView): { verdict: SchedulingVerdict; message: string } | undefined {
  const pod = view.pod;
  if (pod?.phase !== 'Pending') return undefined;
  const scheduling = pod.conditions.find(
    (condition) => condition.type === 'PodScheduled' && condition.status === 'False',
  );
  // The condition holds the latest word; when it names no reason (a PreBind timeout), an event may.
  const messages = [
    scheduling?.message,
    ...pod.events.filter((event) => event.reason === 'FailedScheduling').map((event) => event.message),
  ].filter((message): message is string => Boolean(message));
  for (const message of messages) {
    const verdict = readSchedulingMessage(message).verdict;
    if (verdict) return { verdict, message };
  }
  return undefined;
}

export function schedulingFinding(view: CaseView): Finding {
  const { verdict, message } = schedulingOf(view)!;
  const podName = view.pod!.name;
  return {
    category: verdict,
    cause: schedulingCause(verdict, podName, message),
    evidence: [`pod ${podName} is Pending: ${message}`, ...placementEvidence(view, verdict)],
    confidence: 'high',
  };
}

function schedulingCause(verdict: SchedulingVerdict, podName: string, message: string): string {
  if (verdict === 'pvc-unbound') return `pod ${podName} cannot be scheduled: its PersistentVolumeClaim is not bound`;
  if (verdict === 'unschedulable-resources') {
    const resources = [
      ...new Set([...message.matchAll(/Insufficient ([\w/-]+(?:\.[\w/-]+)*)/g)].map((match) => match[1])),
    ];
    return `pod ${podName} cannot be scheduled: no node has enough free ${resources.join(' or ') || 'resources'} for its requests`;
  }
  return `pod ${podName} cannot be scheduled: no node satisfies its placement rules (node selector, affinity, taints)`;
}

/** The pod's own placement rules and requests: what the scheduler could not satisfy. */
function placementEvidence(view: CaseView, verdict: SchedulingVerdict): string[] {
  const spec = view.pod?.spec;
  if (!spec) return [];
  if (verdict === 'unschedulable-placement') {
    const selector = Object.entries(spec.nodeSelector ?? {}).map(([key, value]) => `${key}=${value}`);
    return [
      ...(selector.length ? [`pod nodeSelector: ${selector.join(', ')}`] : []),
      // The required rules themselves (`podAntiAffinity required app=web per kubernetes.io/hostname`), else the kinds it has.
      ...(spec.affinityRules?.length
        ? [`pod affinity: ${spec.affinityRules.join('; ')}`]
        : spec.affinity?.length
          ? [`pod affinity: ${spec.affinity.join('; ')}`]
          : []),
      ...(spec.tolerations.length ? [`pod tolerations: ${spec.tolerations.join(', ')}`] : []),
    ];
  }
  if (verdict === 'unschedulable-resources') {
    return spec.containers
      .filter((container) => container.resources.requests || container.resources.limits)
      .map(
        (container) =>
          `container ${container.name} requests ${formatQuantities(container.resources.requests)}; limits ${formatQuantities(container.resources.limits)}`,
      );
  }
  return [];
}

function formatQuantities(values: Record<string, string> | undefined): string {
  return values && Object.keys(values).length
    ? Object.entries(values)
        .map(([key, value]) => `${key}=${value}`)
        .join(', ')
    : 'none';
}
