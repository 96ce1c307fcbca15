/**
 * The last word when no rule of the table explains a pod in trouble: what is seen, with low
 * confidence, rather than "nothing wrong".
 */
import type { CaseView, Finding } from '../case.ts';
import { eventLine } from '../evidence.ts';

/** A pod in trouble that no rule explains: say what is seen, with low confidence, rather than "nothing wrong". */
export function unexplainedFinding(view: CaseView): Finding | undefined {
  const pod = view.pod;
  if (!pod) return undefined;
  const ready = pod.conditions.find((condition) => condition.type === 'Ready');
  if (pod.phase === 'Succeeded' || (pod.phase === 'Running' && ready?.status === 'True')) return undefined;
  const warnings = pod.events
    .filter((event) => event.type === 'Warning')
    .slice(0, 2)
    .map(eventLine);
  return {
    category: pod.status.startsWith('Init') ? 'init-failure' : 'app-crash',
    cause: `pod ${pod.name} is ${pod.status} and no known failure explains it`,
    evidence: [
      `pod ${pod.name} is ${pod.status} (phase ${pod.phase}), ready ${pod.ready}, restarts ${pod.restarts}`,
      ...warnings,
    ],
    confidence: 'low',
  };
}
