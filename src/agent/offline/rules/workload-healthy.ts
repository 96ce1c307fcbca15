/**
 * Rule `workload-healthy`: no pod in trouble and every pod ready or completed; the revision
 * that runs now, and when it replaced the one before, say why an alert no longer holds.
 */
import type { Case, Finding } from '../case.ts';
import { revisionEvidence, secondsAgo } from '../evidence.ts';

/** No pod in trouble: the workload is healthy now, when every pod is ready or completed. */
export function healthyWorkloadFinding(gathered: Case): Finding | undefined {
  if (
    !gathered.workload ||
    !(gathered.workloadPods ?? []).every((pod) => pod.healthy) ||
    !(gathered.deployment?.summary.healthy ?? true)
  )
    return undefined;
  const pods = gathered.workloadPods ?? [];
  const restarted = pods
    .filter((pod) => pod.restarts > 0)
    .map((pod) => {
      const finished = pod.problem?.last ? pod.problem.state.finishedAt : undefined;
      const ago = finished ? secondsAgo(finished, gathered) : undefined;
      return `pod ${pod.name} is ${pod.status} and ready ${pod.ready}; ${pod.restarts} restart(s)${ago !== undefined ? `, the last ended ${Math.round(ago / 60)} minutes ago` : ''}`;
    });
  return {
    category: 'no-issue',
    cause: `${gathered.workload.kind} ${gathered.workload.namespace}/${gathered.workload.name} is healthy now: every pod is running and ready, or completed`,
    evidence: [
      `all ${pods.length} pod(s) are healthy: ${pods
        .slice(0, 5)
        .map((pod) => `${pod.name} ${pod.status}`)
        .join(', ')}`,
      ...(gathered.job
        ? gathered.job.jobs
            .slice(0, 1)
            .map(
              (job) =>
                `Job ${job.namespace}/${job.name} is ${job.state} (${job.succeeded} succeeded, ${job.failed} failed)${job.durationSeconds !== undefined ? `; it ran ${formatDuration(job.durationSeconds)}` : ''}`,
            )
        : []),
      ...revisionEvidence(gathered),
      ...restarted.slice(0, 3),
    ],
    confidence: 'medium',
  };
}

/** `13h 41m`, `7m`, `45s`: how long a run took, the way a person says it. */
function formatDuration(seconds: number): string {
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (hours > 0) return `${hours}h ${minutes}m`;
  return minutes > 0 ? `${minutes}m` : `${Math.round(seconds)}s`;
}
