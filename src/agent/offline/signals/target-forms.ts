/**
 * The ways stacks name the host (and port) they failed to reach, resolve or log in to.
 * Each pattern has a `host` group and, where the stack prints one, a `port` group.
 */
import type { Row } from './types.ts';

export interface DependencyTarget {
  host: string;
  port?: number;
}

export interface TargetForm extends Row {
  /** What readDependencyTarget returns for each `examples.match` line, in order. */
  readonly targets: readonly DependencyTarget[];
}

const HOST = String.raw`[A-Za-z0-9][\w.-]*`;

function form(strings: TemplateStringsArray): RegExp {
  return new RegExp(String.raw(strings).replaceAll('HOST', HOST));
}

export const TARGET_FORMS: readonly TargetForm[] = [
  {
    id: 'target-go-lookup',
    pattern: form`\blookup (?<host>HOST)(?: on \S+)?: `,
    means: 'The name the Go resolver looked up; the DNS server after "on" is not the target.',
    source: 'Go net: dial tcp: lookup x on 10.96.0.10:53: no such host',
    examples: {
      match: ['dial tcp: lookup orders-db.data on 10.96.0.10:53: no such host', 'lookup redis: no such host'],
      noMatch: ['lookup of feature flags finished'],
    },
    targets: [{ host: 'orders-db.data' }, { host: 'redis' }],
  },
  {
    id: 'target-node-syscall',
    pattern: form`\b(?:ECONNREFUSED|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ECONNRESET) (?<host>HOST|\[[\da-fA-F:]+\]):(?<port>\d+)`,
    means: 'The address a Node socket call failed against.',
    source: 'Node net: Error: connect ECONNREFUSED 10.96.12.7:6379',
    examples: {
      match: ['Error: connect ECONNREFUSED 10.96.12.7:6379', 'Error: connect ETIMEDOUT 10.0.12.4:443'],
      noMatch: ['Error: read ECONNRESET'],
    },
    targets: [
      { host: '10.96.12.7', port: 6379 },
      { host: '10.0.12.4', port: 443 },
    ],
  },
  {
    id: 'target-getaddrinfo',
    pattern: form`getaddrinfo (?:ENOTFOUND|EAI_AGAIN|EAI_NONAME) (?<host>HOST)|getaddrinfo for (?<host2>HOST) failed`,
    means: 'The name getaddrinfo could not resolve.',
    source: 'Node (getaddrinfo ENOTFOUND redis-master), PHP (php_network_getaddresses: getaddrinfo for mysql failed)',
    examples: {
      match: [
        'Error: getaddrinfo ENOTFOUND redis-master.shop.svc.cluster.local',
        'SQLSTATE[HY000] [2002] php_network_getaddresses: getaddrinfo for mysql failed: Name or service not known',
      ],
      noMatch: ['php_network_getaddresses: getaddrinfo failed: Name or service not known'],
    },
    targets: [{ host: 'redis-master.shop.svc.cluster.local' }, { host: 'mysql' }],
  },
  {
    id: 'target-connection-to',
    pattern: form`Connection to (?<host>HOST):(?<port>\d+) (?:refused|failed)`,
    means: 'The host and port a JDBC or AMQP client could not connect to.',
    source: 'pgjdbc (Connection to orders-db.data:5432 refused.), pika (Connection to 10.96.8.3:5672 failed)',
    examples: {
      match: [
        'org.postgresql.util.PSQLException: Connection to orders-db.data:5432 refused. Check that the hostname and port are correct',
        'pika.exceptions.AMQPConnectionError: Connection to 10.96.8.3:5672 failed: [Errno 111] Connection refused',
      ],
      noMatch: ['Connection to orders-db.data:5432 established'],
    },
    targets: [
      { host: 'orders-db.data', port: 5432 },
      { host: '10.96.8.3', port: 5672 },
    ],
  },
  {
    id: 'target-libpq',
    pattern: form`could not translate host name "(?<host>[^"]+)"|server at "(?<host2>[^"]+)"(?: \([^)]*\))?, port (?<port>\d+)|on host "(?<host3>[^"]+)"(?: \([^)]*\))? and accepting\s+TCP/IP connections on port (?<port3>\d+)`,
    means: 'The PostgreSQL host libpq could not resolve or connect to.',
    source:
      'PostgreSQL libpq: could not translate host name "pg" to address; connection to server at "x" (10.0.3.4), port 5432 failed',
    examples: {
      match: [
        'could not translate host name "pg" to address: Name or service not known',
        'connection to server at "db.prod.svc" (10.0.3.4), port 5432 failed: Connection refused',
      ],
      noMatch: ['connection to server on socket "/var/run/postgresql/.s.PGSQL.5432" failed: No such file or directory'],
    },
    targets: [{ host: 'pg' }, { host: 'db.prod.svc', port: 5432 }],
  },
  {
    id: 'target-mysql',
    pattern: form`Unknown MySQL server host '(?<host>[^']+)'|Can't connect to MySQL server on '(?<host2>[^':]+)(?::(?<port2>\d+))?'`,
    means: 'The MySQL host the client could not resolve or connect to.',
    source: "MySQL client: Unknown MySQL server host 'x' (-2); Can't connect to MySQL server on 'x:3306' (111)",
    examples: {
      match: [
        "ERROR 2005 (HY000): Unknown MySQL server host 'mysql-primary' (-2)",
        "ERROR 2003 (HY000): Can't connect to MySQL server on 'mysql:3306' (111)",
      ],
      noMatch: ["Can't connect to local MySQL server through socket '/var/run/mysqld/mysqld.sock' (2)"],
    },
    targets: [{ host: 'mysql-primary' }, { host: 'mysql', port: 3306 }],
  },
  {
    id: 'target-erlang-tcp-connect',
    pattern: form`tcp connect \((?<host>HOST):(?<port>\d+)\)`,
    means: 'The host and port an Erlang or Elixir client could not connect to.',
    source: 'Elixir DBConnection: tcp connect (postgres-db:5432): non-existing domain - :nxdomain',
    examples: {
      match: ['** (DBConnection.ConnectionError) tcp connect (postgres-db:5432): non-existing domain - :nxdomain'],
      noMatch: ['tcp connect to postgres-db succeeded'],
    },
    targets: [{ host: 'postgres-db', port: 5432 }],
  },
  {
    id: 'target-redis',
    pattern: form`(?:Could not connect to Redis at|Error connecting to Redis on|Redis connection to) (?<host>HOST):(?<port>\d+)`,
    means: 'The Redis host and port the client could not connect to.',
    source: 'redis-cli (Could not connect to Redis at redis:6379: Connection refused), redis-rb, node-redis',
    examples: {
      match: ['Could not connect to Redis at redis:6379: Connection refused'],
      noMatch: ['Could not connect to Redis: no address configured'],
    },
    targets: [{ host: 'redis', port: 6379 }],
  },
  {
    id: 'target-java-socket-address',
    pattern: form`\b(?<host>[A-Za-z][\w.-]*)/\d{1,3}(?:\.\d{1,3}){3}:(?<port>\d+)`,
    means: 'A JVM socket address, name/ip:port: the name is the target.',
    source:
      'Java InetSocketAddress as Kafka and Netty print it: Connection to node -1 (kafka-0.kafka-headless.streaming.svc.cluster.local/10.1.2.3:9092)',
    examples: {
      match: [
        'Connection to node -1 (kafka-0.kafka-headless.streaming.svc.cluster.local/10.1.2.3:9092) could not be established. Broker may not be available.',
        'AnnotatedConnectException: Connection refused: localhost/127.0.0.1:6379',
      ],
      noMatch: ['loaded /etc/app/10.conf'],
    },
    targets: [
      { host: 'kafka-0.kafka-headless.streaming.svc.cluster.local', port: 9092 },
      { host: 'localhost', port: 6379 },
    ],
  },
  {
    id: 'target-go-dial',
    pattern: form`\bdial (?:tcp|tcp4|tcp6|udp) (?<host>HOST|\[[\da-fA-F:]+\]):(?<port>\d+)`,
    means: 'The address a Go program dialled.',
    source:
      'Go net: dial tcp 10.96.41.12:5432: i/o timeout; gRPC transport: Error while dialing: dial tcp 10.0.0.5:9090',
    examples: {
      match: [
        'dial tcp 10.96.41.12:5432: i/o timeout',
        'rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: dial tcp 10.0.0.5:9090: connect: connection refused"',
      ],
      noMatch: ['dial tcp: lookup failed'],
    },
    targets: [
      { host: '10.96.41.12', port: 5432 },
      { host: '10.0.0.5', port: 9090 },
    ],
  },
  {
    id: 'target-url',
    pattern: form`(?:\b(?:calling|to|for|url|URL|endpoint)\s*[=:]?\s*"?|\b(?:Get|Post|Put|Delete|Patch|Head) "|[("'])(?:https?|grpcs?|amqps?|rediss?|postgres(?:ql)?|mysql|mongodb(?:\+srv)?|nats|kafka)://(?:[^@\s/]+@)?(?<host>HOST)(?::(?<port>\d+))?`,
    means: 'The host of a URL the app was calling; a URL offered as documentation ("see https://...") is not a target.',
    source:
      'Go net/http (Get "http://inventory:8080/items": ...), Spring (I/O error on GET request for "http://..."), reqwest (error sending request for url (http://...)), botocore (endpoint URL: "https://...")',
    examples: {
      match: [
        'Get "http://inventory:8080/items": dial tcp 10.96.5.5:8080: connect: connection refused',
        'level=error msg="payment call failed" status=401 calling https://payments.example.com/v1/charges',
        'FetchError: request to http://inventory:8080/items failed, reason: connect ECONNREFUSED 10.96.5.5:8080',
      ],
      noMatch: ['For details see https://www.postgresql.org/docs/current/auth-pg-hba-conf.html'],
    },
    targets: [{ host: 'inventory', port: 8080 }, { host: 'payments.example.com' }, { host: 'inventory', port: 8080 }],
  },
  {
    id: 'target-urllib3-pool',
    pattern: form`host='(?<host>[^']+)', port=(?<port>\d+)`,
    means: 'The host and port of a urllib3 connection pool (requests, elasticsearch-py).',
    source: "urllib3: HTTPConnectionPool(host='inventory', port=8080): Max retries exceeded with url: /items",
    examples: {
      match: [
        "requests.exceptions.ConnectionError: HTTPConnectionPool(host='inventory', port=8080): Max retries exceeded with url: /items",
      ],
      noMatch: ['Max retries exceeded with url: /items'],
    },
    targets: [{ host: 'inventory', port: 8080 }],
  },
  {
    id: 'target-host-named-in-words',
    pattern: form`(?:UnknownHostException: (?<host>HOST)(?=:|\s*$)|Unable to resolve host "(?<host2>[^"]+)"|Could not resolve host: (?<host3>HOST)|server can't find (?<host4>HOST):|Failed to resolve '(?<host5>HOST)(?::(?<port5>\d+))?'|(?:can't resolve|bad address) '(?<host6>HOST)(?::(?<port6>\d+))?')`,
    means: 'The host a resolver or client names in words as the one it could not resolve.',
    source:
      "Java (UnknownHostException: x), curl (Could not resolve host: x), nslookup (server can't find x: NXDOMAIN; busybox: can't resolve 'x'), busybox wget (bad address 'x'), librdkafka and urllib3 (Failed to resolve 'x:9092')",
    examples: {
      match: [
        'java.net.UnknownHostException: orders-db: Name or service not known',
        'curl: (6) Could not resolve host: inventory',
        "%3|1764410000.123|FAIL|rdkafka#consumer-1| [thrd:kafka:9092/bootstrap]: kafka:9092/bootstrap: Failed to resolve 'kafka:9092': Name or service not known",
        "nslookup: can't resolve 'rabbitmq.messaging.svc.cluster.local'",
        "wget: bad address 'inventory:8080'",
      ],
      noMatch: ['java.net.UnknownHostException: Unable to resolve host'],
    },
    targets: [
      { host: 'orders-db' },
      { host: 'inventory' },
      { host: 'kafka', port: 9092 },
      { host: 'rabbitmq.messaging.svc.cluster.local' },
      { host: 'inventory', port: 8080 },
    ],
  },
  {
    id: 'target-structured-field',
    pattern: form`(?:"(?:addr|address|host|hostname|broker|server|endpoint|upstream|target)"\s*:\s*"|\b(?:addr|address|host|broker|server|endpoint|upstream|node|target)=)(?<host>[A-Za-z][\w.-]*\.[\w.-]*[A-Za-z0-9]|[A-Za-z][\w-]*)(?::(?<port>\d+))?(?=["\s,}]|$)`,
    means: 'The dependency a structured log line names in a field of its own (addr, host, broker, server, node...).',
    source:
      'Structured loggers (zap, slog, logrus, pino, structlog): "addr":"redis.auth.svc.cluster.local:6379"; node=rabbitmq-1.rabbitmq-headless:5672',
    examples: {
      match: [
        '{"time":"2026-11-24T07:46:12.000Z","level":"ERROR","msg":"session store ping failed","addr":"redis.auth.svc.cluster.local:6379","error":"WRONGPASS invalid username-password pair or user is disabled."}',
        'level=warn msg="amqp connection lost" node=rabbitmq-1.rabbitmq-headless.prod.svc.cluster.local:5672 error="read tcp: i/o timeout (heartbeat missed)"',
        '{"level":"warn","msg":"kafka: broker handshake failed","broker":"kafka-0.kafka-headless.kafka.svc.cluster.local:9093","local":"10.42.1.23:50412"}',
      ],
      noMatch: ['{"level":"info","msg":"request served","local":"10.42.1.23:8080"}'],
    },
    targets: [
      { host: 'redis.auth.svc.cluster.local', port: 6379 },
      { host: 'rabbitmq-1.rabbitmq-headless.prod.svc.cluster.local', port: 5672 },
      { host: 'kafka-0.kafka-headless.kafka.svc.cluster.local', port: 9093 },
    ],
  },
  {
    id: 'target-connect-in-words',
    pattern: form`(?:Failed to connect to (?<host>HOST) port (?<port>\d+)|Failed to open TCP connection to (?<host2>HOST):(?<port2>\d+)|Bootstrap broker (?<host3>HOST):(?<port3>\d+)|\[thrd:(?:\w+://)?(?<host4>HOST):(?<port4>\d+)/(?:bootstrap|\d+)\]|\d+(?:\.\d+){3}:\d+ \((?<host5>HOST)\): dial error|\bhost=(?<host6>HOST))`,
    means: 'The host a client names in words as the one it could not connect to.',
    source:
      'curl (Failed to connect to x port 8080), Ruby Net::HTTP (Failed to open TCP connection to x:443), Kafka (Bootstrap broker x:9092 disconnected), librdkafka ([thrd:x:9092/bootstrap]), pgx (10.96.3.3:5432 (orders-db): dial error; failed to connect to `host=orders-db`)',
    examples: {
      match: [
        'curl: (7) Failed to connect to inventory port 8080 after 3 ms: Connection refused',
        'Failed to open TCP connection to payments:443 (getaddrinfo: Name or service not known) (SocketError)',
        'failed to connect to `user=app database=orders`: 10.96.3.3:5432 (orders-db): dial error: dial tcp 10.96.3.3:5432: connect: connection refused',
      ],
      noMatch: ['curl: (7) Failed to connect'],
    },
    targets: [{ host: 'inventory', port: 8080 }, { host: 'payments', port: 443 }, { host: 'orders-db' }],
  },
  {
    id: 'target-dotnet-parenthesised',
    pattern: form`(?:No such host is known|Connection refused|Name or service not known|Resource temporarily unavailable|Connection timed out)\.? \((?<host>HOST):(?<port>\d+)\)`,
    means: 'The host and port .NET names in parentheses after a socket error.',
    source: '.NET HttpRequestException: No such host is known. (inventory:80)',
    examples: {
      match: [
        'System.Net.Http.HttpRequestException: No such host is known. (inventory:80)',
        'System.Net.Http.HttpRequestException: Connection refused (orders-api:8080)',
      ],
      noMatch: ['System.Net.Http.HttpRequestException: Connection refused'],
    },
    targets: [
      { host: 'inventory', port: 80 },
      { host: 'orders-api', port: 8080 },
    ],
  },
  {
    id: 'target-host-port-errno',
    pattern: form`(?<host>HOST):(?<port>\d+): (?:\[Errno|timed out|connection closed)`,
    means: 'A host:port a Python client (pymongo) reports with the socket error that followed.',
    source: 'pymongo: ServerSelectionTimeoutError: mongo-0.mongo:27017: [Errno 111] Connection refused',
    examples: {
      match: [
        'pymongo.errors.ServerSelectionTimeoutError: mongo-0.mongo:27017: [Errno 111] Connection refused, Timeout: 30s',
      ],
      noMatch: ['[Errno 111] Connection refused'],
    },
    targets: [{ host: 'mongo-0.mongo', port: 27017 }],
  },
  {
    id: 'target-proxy-upstream',
    pattern: form`host not found in upstream "(?<host>HOST)(?::(?<port>\d+))?"`,
    means: 'The upstream a reverse proxy could not resolve, as its configuration names it.',
    source: 'nginx: [emerg] host not found in upstream "backend-v2:8080" in /etc/nginx/conf.d/default.conf:14',
    examples: {
      match: ['nginx: [emerg] host not found in upstream "backend-v2:8080" in /etc/nginx/conf.d/default.conf:14'],
      noMatch: ['upstream response time 0.012 request time 0.015'],
    },
    targets: [{ host: 'backend-v2', port: 8080 }],
  },
];
