/**
 * Hop: a client that dials localhost reaches its dependency through a sidecar of its own pod
 * (a Cloud SQL proxy, an Envoy, a PgBouncer). What the client logs ("server closed the
 * connection", "EndOfStreamException", a generic crash) is the echo; when the sidecar's own
 * log says it cannot reach the real dependency, or is refused by it, that is the failure, and
 * the category follows the sidecar. The culprit stays the workload: the sidecar is its part.
 * Its log lines become evidence through the sidecar enricher, which quotes them for any such client.
 */
import type { Conclusion } from '../case.ts';
import { readLogSignals } from '../log-signals.ts';
import { localSidecars } from '../sidecars.ts';
import type { HopInput } from './hop.ts';

const FOLLOWED = new Set<string>(['dependency-unreachable', 'bad-credentials']);

function isFollowed(verdict: string | undefined): verdict is 'dependency-unreachable' | 'bad-credentials' {
  return verdict !== undefined && FOLLOWED.has(verdict);
}

export function followLocalProxy({ gathered, finding, query }: HopInput): Conclusion | undefined {
  const pod = gathered.pod;
  const sidecars = localSidecars(finding, gathered);
  if (!pod || sidecars.length === 0) return undefined;
  const logs = sidecars.map((container) => ({
    container,
    log: query.data('get_pod_logs', { namespace: pod.namespace, name: pod.name, container: container.name }),
  }));
  query.barrier();
  for (const { container, log } of logs) {
    if (!log) continue;
    const reading = readLogSignals([...log.errorLines, ...log.lines]);
    const verdict = reading.verdict;
    if (!isFollowed(verdict) || verdict === finding.category) continue;
    const line = reading.evidence[0] ?? '';
    const what = verdict === 'bad-credentials' ? 'is refused by the dependency' : 'cannot reach the dependency';
    return {
      gathered,
      finding: {
        ...finding,
        category: verdict,
        cause: `the app reaches its dependency through sidecar ${container.name} (${container.image}), which ${what}: "${line.trim().slice(0, 300)}"`,
        // The sidecar's lines themselves are the sidecar enricher's evidence (enrich/sidecar-evidence.ts), said once there.
        rule: `local-proxy via ${finding.rule ?? 'unknown'}`,
      },
    };
  }
  return undefined;
}
