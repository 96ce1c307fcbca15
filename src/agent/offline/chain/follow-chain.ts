/**
 * Following a failure to its root cause, one hop at a time (at most MAX_HOPS): a client
 * that cannot reach a dependency names a host in its log (dependency-host.ts), the host
 * resolves to a Service and the Service to its backend (service-backend.ts); a DNS failure
 * leads to the cluster DNS (cluster-dns.ts); an unbound claim to its provisioner
 * (provisioner.ts); a healthy-looking workload to what its pods log now
 * (look-behind-healthy.ts); a client dialling localhost to the sidecar it goes through
 * (local-proxy.ts). Every hop is a tool call the trail shows; the culprit is the
 * deepest object whose failure explains the others, and the client that alerted becomes
 * evidence.
 */
import type { Case, Conclusion, Finding } from '../case.ts';
import type { Query } from '../query.ts';
import { isClusterDnsFailure } from '../signals/targets.ts';
import { followClusterDns } from './cluster-dns.ts';
import { followDependencyHost } from './dependency-host.ts';
import { followLocalProxy } from './local-proxy.ts';
import { MAX_HOPS } from './hop.ts';
import { lookAcrossHealthyNamespace, lookBehindHealthy } from './look-behind-healthy.ts';
import { followProvisioner } from './provisioner.ts';
import { followWaitingContainer, waitingContainer } from './waiting-container.ts';

/** The client's case and finding, or the backend's when the client's failure leads to a broken backend. */
export function followChain(gathered: Case, finding: Finding, query: Query, hops = 0): Conclusion {
  const hop = { gathered, finding, query, hops, follow: followChain };
  if (finding.category === 'no-issue' && !gathered.pod && (gathered.workloadPods?.length ?? 0) > 0)
    return lookBehindHealthy(hop);
  if (finding.category === 'pvc-unbound' && gathered.pod && hops < MAX_HOPS) return followProvisioner(hop);
  const pod = gathered.pod;
  // An init container that waits on a dependency is its client: where it waits leads on.
  const waiting = hops < MAX_HOPS && finding.category === 'init-failure' ? waitingContainer(gathered) : undefined;
  if (waiting) return followWaitingContainer({ ...hop, ...waiting });
  // A client that dials localhost: the sidecar it dials through may say what really fails.
  const proxied =
    hops < MAX_HOPS && (finding.category === 'app-crash' || finding.category === 'dependency-unreachable')
      ? followLocalProxy(hop)
      : undefined;
  if (proxied) return proxied;
  if (finding.category !== 'dependency-unreachable' || !pod || hops >= MAX_HOPS) return { gathered, finding };
  const lines = logLinesOf(gathered, finding);
  const dnsFailure = lines.find((line) => isClusterDnsFailure(line));
  if (dnsFailure) return followClusterDns({ ...hop, line: dnsFailure });
  return followDependencyHost({ ...hop, pod, lines });
}

/**
 * A namespace reported as failing where no pod, workload or Service visibly fails: one
 * running pod per workload has its current log read, and the first whose log says its
 * dependency fails now is followed.
 */
export function lookAcrossNamespace(gathered: Case, query: Query): Conclusion | undefined {
  return lookAcrossHealthyNamespace({ gathered, query, follow: followChain });
}

/** The log lines behind the finding, most telling first, then the rest of the errors. */
function logLinesOf(gathered: Case, finding: Finding): string[] {
  const quoted = finding.evidence.filter((line) => line.startsWith('log: ')).map((line) => line.slice(5));
  return [...quoted, ...(gathered.logs?.errorLines ?? [])];
}
