/**
 * Rule `node-unhealthy`: a node NotReady or under pressure, and the pod's trouble is the
 * node's (no container to blame, the pod lost with it, or a process out of threads on a
 * node short of process ids).
 */
import type { Case, Finding } from '../case.ts';
import { troubledContainer } from '../containers.ts';
import { isNodeExhaustion } from '../signals/index.ts';

export function podSuffersFromNode(gathered: Case): boolean {
  const pod = gathered.pod!;
  if (pod.node !== gathered.node?.name) return false;
  if (troubledContainer(pod.containers) === undefined || ['Unknown', 'Terminating'].includes(pod.status)) return true;
  // A node short of process ids or memory, and a process that died for lack of threads or forks: the node's shortage.
  const log = gathered.logs;
  return (
    (gathered.node?.pressures.length ?? 0) > 0 &&
    log !== undefined &&
    [...log.errorLines, ...log.lines].some((line) => isNodeExhaustion(line))
  );
}

export function nodeFinding(gathered: Case): Finding {
  const node = gathered.node!;
  const condition = node.readyCondition;
  const state = node.ready ? `under pressure (${node.pressures.join(', ')})` : 'NotReady';
  const affected = (gathered.workloadPods ?? []).filter((pod) => !pod.healthy);
  return {
    category: 'node-failure',
    cause: `node ${node.name} is ${state}`,
    evidence: [
      `node ${node.name} is ${state}${condition ? `: Ready=${condition.status}${condition.reason ? ` (${condition.reason})` : ''}${condition.message ? `: ${condition.message}` : ''}` : ''}`,
      ...(node.taints.length ? [`node ${node.name} taints: ${node.taints.join(', ')}`] : []),
      ...(affected.length
        ? [
            `${affected.length} pod(s) on ${node.name} are not healthy: ${affected
              .slice(0, 5)
              .map((pod) => `${pod.namespace}/${pod.name} ${pod.evicted ? 'Evicted' : pod.status}`)
              .join(', ')}`,
          ]
        : []),
      // What the kubelet evicted them for: the resource the node ran short of.
      ...[...new Set(affected.flatMap((pod) => (pod.evicted ? [pod.evicted.split('. ')[0] ?? pod.evicted] : [])))]
        .slice(0, 2)
        .map((why) => `the kubelet evicted pods from ${node.name}: ${why}`),
    ],
    confidence: 'high',
  };
}
