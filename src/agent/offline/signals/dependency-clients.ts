/**
 * Log lines in which a database, cache or broker client says it could not reach its
 * server, in the client's own words.
 */
import type { LogSignal } from './types.ts';

export const DEPENDENCY_CLIENT_SIGNALS: readonly LogSignal[] = [
  {
    id: 'libpq-connection-failed',
    verdict: 'dependency-unreachable',
    pattern: /connection to server at .* failed|OperationalError: connection failed/i,
    means: 'libpq could not open a connection to the PostgreSQL server; the rest of the line says why.',
    source:
      'PostgreSQL libpq, relayed by psycopg and SQLAlchemy: connection to server at "x" (10.0.3.4), port 5432 failed: Connection refused',
    examples: {
      match: [
        'sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) connection to server at "db.prod.svc" (10.0.3.4), port 5432 failed: Connection timed out',
      ],
      noMatch: ['connection to server at "db.prod.svc" (10.0.3.4), port 5432 established'],
    },
  },
  {
    id: 'pgjdbc-connection-refused',
    verdict: 'dependency-unreachable',
    pattern: /Connection to \S+ refused|The connection attempt failed/,
    means: 'The PostgreSQL JDBC driver could not connect to the server.',
    source:
      'pgjdbc: org.postgresql.util.PSQLException: Connection to x:5432 refused. Check that the hostname and port are correct and that the postmaster is accepting TCP/IP connections.',
    examples: {
      match: [
        'org.postgresql.util.PSQLException: Connection to orders-db.data:5432 refused. Check that the hostname and port are correct and that the postmaster is accepting TCP/IP connections.',
        'org.postgresql.util.PSQLException: The connection attempt failed.',
      ],
      noMatch: ['Connection to orders-db.data:5432 established, server version 16.4'],
    },
  },
  {
    id: 'postgres-not-accepting',
    verdict: 'dependency-unreachable',
    pattern: /the database system is (starting up|shutting down|in recovery mode|not yet accepting connections)/i,
    means: 'The PostgreSQL server is up but not accepting connections yet (or any more).',
    source: 'PostgreSQL server: FATAL: the database system is starting up',
    examples: {
      match: ['FATAL:  the database system is starting up'],
      noMatch: ['LOG:  database system is ready to accept connections'],
    },
  },
  {
    id: 'mysql-connection-lost',
    verdict: 'dependency-unreachable',
    pattern: /Lost connection to MySQL server|MySQL server has gone away|SQLSTATE\[HY000\] \[2002\]/,
    means: 'The MySQL client lost or could not open its connection to the server.',
    source:
      "MySQL client (errors 2002, 2006, 2013): Lost connection to MySQL server at 'reading initial communication packet'; PDO SQLSTATE[HY000] [2002] Connection refused",
    examples: {
      match: [
        "ERROR 2013 (HY000): Lost connection to MySQL server at 'reading initial communication packet', system error: 104",
        'SQLSTATE[HY000] [2002] Connection refused',
      ],
      noMatch: ["SQLSTATE[42S02]: Base table or view not found: 1146 Table 'shop.orders' doesn't exist"],
    },
  },
  {
    id: 'sqlserver-network-error',
    verdict: 'dependency-unreachable',
    pattern: /A network-related or instance-specific error occurred while establishing a connection to SQL Server/,
    means: 'The SQL Server client could not reach the server.',
    source:
      'Microsoft.Data.SqlClient: A network-related or instance-specific error occurred while establishing a connection to SQL Server.',
    examples: {
      match: [
        'Microsoft.Data.SqlClient.SqlException (0x80131904): A network-related or instance-specific error occurred while establishing a connection to SQL Server. The server was not found or was not accessible.',
      ],
      noMatch: ["Microsoft.Data.SqlClient.SqlException (0x80131904): Invalid object name 'dbo.Orders'."],
    },
  },
  {
    id: 'mongo-server-selection',
    verdict: 'dependency-unreachable',
    pattern:
      /server selection timed? ?out|MongoServerSelectionError|ServerSelectionTimeoutError|No suitable servers found|MongoNetworkError/i,
    means: 'The MongoDB driver found no reachable server matching its read preference.',
    source:
      'MongoDB drivers: MongoServerSelectionError: Server selection timed out after 30000 ms; pymongo ServerSelectionTimeoutError',
    examples: {
      match: [
        'MongoServerSelectionError: Server selection timed out after 30000 ms',
        'pymongo.errors.ServerSelectionTimeoutError: mongo-0.mongo:27017: [Errno -2] Name or service not known, Timeout: 30s',
      ],
      noMatch: ['MongoServerError: E11000 duplicate key error collection: shop.orders'],
    },
  },
  {
    id: 'redis-cannot-connect',
    verdict: 'dependency-unreachable',
    pattern:
      /Could not connect to Redis at|Error connecting to Redis|Redis connection to \S+ failed|CannotConnectError/,
    means: 'The Redis client could not connect to the server.',
    source:
      'redis-cli and hiredis (Could not connect to Redis at x:6379: Connection refused), node-redis (Redis connection to x failed), redis-rb (Redis::CannotConnectError)',
    examples: {
      match: [
        'Could not connect to Redis at redis:6379: Connection refused',
        'Redis::CannotConnectError: Error connecting to Redis on redis-master:6379 (Errno::ECONNREFUSED)',
      ],
      noMatch: ['Ready to accept connections tcp'],
    },
  },
  {
    id: 'kafka-broker-unavailable',
    verdict: 'dependency-unreachable',
    pattern:
      /could not be established|Broker may not be available|Bootstrap broker \S+ \(id: -?\d+ rack: \S+\) disconnected|All broker connections are down|KafkaJSConnectionError|KafkaJSBrokerNotFound/i,
    means: 'The Kafka client could not reach any broker it was given.',
    source:
      'Apache Kafka clients (Connection to node -1 (x/10.1.2.3:9092) could not be established. Broker may not be available.), librdkafka (All broker connections are down), KafkaJS (KafkaJSConnectionError)',
    examples: {
      match: [
        '[Consumer clientId=orders-1, groupId=orders] Connection to node -1 (kafka-0.kafka-headless.streaming.svc.cluster.local/10.1.2.3:9092) could not be established. Broker may not be available.',
        '%3|1764410000.123|FAIL|rdkafka#producer-1| [thrd:kafka:9092/bootstrap]: 1/1 brokers are down: Local: All broker connections are down',
      ],
      noMatch: ['[Producer clientId=orders-1] Cluster ID: 4L6g3nShT-eMCtK--X86sw'],
    },
  },
  {
    id: 'rabbitmq-connection-failed',
    verdict: 'dependency-unreachable',
    pattern: /AMQPConnectionError|Socket closed abruptly during opening handshake/,
    means: 'The AMQP client could not open a connection to RabbitMQ.',
    source: 'pika: pika.exceptions.AMQPConnectionError; amqplib: Socket closed abruptly during opening handshake',
    examples: {
      match: [
        'pika.exceptions.AMQPConnectionError: Connection to 10.96.8.3:5672 failed: [Errno 111] Connection refused',
      ],
      noMatch: ['amqp: connected to rabbitmq.messaging:5672, vhost /'],
    },
  },
  {
    id: 'elasticsearch-no-nodes',
    verdict: 'dependency-unreachable',
    pattern:
      /NoNodesAvailableException|None of the configured nodes are available|NoLivingConnectionsError|There are no living connections/,
    means: 'The Elasticsearch or OpenSearch client has no node it can reach.',
    source:
      'Elasticsearch Java client (NoNodesAvailableException: None of the configured nodes are available), JS client (NoLivingConnectionsError), PHP client (No alive nodes)',
    examples: {
      match: [
        'NoNodesAvailableException[None of the configured nodes are available: [{#transport#-1}{es}{10.96.4.4:9300}]]',
      ],
      noMatch: ['elasticsearch: 3 nodes in cluster es-logs, status green'],
    },
  },
  {
    id: 'nats-no-servers',
    verdict: 'dependency-unreachable',
    pattern: /nats: no servers available for connection/,
    means: 'The NATS client could not connect to any server it was given.',
    source: 'NATS clients (nats.go, nats.js): nats: no servers available for connection',
    examples: {
      match: ['nats: no servers available for connection'],
      noMatch: ['nats: connected to nats://nats.messaging:4222'],
    },
  },
  {
    id: 'rails-connection-not-established',
    verdict: 'dependency-unreachable',
    pattern: /ActiveRecord::ConnectionNotEstablished|PG::ConnectionBad/,
    means: 'Rails could not connect to its database.',
    source: 'ActiveRecord: ActiveRecord::ConnectionNotEstablished; pg gem: PG::ConnectionBad',
    examples: {
      match: [
        'ActiveRecord::ConnectionNotEstablished: connection to server at "10.96.3.3", port 5432 failed: timeout expired',
      ],
      noMatch: ["ActiveRecord::RecordNotFound: Couldn't find Order with 'id'=42"],
    },
  },
  {
    id: 'cassandra-no-host-available',
    verdict: 'dependency-unreachable',
    pattern: /NoHostAvailable(Exception)?|All host\(s\) tried for query failed|Unable to connect to any servers/,
    means: 'The Cassandra (or ScyllaDB) driver reached none of its contact points.',
    source:
      "DataStax drivers: NoHostAvailableException: All host(s) tried for query failed; Python driver: cassandra.cluster.NoHostAvailable: ('Unable to connect to any servers', ...)",
    examples: {
      match: [
        "cassandra.cluster.NoHostAvailable: ('Unable to connect to any servers', {'10.96.9.9:9042': ConnectionRefusedError(111, \"Tried connecting to [('10.96.9.9', 9042)]. Last error: Connection refused\")})",
      ],
      noMatch: ['Cassandra session created, keyspace orders'],
    },
  },
];
