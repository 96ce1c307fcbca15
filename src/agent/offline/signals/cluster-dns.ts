/**
 * Whether a line says name resolution itself failed: the resolver (the cluster DNS)
 * did not answer, timed out or answered with an error. A clean "no such name" for one
 * host (NXDOMAIN) is not this: the resolver worked and the name is wrong.
 */
import type { Row } from './types.ts';

export const CLUSTER_DNS_FAILURES: readonly Row[] = [
  {
    id: 'dns-eai-again',
    pattern: /EAI_AGAIN|getaddrinfo: Try again/,
    means: 'The resolver gave no answer in time (EAI_AGAIN): the cluster DNS is down, overloaded or blocked.',
    source: 'getaddrinfo EAI_AGAIN as Node prints it (getaddrinfo EAI_AGAIN redis), musl (getaddrinfo: Try again)',
    examples: {
      match: [
        'Error: getaddrinfo EAI_AGAIN redis-master.shop.svc.cluster.local',
        'getaddrinfo: Try again (SocketError)',
      ],
      noMatch: ['Error: getaddrinfo ENOTFOUND redis-master.shop.svc.cluster.local'],
    },
  },
  {
    id: 'dns-temporary-failure',
    pattern: /Temporary failure in name resolution/i,
    means: 'The C library resolver could not get an answer: the cluster DNS did not respond.',
    source:
      'glibc EAI_AGAIN: Temporary failure in name resolution (Python socket.gaierror [Errno -3], Ruby, Java UnknownHostException, Rust)',
    examples: {
      match: ['socket.gaierror: [Errno -3] Temporary failure in name resolution'],
      noMatch: ['socket.gaierror: [Errno -2] Name or service not known'],
    },
  },
  {
    id: 'dns-server-misbehaving',
    pattern: /server misbehaving/,
    means: 'The Go resolver got an error answer (SERVFAIL) or garbage from the DNS server.',
    source: 'Go net: lookup x on 10.96.0.10:53: server misbehaving',
    examples: {
      match: ['dial tcp: lookup kafka on 10.96.0.10:53: server misbehaving'],
      noMatch: ['dial tcp: lookup kafka on 10.96.0.10:53: no such host'],
    },
  },
  {
    id: 'dns-resolver-unreachable',
    pattern:
      /(read|write) udp \S+->\S+:53: (i\/o timeout|connection refused)|dial udp \S+:53: |lookup \S+ on \S+:53: .*(i\/o timeout|connection refused|no route to host)|communications error to \S+#53/,
    means:
      'The resolver could not talk to the DNS server at port 53: CoreDNS is down or a NetworkPolicy blocks DNS egress.',
    source:
      'Go net (lookup x on 10.96.0.10:53: read udp 10.244.1.5:41234->10.96.0.10:53: i/o timeout), BIND tools (communications error to 10.96.0.10#53: timed out)',
    examples: {
      match: [
        'dial tcp: lookup orders-db.data on 10.96.0.10:53: read udp 10.244.1.5:41234->10.96.0.10:53: i/o timeout',
        ';; communications error to 10.96.0.10#53: timed out',
      ],
      noMatch: ['dial tcp 10.96.41.12:5432: i/o timeout'],
    },
  },
  {
    id: 'dns-no-servers-reached',
    pattern: /no servers could be reached|\bSERVFAIL\b/,
    means: 'A DNS tool reached no DNS server, or the server failed to answer.',
    source:
      "BIND tools (dig, nslookup): ;; connection timed out; no servers could be reached / server can't find x: SERVFAIL",
    examples: {
      match: [
        ';; connection timed out; no servers could be reached',
        "** server can't find orders-db.data.svc.cluster.local: SERVFAIL",
      ],
      noMatch: ["** server can't find orders-db: NXDOMAIN"],
    },
  },
  {
    id: 'dns-dotnet-try-again',
    pattern: /Resource temporarily unavailable \([\w.-]+:\d+\)/,
    means: 'The .NET resolver got no answer (EAI_AGAIN) for the host it names.',
    source: '.NET System.Net.Sockets.SocketException (00000001, 11): Resource temporarily unavailable (orders-db:5432)',
    examples: {
      match: ['System.Net.Http.HttpRequestException: Resource temporarily unavailable (inventory:80)'],
      noMatch: ['System.Net.Http.HttpRequestException: No such host is known. (inventory:80)'],
    },
  },
];

export function isClusterDnsFailure(line: string): boolean {
  return CLUSTER_DNS_FAILURES.some((row) => row.pattern.test(line));
}
