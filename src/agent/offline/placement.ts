/**
 * Where a DaemonSet runs against where it may: a node's NoSchedule or NoExecute taint that
 * the DaemonSet's template does not tolerate keeps it off that node, and a pod it already
 * has there is misscheduled. Taints Kubernetes adds itself (node.kubernetes.io/*) are
 * tolerated by every DaemonSet.
 */
import type { NodeSummaryData } from '../../tools/list-nodes.ts';
import type { Case } from './case.ts';

interface Taint {
  key: string;
  value?: string;
  effect: string;
}

/** `dedicated=ingest:NoSchedule`, `node-role.kubernetes.io/control-plane:NoSchedule`. */
function parseTaint(text: string): Taint {
  const [keyValue = '', effect = '*'] = text.split(/:(?=[^:]*$)/);
  const [key = '', value] = keyValue.split('=');
  return { key, ...(value !== undefined ? { value } : {}), effect };
}

/** Whether any toleration (as the tools print them: `key=value:effect`, `key:effect`, `*:*`) lets the pod onto the taint. */
export function tolerates(tolerations: readonly string[], taintText: string): boolean {
  const taint = parseTaint(taintText);
  if (taint.effect === 'PreferNoSchedule' || taint.key.startsWith('node.kubernetes.io/')) return true;
  return tolerations.some((text) => {
    const toleration = parseTaint(text);
    const keyMatches = toleration.key === '*' || toleration.key === taint.key;
    const valueMatches = toleration.value === undefined || toleration.value === taint.value;
    const effectMatches = toleration.effect === '*' || toleration.effect === taint.effect;
    return keyMatches && valueMatches && effectMatches;
  });
}

/** The nodes whose taints a DaemonSet does not tolerate, with its pods there (misscheduled). */
export function untoleratedNodes(gathered: Case): { node: NodeSummaryData; taints: string[]; pods: string[] }[] {
  const daemonSet = gathered.daemonSet;
  if (!daemonSet) return [];
  return daemonSet.nodes.flatMap((node) => {
    const taints = node.taints.filter((taint) => !tolerates(daemonSet.template.tolerations, taint));
    const pods = (gathered.workloadPods ?? []).filter((pod) => pod.node === node.name).map((pod) => pod.name);
    return taints.length ? [{ node, taints, pods }] : [];
  });
}

/** A DaemonSet with pods on nodes it does not tolerate: the taint was added after they started. */
export function isMisscheduled(gathered: Case): boolean {
  return untoleratedNodes(gathered).some((entry) => entry.pods.length > 0);
}
