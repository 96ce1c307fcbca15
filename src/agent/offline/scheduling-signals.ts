/**
 * Reads the scheduler's FailedScheduling message ("0/3 nodes are available: 3 Insufficient
 * memory. preemption: ...") for why no node took the pod: not enough resources, placement
 * rules (selectors, affinity, taints), or unbound volume claims. Each reason counts the
 * nodes it names; the reason that excludes the most nodes is the answer. The reasons are
 * a table in signals/scheduling.ts.
 */
import { SCHEDULING_REASONS as REASONS, type SchedulingVerdict } from './signals/scheduling.ts';

export type { SchedulingVerdict } from './signals/scheduling.ts';

export interface SchedulingReading {
  verdict: SchedulingVerdict | undefined;
  /** Each reason with the nodes it excluded, as the scheduler said it. */
  reasons: { verdict: SchedulingVerdict; nodes: number; text: string }[];
}

/**
 * The nodes a pod's own node selector or affinity leaves out ("5 node(s) didn't match Pod's
 * node affinity/selector") are nodes it never asked for: a GPU job selecting the GPU pool, a
 * DaemonSet's pod pinned to one node by its controller. When the scheduler counted other
 * nodes for other reasons, those nodes are the ones the pod chose, and their reasons say why
 * it lands nowhere ("2 Insufficient nvidia.com/gpu" is a full pool, not a placement rule).
 * Only when the selector leaves out every node is it the placement that fails.
 */
export function readSchedulingMessage(message: string): SchedulingReading {
  // Only the first sentence speaks of the nodes; "preemption: ..." repeats it for victims.
  const [availability = message] = message.split(/\bpreemption:/i);
  const afterColon = availability.includes(':') ? availability.slice(availability.indexOf(':') + 1) : availability;
  const parts = afterColon
    .split(/,\s*|\.\s+/)
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
  const reasons: SchedulingReading['reasons'] = [];
  for (const part of parts) {
    const reason = REASONS.find((candidate) => candidate.pattern.test(part));
    if (!reason) continue;
    const count = /^(\d+)\s/.exec(part);
    reasons.push({ verdict: reason.verdict, nodes: count ? Number(count[1]) : 1, text: part.replace(/\.$/, '') });
  }
  if (reasons.some((reason) => !PINNING.test(reason.text))) {
    for (let index = reasons.length - 1; index >= 0; index--)
      if (PINNING.test(reasons[index]!.text)) reasons.splice(index, 1);
  }
  if (reasons.length === 0) {
    const whole = REASONS.find((candidate) => candidate.pattern.test(availability));
    return { verdict: whole?.verdict, reasons: [] };
  }
  const totals = new Map<SchedulingVerdict, number>();
  for (const reason of reasons) totals.set(reason.verdict, (totals.get(reason.verdict) ?? 0) + reason.nodes);
  // An unbound claim blocks the pod everywhere; otherwise the reason covering the most nodes wins.
  if (totals.has('pvc-unbound')) return { verdict: 'pvc-unbound', reasons };
  const [verdict] = [...totals.entries()].sort(
    (left, right) => right[1] - left[1] || (left[0] === 'unschedulable-resources' ? -1 : 1),
  )[0]!;
  return { verdict, reasons };
}

/** How the scheduler words the nodes a pod's node affinity or selector excludes. */
const PINNING = /didn't match (Pod's )?node (affinity|selector)/i;
