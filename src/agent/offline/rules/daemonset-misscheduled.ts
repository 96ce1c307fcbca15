/**
 * Rule `daemonset-misscheduled`: a DaemonSet kept off nodes by taints it does not
 * tolerate, its pods already there misscheduled (the taints are read in placement.ts).
 */
import type { Case, Finding } from '../case.ts';
import { untoleratedNodes } from '../placement.ts';

export function misscheduledFinding(gathered: Case): Finding {
  const workload = gathered.workload!;
  const nodes = untoleratedNodes(gathered);
  const tolerations = gathered.daemonSet?.template.tolerations ?? [];
  const taints = [...new Set(nodes.flatMap((entry) => entry.taints))];
  return {
    category: 'unschedulable-placement',
    cause: `the nodes tainted ${taints.join(', ')} are closed to ${workload.kind} ${workload.namespace}/${workload.name}, which does not tolerate the taint: the pods it has there are misscheduled and new nodes get none`,
    evidence: [
      ...nodes
        .slice(0, 6)
        .map(
          (entry) =>
            `node ${entry.node.name} has taint ${entry.taints.join(', ')} that ${workload.name} does not tolerate; ${entry.pods.length ? `its pod ${entry.pods.join(', ')} runs there (misscheduled)` : 'no pod of it runs there'}`,
        ),
      `${workload.kind} ${workload.name} tolerations: ${tolerations.length ? tolerations.join(', ') : 'none'}`,
    ],
    confidence: 'high',
  };
}
