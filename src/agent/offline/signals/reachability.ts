/**
 * Log lines that say a dependency did not answer at the network level: refused, timed
 * out, unroutable, reset, or a client that gave up connecting. Name resolution is in
 * name-resolution.ts; database and broker clients in dependency-clients.ts.
 */
import type { LogSignal } from './types.ts';

export const REACHABILITY_SIGNALS: readonly LogSignal[] = [
  {
    id: 'connection-refused',
    verdict: 'dependency-unreachable',
    pattern: /ECONNREFUSED|connection refused/i,
    means: 'Nothing listens at the address the app dialled: the dependency is down, not ready, or the port is wrong.',
    source:
      'The ECONNREFUSED socket error as every runtime prints it: Node (connect ECONNREFUSED 10.96.12.7:6379), Go (connect: connection refused), Python ([Errno 111] Connection refused), Erlang/Elixir (:econnrefused)',
    examples: {
      match: [
        'Error: connect ECONNREFUSED 10.96.12.7:6379',
        'dial tcp 10.96.41.12:5432: connect: connection refused',
        '** (DBConnection.ConnectionError) tcp connect (postgres-db:5432): connection refused - :econnrefused',
      ],
      noMatch: ['connection accepted from 10.244.1.9:53122'],
    },
  },
  {
    id: 'connection-timed-out',
    verdict: 'dependency-unreachable',
    pattern:
      /i\/o timeout|ETIMEDOUT|connect(ion)? timed out|timed out (while )?connecting|timeout (while )?connecting/i,
    means:
      'The dependency did not answer the connection in time: blocked by a NetworkPolicy or firewall, overloaded, or gone.',
    source:
      'Go net (dial tcp 10.96.41.12:5432: i/o timeout), Node (connect ETIMEDOUT), Java (Connection timed out), curl (Connection timed out)',
    examples: {
      match: [
        'dial tcp 10.96.41.12:5432: i/o timeout',
        'Error: connect ETIMEDOUT 10.0.12.4:443',
        'java.net.SocketTimeoutException: Connect timed out',
      ],
      noMatch: ['request completed in 1200ms (timeout 5000ms)'],
    },
  },
  {
    id: 'no-route-to-host',
    verdict: 'dependency-unreachable',
    pattern: /EHOSTUNREACH|ENETUNREACH|network is unreachable|no route to host|NoRouteToHost/i,
    means: 'The network has no path to the dependency address: a stale IP, a missing route, or a node that left.',
    source:
      'The EHOSTUNREACH and ENETUNREACH socket errors: Go (connect: no route to host), Node (connect EHOSTUNREACH), Java (NoRouteToHostException)',
    examples: {
      match: ['dial tcp 10.244.3.17:8080: connect: no route to host', 'Error: connect EHOSTUNREACH 10.244.3.17:8080'],
      noMatch: ['route /orders registered'],
    },
  },
  {
    id: 'connection-reset',
    verdict: 'dependency-unreachable',
    pattern: /connection reset by peer|ECONNRESET/i,
    means: 'The dependency (or something in between) dropped the connection.',
    source: 'The ECONNRESET socket error: Go (read: connection reset by peer), Node (read ECONNRESET)',
    examples: {
      match: ['read tcp 10.244.1.5:48122->10.96.3.3:5432: read: connection reset by peer', 'Error: read ECONNRESET'],
      noMatch: ['connection pool reset after config reload'],
    },
  },
  {
    id: 'could-not-connect',
    verdict: 'dependency-unreachable',
    pattern: /could not connect to|unable to connect to|failed to connect|Can't connect to\b/i,
    means: 'A client says in words that it could not connect to its dependency.',
    source:
      "Client libraries in general: libpq (could not connect to server), botocore (Could not connect to the endpoint URL), Redis CLI (Could not connect to Redis at), MySQL (Can't connect to MySQL server on)",
    examples: {
      match: [
        'botocore.exceptions.EndpointConnectionError: Could not connect to the endpoint URL: "https://sqs.eu-west-1.amazonaws.com/"',
        'failed to connect to database after 5 attempts',
        "ERROR 2003 (HY000): Can't connect to MySQL server on 'mysql:3306' (111)",
      ],
      noMatch: ['connected to database orders in 12ms'],
    },
  },
  {
    id: 'go-dial-failed',
    verdict: 'dependency-unreachable',
    pattern: /dial tcp/i,
    means: 'A Go program could not open a TCP connection; the rest of the line says why.',
    source: 'Go net.Dial errors: dial tcp host:port: <reason>',
    examples: {
      match: [
        'dial tcp: lookup orders-db.data on 10.96.0.10:53: no such host',
        'Get "http://inventory:8080/items": dial tcp 10.96.5.5:8080: connect: connection refused',
      ],
      noMatch: ['listening on tcp :8080'],
    },
  },
  {
    id: 'java-connect-exception',
    verdict: 'dependency-unreachable',
    pattern: /ConnectException|Communications link failure/,
    means: 'A JVM client could not connect to its dependency.',
    source:
      'Java: java.net.ConnectException: Connection refused; Netty AnnotatedConnectException; MySQL Connector/J CommunicationsException: Communications link failure',
    examples: {
      match: [
        'com.mysql.cj.jdbc.exceptions.CommunicationsException: Communications link failure',
        'io.netty.channel.AbstractChannel$AnnotatedConnectException: Connection refused: localhost/127.0.0.1:6379',
      ],
      noMatch: ['o.a.c.c.C.[Tomcat].[localhost] : Initializing Spring embedded WebApplicationContext'],
    },
  },
  {
    id: 'connection-pool-timeout',
    verdict: 'dependency-unreachable',
    pattern:
      /TimeoutException: Timeout expired|timed out waiting for (a )?(connection|node|broker)|connection pool timeout|timeout expired|Connection is not available, request timed out after|pool timed out while waiting for an open connection|PoolTimedOut/i,
    means:
      'The app waited for a connection to its dependency and got none in time: the dependency is unreachable or too slow to hand out connections.',
    source:
      'HikariCP (Connection is not available, request timed out after 30000ms), Kafka (TimeoutException: Timeout expired while fetching topic metadata), sqlx (PoolTimedOut), Npgsql (The connection pool has been exhausted / Timeout expired)',
    examples: {
      match: [
        'java.sql.SQLTransientConnectionException: HikariPool-1 - Connection is not available, request timed out after 30000ms.',
        'org.apache.kafka.common.errors.TimeoutException: Timeout expired while fetching topic metadata',
        'Error: pool timed out while waiting for an open connection',
      ],
      noMatch: ['HikariPool-1 - Start completed.'],
    },
  },
  {
    id: 'grpc-unavailable',
    verdict: 'dependency-unreachable',
    pattern:
      /code = (Unavailable|DeadlineExceeded)|StatusCode\.(UNAVAILABLE|DEADLINE_EXCEEDED)|StatusRuntimeException: (UNAVAILABLE|DEADLINE_EXCEEDED)/,
    means:
      'A gRPC call found no server to answer it (UNAVAILABLE) or got no answer before its deadline (DEADLINE_EXCEEDED).',
    source:
      'gRPC status codes 14 and 4: rpc error: code = Unavailable desc = ...; io.grpc.StatusRuntimeException: UNAVAILABLE: io exception; Python StatusCode.UNAVAILABLE',
    examples: {
      match: [
        'rpc error: code = Unavailable desc = name resolver error: produced zero addresses',
        'rpc error: code = DeadlineExceeded desc = context deadline exceeded',
        'io.grpc.StatusRuntimeException: UNAVAILABLE: io exception',
      ],
      noMatch: ['rpc error: code = InvalidArgument desc = quantity must be positive'],
    },
  },
  {
    id: 'http-client-timeout',
    verdict: 'dependency-unreachable',
    pattern: /Client\.Timeout exceeded while awaiting headers|ReadTimeoutError\(|Read timed out\. \(read timeout=/,
    means: 'An HTTP dependency accepted the connection but did not answer in time.',
    source:
      'Go net/http (Client.Timeout exceeded while awaiting headers), urllib3/requests (ReadTimeoutError: Read timed out. (read timeout=5))',
    examples: {
      match: [
        'Get "http://pricing:8080/v1/quote": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
        "requests.exceptions.ReadTimeout: HTTPConnectionPool(host='pricing', port=8080): Read timed out. (read timeout=5)",
      ],
      noMatch: ['http: Server.ReadTimeout set to 30s'],
    },
  },
  {
    id: 'python-new-connection-error',
    verdict: 'dependency-unreachable',
    pattern:
      /Max retries exceeded with url:.*\b(NewConnectionError|ConnectTimeoutError|NameResolutionError)|Failed to establish a new connection/,
    means: 'A Python HTTP client (requests, urllib3, elasticsearch-py) could not connect to the host it was calling.',
    source:
      "urllib3 via requests: HTTPConnectionPool(host='x', port=8080): Max retries exceeded with url: /y (Caused by NewConnectionError(...: Failed to establish a new connection: [Errno 111] Connection refused))",
    examples: {
      match: [
        "requests.exceptions.ConnectionError: HTTPConnectionPool(host='inventory', port=8080): Max retries exceeded with url: /items (Caused by NewConnectionError('<urllib3.connection.HTTPConnection object at 0x7f2b1c3e5d90>: Failed to establish a new connection: [Errno -3] Temporary failure in name resolution'))",
        'elasticsearch.exceptions.ConnectionError: ConnectionError(<urllib3.connection.HTTPConnection object at 0x7f8a2c1d0e50>: Failed to establish a new connection: [Errno 111] Connection refused) caused by: NewConnectionError(<urllib3.connection.HTTPConnection object at 0x7f8a2c1d0e50>: Failed to establish a new connection: [Errno 111] Connection refused)',
      ],
      noMatch: ['requests.exceptions.HTTPError: 404 Client Error: Not Found for url: http://inventory:8080/items/9'],
    },
  },
  {
    id: 'rust-connect-error',
    verdict: 'dependency-unreachable',
    pattern: /tcp connect error|error trying to connect/,
    means: 'A Rust HTTP client (hyper, reqwest) could not connect to the host it was calling.',
    source:
      'hyper/reqwest: error sending request for url (http://x): error trying to connect: tcp connect error: Connection refused (os error 111)',
    examples: {
      match: [
        'Error: reqwest::Error { kind: Request, url: "http://inventory:8080/items", source: hyper_util::client::legacy::Error(Connect, ConnectError("tcp connect error", Os { code: 111, kind: ConnectionRefused })) }',
      ],
      noMatch: ['hyper: connection established to inventory:8080'],
    },
  },
];
