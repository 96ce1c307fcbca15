/**
 * Rule `pod-recovered`: a pod running and ready, its last crash long ago, no recent
 * warnings, and no pace of restarts that says it will crash again.
 */
import type { Case, Finding } from '../case.ts';
import { restartPace } from '../containers.ts';
import { isRecent, secondsAgo } from '../evidence.ts';

const RECOVERED_AFTER_SECONDS = 30 * 60;

/** Running and ready, its last crash long ago, and no recent warnings. */
export function isRecovered(gathered: Case): boolean {
  const pod = gathered.pod;
  if (!pod || pod.phase !== 'Running') return false;
  if (pod.containers.some((container) => !container.init && !container.ready)) return false;
  if (pod.events.some((event) => event.type === 'Warning' && isRecent(event))) return false;
  for (const container of pod.containers) {
    const finished = container.lastState?.finishedAt;
    if (finished && (secondsAgo(finished, gathered) ?? 0) < RECOVERED_AFTER_SECONDS) return false;
    // Killed for memory again and again: the limit is still too low, however quiet it is right now.
    if (container.lastState?.reason === 'OOMKilled' && container.restartCount >= RECURRING_OOM_RESTARTS) return false;
    if (restartPace(container, gathered)?.recurring) return false;
  }
  return true;
}

const RECURRING_OOM_RESTARTS = 3;

export function recoveredFinding(gathered: Case): Finding {
  const pod = gathered.pod!;
  const restarted = pod.containers.filter((container) => container.restartCount > 0);
  const last = restarted.map((container) => container.lastState).find((state) => state?.finishedAt);
  const ago = last?.finishedAt ? secondsAgo(last.finishedAt, gathered) : undefined;
  return {
    category: 'no-issue',
    cause: `pod ${pod.name} has recovered: it is Running and ready`,
    evidence: [
      `pod ${pod.name} is ${pod.status}, ready ${pod.ready}, restarts ${pod.restarts}`,
      ...(last ? [`its last restart ended ${ago !== undefined ? `${Math.round(ago / 60)} minutes ago` : 'a while ago'} (${last.reason ?? 'terminated'}, exit code ${last.exitCode ?? '?'}); no warning events since`] : []),
      ...(gathered.deployment ? [`Deployment ${gathered.deployment.summary.namespace}/${gathered.deployment.summary.name}: ${gathered.deployment.summary.ready}/${gathered.deployment.summary.desired} ready`] : []),
    ],
    confidence: 'medium',
  };
}
