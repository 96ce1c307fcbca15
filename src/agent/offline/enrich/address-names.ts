/**
 * An address a failing line names (`dial tcp 172.20.118.40:6379`) said by name: the
 * cluster IP or pod IP is resolved (resolve_host) to the Service or pod that has it, so a
 * person reads "session-cache", not an IP that changes with every redeploy.
 */
import type { Case, Finding } from '../case.ts';
import type { Query } from '../query.ts';
import { isLoopbackHost } from '../trace/loopback.ts';

const ADDRESS = /\b((?:\d{1,3}\.){3}\d{1,3}):(\d{2,5})\b/g;
const MAX_ADDRESSES = 2;
const DEPENDENCY_CATEGORIES = new Set(['dependency-unreachable']);
/** Linux's ephemeral range starts here: an address with such a port is a peer that called in, not a dependency dialed. */
const EPHEMERAL_PORT = 32768;

export function addressNameEvidence(finding: Finding, gathered: Case, query: Query): string[] {
  const namespace = gathered.pod?.namespace ?? gathered.workload?.namespace;
  // A recovered pod's lost dependency, or a client whose chain named no Service: elsewhere the hop already said where the address leads.
  const unnamed =
    finding.category === 'no-issue' ||
    (DEPENDENCY_CATEGORIES.has(finding.category) && !finding.evidence.some((line) => line.startsWith('followed ')));
  if (!namespace || !unnamed) return [];
  const addresses = new Set<string>();
  for (const line of finding.evidence) {
    if (!/\blog\b|logged|log:/.test(line)) continue;
    for (const match of line.matchAll(ADDRESS))
      if (!isLoopbackHost(match[1]!) && Number(match[2]) < EPHEMERAL_PORT) addresses.add(`${match[1]}:${match[2]}`);
  }
  const wanted = [...addresses]
    .slice(0, MAX_ADDRESSES)
    .map((host) => ({ host, resolved: query.data('resolve_host', { host, namespace }) }));
  query.barrier();
  return wanted.flatMap(({ host, resolved }) => {
    if (resolved?.service) return [`address ${host} is Service ${resolved.service.namespace}/${resolved.service.name}`];
    if (resolved?.pod) return [`address ${host} is pod ${resolved.pod.namespace}/${resolved.pod.name}`];
    return [];
  });
}
