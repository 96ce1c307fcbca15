/**
 * The hop for a client whose name resolution itself fails: the cluster DNS Service
 * (kube-system/kube-dns) and the CoreDNS pods behind it.
 */
import type { Conclusion } from '../case.ts';
import type { HopInput } from './hop.ts';
import { followService } from './service-backend.ts';

/** Resolution itself fails: the cluster DNS Service and its CoreDNS pods are the next hop. */
export function followClusterDns(input: HopInput & { line: string }): Conclusion {
  const { gathered, finding, query } = input;
  const service = query.data('describe_service', { namespace: 'kube-system', name: 'kube-dns' });
  query.barrier();
  if (!service) return { gathered, finding };
  const trail = `name resolution fails ("${input.line.trim().slice(0, 160)}"): followed to the cluster DNS Service kube-system/kube-dns`;
  return followService({ gathered, finding, query, follow: input.follow, hops: input.hops + 1, service, trail });
}
