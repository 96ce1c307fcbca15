/**
 * The incident text of a capture, written from what is failing when it was taken, as a
 * person on call would say it: the node that is down under the namespace's pods, else the worst
 * workload whose pods are in trouble (the top owner: Deployment over ReplicaSet, CronJob over
 * Job; a crash before pods that are only not ready), how many of its pods and why, how many
 * other workloads suffer, and the nodes that are NotReady or under pressure. `kubewhy diagnose --scenario OUT` starts from it.
 */
import type { CapturedObject } from './captured-object.ts';
import { isRecord, readPath } from './captured-object.ts';
import type { PodTrouble } from './failing-pods.ts';

/** The top-level workload that owns `pod` among `objects`: `Deployment/name`, `Job/name`... or the pod itself. */
export function topOwner(pod: CapturedObject, objects: readonly CapturedObject[]): { kind: string; name: string } {
  let current: { kind: string; name: string } = { kind: 'Pod', name: pod.metadata.name };
  let object: CapturedObject | undefined = pod;
  for (let depth = 0; object && depth < 4; depth += 1) {
    const owners = object.metadata['ownerReferences'];
    const controller = Array.isArray(owners)
      ? (owners.find((owner) => isRecord(owner) && owner['controller'] === true) ?? owners[0])
      : undefined;
    if (!isRecord(controller) || typeof controller['kind'] !== 'string' || typeof controller['name'] !== 'string')
      break;
    current = { kind: controller['kind'], name: controller['name'] };
    object = objects.find(
      (candidate) =>
        candidate.kind === current.kind &&
        candidate.metadata.name === current.name &&
        candidate.metadata.namespace === pod.metadata.namespace,
    );
  }
  return current;
}

/** Nodes that are NotReady, or report memory, disk or PID pressure: `name (NotReady)`. */
export function troubledNodes(objects: readonly CapturedObject[]): string[] {
  const found: string[] = [];
  for (const node of objects.filter((object) => object.kind === 'Node')) {
    const conditions = readPath(node, 'status.conditions');
    const problems = (Array.isArray(conditions) ? conditions.filter(isRecord) : []).flatMap((condition) => {
      if (condition['type'] === 'Ready') return condition['status'] === 'True' ? [] : ['NotReady'];
      return condition['status'] === 'True' && /Pressure$/.test(String(condition['type']))
        ? [String(condition['type'])]
        : [];
    });
    if (problems.length > 0) found.push(`${node.metadata.name} (${problems.join(', ')})`);
  }
  return found;
}

/** How much a reason says the workload itself is broken: a crash or a pull failure over a pod that only is not ready (often waiting on another). */
function severity(reason: string): number {
  if (reason === 'not ready') return 1;
  if (reason === 'Failed' || reason === 'Unknown') return 2;
  return 3;
}

export function incidentText(input: {
  namespace: string;
  troubles: readonly PodTrouble[];
  objects: readonly CapturedObject[];
}): string {
  const byWorkload = new Map<string, { kind: string; name: string; pods: string[]; reasons: Map<string, number> }>();
  for (const { pod, reasons } of input.troubles) {
    const owner = topOwner(pod, input.objects);
    const key = `${owner.kind}/${owner.name}`;
    const entry = byWorkload.get(key) ?? { ...owner, pods: [], reasons: new Map<string, number>() };
    entry.pods.push(pod.metadata.name);
    for (const reason of reasons) entry.reasons.set(reason, (entry.reasons.get(reason) ?? 0) + 1);
    byWorkload.set(key, entry);
  }
  const worst = (reasons: Map<string, number>): number => Math.max(0, ...[...reasons.keys()].map(severity));
  const workloads = [...byWorkload.values()].sort(
    (a, b) => worst(b.reasons) - worst(a.reasons) || b.pods.length - a.pods.length,
  );
  const why = (reasons: Map<string, number>): string =>
    [...reasons.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([reason]) => reason)
      .slice(0, 3)
      .join(', ');
  const nodes = troubledNodes(input.objects);
  // A node that is down under the namespace's pods is the news: the sentence is about it
  // (its pods may still say Running: nothing reports on them any more).
  const podsOn = (node: string): CapturedObject[] =>
    input.objects.filter(
      (object) =>
        object.kind === 'Pod' &&
        object.metadata.namespace === input.namespace &&
        readPath(object, 'spec.nodeName') === node,
    );
  const downUnderPods = nodes.filter((node) => podsOn(node.slice(0, node.indexOf(' ('))).length > 0);
  if (downUnderPods.length > 0) {
    const affected = downUnderPods.reduce((sum, node) => sum + podsOn(node.slice(0, node.indexOf(' ('))).length, 0);
    return `node ${downUnderPods.slice(0, 3).join(', node ')}, and ${affected} pod(s) of ${input.namespace} run on it`;
  }
  const lead = workloads[0];
  if (!lead) {
    const quiet = `nothing in ${input.namespace} looked broken when it was captured: is anything wrong there?`;
    return nodes.length > 0 ? `${quiet} Node ${nodes.slice(0, 3).join(', node ')}` : quiet;
  }
  const subject = lead.kind === 'Pod' ? `pod ${lead.name}` : `${lead.kind.toLowerCase()} ${lead.name}`;
  const others = workloads.length - 1;
  return [
    `${subject} in ${input.namespace} is failing: ${lead.pods.length === 1 ? `pod ${lead.pods[0]}` : `${lead.pods.length} pods`} ${why(lead.reasons)}`,
    ...(others > 0 ? [`${others} other workload(s) there have pods in trouble too`] : []),
    ...(nodes.length > 0 ? [`node ${nodes.slice(0, 3).join(', node ')}`] : []),
  ].join('; ');
}
