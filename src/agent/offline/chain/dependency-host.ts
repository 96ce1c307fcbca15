/**
 * The hop from a client's log to the Service it cannot reach: the host its log names is
 * resolved (resolve_host) to a Service, whose backend is followed; a host that resolves to
 * no Service is told with the Services that are there.
 */
import type { PodDetailsData } from '../../../tools/describe-pod.ts';
import type { Conclusion } from '../case.ts';
import { readDependencyTarget } from '../signals/targets.ts';
import { isLoopbackHost } from '../trace/loopback.ts';
import { withEvidence, type HopInput } from './hop.ts';
import { followService } from './service-backend.ts';

export function followDependencyHost(input: HopInput & { pod: PodDetailsData; lines: readonly string[] }): Conclusion {
  const { gathered, finding, query, hops, pod, lines } = input;
  const named = lines.map((line) => ({ line, target: readDependencyTarget(line) })).find((entry) => entry.target);
  // Loopback is the pod itself (a sidecar): no Service stands behind it.
  if (!named?.target || isLoopbackHost(named.target.host)) return { gathered, finding };
  const host = named.target.port ? `${named.target.host}:${named.target.port}` : named.target.host;
  const resolved = query.data('resolve_host', { host, namespace: pod.namespace });
  query.barrier();
  if (!resolved) return { gathered, finding };
  if (!resolved.service) {
    if (resolved.resolvedBy !== 'none') return { gathered, finding };
    const where = resolved.namespace ?? pod.namespace;
    const similar = resolved.similar.length ? `; similar Services there: ${resolved.similar.join(', ')}` : '';
    return {
      gathered,
      finding: withEvidence(finding, [
        `${named.target.host} resolves to no Service: there is no Service "${resolved.name ?? named.target.host}" in namespace ${where}${similar}`,
      ]),
    };
  }
  const trail = `followed ${named.target.host} from the log of pod ${pod.name} to Service ${resolved.service.namespace}/${resolved.service.name}`;
  return followService({
    gathered,
    finding,
    query,
    follow: input.follow,
    hops: hops + 1,
    service: resolved.service,
    trail,
  });
}
