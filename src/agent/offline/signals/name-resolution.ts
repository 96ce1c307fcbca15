/**
 * Log lines that say the name of a dependency did not resolve: no such name (a typo, a
 * Service in another namespace, a Service that is gone) or a resolver that did not answer.
 * cluster-dns.ts tells the second kind apart; targets.ts reads the name.
 */
import type { LogSignal } from './types.ts';

export const NAME_RESOLUTION_SIGNALS: readonly LogSignal[] = [
  {
    id: 'node-enotfound',
    verdict: 'dependency-unreachable',
    pattern: /\bENOTFOUND\b|\bEAI_AGAIN\b/,
    means:
      'Node could not resolve the dependency host name: no such name (ENOTFOUND), or the resolver did not answer (EAI_AGAIN).',
    source: 'Node dns/net: Error: getaddrinfo ENOTFOUND redis-master.shop.svc.cluster.local / getaddrinfo EAI_AGAIN',
    examples: {
      match: [
        'Error: getaddrinfo ENOTFOUND redis-master.shop.svc.cluster.local',
        'MongoServerSelectionError: getaddrinfo EAI_AGAIN mongo-0.mongo.data.svc',
      ],
      noMatch: [
        'resolved redis-master.shop.svc.cluster.local to 10.96.12.7',
        "ModuleNotFoundError: No module named 'redis'",
      ],
    },
  },
  {
    id: 'getaddrinfo-failed',
    verdict: 'dependency-unreachable',
    pattern: /getaddrinfo/i,
    means: 'The C library resolver could not resolve the dependency host name.',
    source:
      'getaddrinfo(3) failures as runtimes relay them: PHP (php_network_getaddresses: getaddrinfo failed), Ruby (getaddrinfo: Name or service not known (SocketError)), Node',
    examples: {
      match: [
        'SQLSTATE[HY000] [2002] php_network_getaddresses: getaddrinfo for mysql failed: Name or service not known',
        'Failed to open TCP connection to payments:443 (getaddrinfo: Name or service not known) (SocketError)',
      ],
      noMatch: ['resolver: using nameserver 10.96.0.10'],
    },
  },
  {
    id: 'no-such-host',
    verdict: 'dependency-unreachable',
    pattern: /no such host/i,
    means: 'The resolver answered that the name does not exist (NXDOMAIN).',
    source: 'Go net (lookup x on 10.96.0.10:53: no such host), .NET (No such host is known)',
    examples: {
      match: [
        'dial tcp: lookup orders-db.data on 10.96.0.10:53: no such host',
        'System.Net.Http.HttpRequestException: No such host is known. (inventory:80)',
      ],
      noMatch: ['no such table: orders'],
    },
  },
  {
    id: 'resolver-name-unknown',
    verdict: 'dependency-unreachable',
    pattern:
      /Name or service not known|No address associated with hostname|Name does not resolve|Temporary failure in name resolution|server misbehaving/i,
    means: 'The C library resolver (glibc, musl) or Go resolver could not turn the host name into an address.',
    source:
      'glibc EAI_NONAME / EAI_AGAIN messages (Name or service not known, Temporary failure in name resolution), musl (Name does not resolve), Go (server misbehaving)',
    examples: {
      match: [
        'psycopg2.OperationalError: could not translate host name "pg" to address: Name or service not known',
        'socket.gaierror: [Errno -3] Temporary failure in name resolution',
        'dial tcp: lookup kafka on 10.96.0.10:53: server misbehaving',
      ],
      noMatch: ['service orders-db is known, 2 endpoints'],
    },
  },
  {
    id: 'libpq-translate-host',
    verdict: 'dependency-unreachable',
    pattern: /could not translate host name/i,
    means: 'libpq could not resolve the PostgreSQL host name.',
    source: 'PostgreSQL libpq: could not translate host name "x" to address',
    examples: {
      match: ['psql: error: could not translate host name "orders-db" to address: Name or service not known'],
      noMatch: ['database host name set to "orders-db"'],
    },
  },
  {
    id: 'could-not-resolve',
    verdict: 'dependency-unreachable',
    pattern: /can't resolve|could not resolve|unable to resolve|bad address '/i,
    means: 'A client says in words that it could not resolve the dependency host.',
    source:
      "curl (Could not resolve host: x), busybox nslookup and wget (can't resolve 'x', bad address 'x'), Java and .NET clients (Unable to resolve host)",
    examples: {
      match: [
        'curl: (6) Could not resolve host: inventory',
        'java.net.UnknownHostException: Unable to resolve host "orders-db"',
        "wget: bad address 'inventory:8080'",
      ],
      noMatch: ['resolved 3 addresses for orders-db'],
    },
  },
  {
    id: 'java-unknown-host',
    verdict: 'dependency-unreachable',
    pattern: /UnknownHostException/i,
    means: 'A JVM client could not resolve the dependency host name.',
    source: 'Java: java.net.UnknownHostException: orders-db: Name or service not known',
    examples: {
      match: ['java.net.UnknownHostException: orders-db.data.svc.cluster.local'],
      noMatch: ['java.net.SocketException: Socket closed'],
    },
  },
  {
    id: 'erlang-nxdomain',
    verdict: 'dependency-unreachable',
    pattern: /:nxdomain|non-existing domain/,
    means: 'The Erlang resolver found no such name.',
    source:
      'Erlang inet, relayed by Elixir DBConnection, Redix, AMQP: tcp connect (x:5432): non-existing domain - :nxdomain',
    examples: {
      match: ['** (DBConnection.ConnectionError) tcp connect (postgres-db:5432): non-existing domain - :nxdomain'],
      noMatch: ['[info] Running ShopWeb.Endpoint with cowboy 2.12.0 at :::4000 (http)'],
    },
  },
  {
    id: 'mysql-unknown-host',
    verdict: 'dependency-unreachable',
    pattern: /Unknown MySQL server host/,
    means: 'The MySQL client could not resolve the server host name.',
    source: "MySQL client library (error 2005): Unknown MySQL server host 'x' (-2)",
    examples: {
      match: ["ERROR 2005 (HY000): Unknown MySQL server host 'mysql-primary' (-2)"],
      noMatch: ["mysqld: ready for connections. Version: '8.4.3'"],
    },
  },
  {
    id: 'dns-tool-failure',
    verdict: 'dependency-unreachable',
    pattern: /server can't find \S+: (NXDOMAIN|SERVFAIL)|no servers could be reached/,
    means: 'A DNS tool in the container (nslookup, dig) found no answer for the name.',
    source: "BIND tools: ** server can't find x: NXDOMAIN; ;; connection timed out; no servers could be reached",
    examples: {
      match: ["** server can't find orders-db: NXDOMAIN", ';; connection timed out; no servers could be reached'],
      noMatch: ['Name:\torders-db.data.svc.cluster.local'],
    },
  },
  {
    id: 'proxy-upstream-not-found',
    verdict: 'dependency-unreachable',
    pattern: /host not found in (upstream|resolver)|no live upstreams|could not resolve (upstream|backend)/i,
    means: 'A reverse proxy could not resolve an upstream its configuration names: nginx refuses to start on it.',
    source:
      'nginx: [emerg] host not found in upstream "backend:8080" in /etc/nginx/conf.d/default.conf:14; HAProxy: could not resolve address',
    examples: {
      match: ['nginx: [emerg] host not found in upstream "backend-v2:8080" in /etc/nginx/conf.d/default.conf:14'],
      noMatch: ['upstream response time 0.012'],
    },
  },
];
