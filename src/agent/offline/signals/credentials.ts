/**
 * Log lines that say a database, cache or broker refused who the app is: a wrong password,
 * an unknown user, a user without rights. The dependency was reached; it said no.
 */
import type { LogSignal } from './types.ts';

export const CREDENTIAL_SIGNALS: readonly LogSignal[] = [
  {
    id: 'postgres-password-failed',
    verdict: 'bad-credentials',
    pattern: /password authentication failed/i,
    means: 'PostgreSQL rejected the password of the user the app logs in as.',
    source:
      'PostgreSQL server, relayed by libpq, pgjdbc, psycopg, node-postgres, Postgrex: FATAL: password authentication failed for user "x"',
    examples: {
      match: [
        '2026-11-29 09:58:02.114 UTC [87] FATAL:  password authentication failed for user "checkout"',
        '** (Postgrex.Error) FATAL 28P01 (invalid_password) password authentication failed for user "app"',
      ],
      noMatch: ['2026-11-29 09:58:02.114 UTC [87] LOG:  connection authorized: user=checkout database=orders'],
    },
  },
  {
    id: 'postgres-no-hba-entry',
    verdict: 'bad-credentials',
    pattern: /no pg_hba\.conf entry for host/i,
    means:
      'PostgreSQL has no rule admitting this client address, user and database: access is refused before any password.',
    source:
      'PostgreSQL server: FATAL: no pg_hba.conf entry for host "10.1.2.3", user "app", database "orders", SSL off',
    examples: {
      match: [
        'psql: error: connection to server at "orders-db" (10.96.7.2), port 5432 failed: FATAL:  no pg_hba.conf entry for host "10.244.1.17", user "app", database "orders", no encryption',
      ],
      noMatch: ['LOG:  received SIGHUP, reloading configuration files; pg_hba.conf reloaded'],
    },
  },
  {
    id: 'postgres-role-missing',
    verdict: 'bad-credentials',
    pattern: /FATAL:?\s+role "[^"]+" does not exist/i,
    means: 'The user the app logs in as does not exist on the PostgreSQL server.',
    source: 'PostgreSQL server: FATAL: role "x" does not exist',
    examples: {
      match: [
        'django.db.utils.OperationalError: connection to server at "pg" (10.96.3.9), port 5432 failed: FATAL:  role "billing" does not exist',
      ],
      noMatch: ['ERROR:  relation "invoices" does not exist at character 15'],
    },
  },
  {
    id: 'postgres-permission-denied',
    verdict: 'bad-credentials',
    pattern: /permission denied for (relation|table|database|schema|sequence)/i,
    means: 'The database user lacks a grant the app needs: logged in, but not allowed.',
    source: 'PostgreSQL server: ERROR: permission denied for table x',
    examples: {
      match: [
        'ERROR:  permission denied for table orders',
        'psycopg2.errors.InsufficientPrivilege: permission denied for schema reporting',
      ],
      noMatch: ['open /var/lib/app/cache.db: permission denied'],
    },
  },
  {
    id: 'mysql-access-denied',
    verdict: 'bad-credentials',
    pattern: /access denied for user/i,
    means: 'MySQL or MariaDB rejected the user, password or client host.',
    source:
      "MySQL/MariaDB server (error 1045), relayed by PDO, mysql2, Connector/J, go-sql-driver: Access denied for user 'x'@'host' (using password: YES)",
    examples: {
      match: [
        "SQLSTATE[HY000] [1045] Access denied for user 'shop'@'10.244.2.9' (using password: YES)",
        "Error 1045 (28000): Access denied for user 'orders'@'10.244.1.12' (using password: YES)",
      ],
      noMatch: ['Access denied to path /admin for anonymous visitor'],
    },
  },
  {
    id: 'sqlserver-login-failed',
    verdict: 'bad-credentials',
    pattern: /login failed/i,
    means: 'SQL Server (or another server) rejected the login.',
    source: "Microsoft SQL Server via Microsoft.Data.SqlClient, JDBC mssql, tedious: Login failed for user 'x'.",
    examples: {
      match: [
        "Microsoft.Data.SqlClient.SqlException (0x80131904): Login failed for user 'sa'.",
        "ConnectionError: Login failed for user 'reports'.",
      ],
      noMatch: ['user jane logged in from 10.1.2.3'],
    },
  },
  {
    id: 'oracle-invalid-logon',
    verdict: 'bad-credentials',
    pattern: /ORA-01017/,
    means: 'Oracle Database rejected the username or password.',
    source: 'Oracle Database: ORA-01017: invalid username/password; logon denied',
    examples: {
      match: ['java.sql.SQLException: ORA-01017: invalid username/password; logon denied'],
      noMatch: ['ORA-12541: TNS:no listener'],
    },
  },
  {
    id: 'authentication-failed',
    verdict: 'bad-credentials',
    pattern: /authentication[ _]failed|auth(entication)? (error|failure)/i,
    means: 'A dependency reports that authenticating the app failed.',
    source: 'MongoDB (Authentication failed.), SMTP servers, many clients: authentication failed / auth error',
    examples: {
      match: [
        'MongoServerError: Authentication failed.',
        "pymongo.errors.OperationFailure: Authentication failed., full error: {'ok': 0.0, 'errmsg': 'Authentication failed.', 'code': 18, 'codeName': 'AuthenticationFailed'}",
        'smtp: 535 5.7.8 Error: authentication failed: UGFzc3dvcmQ6',
      ],
      noMatch: ['INFO authentication succeeded for user svc-orders'],
    },
  },
  {
    id: 'invalid-credentials',
    verdict: 'bad-credentials',
    pattern:
      /invalid (username or password|credentials|password|api[ _-]?key|token)|invalid username\/password|bad credentials/i,
    means: 'A dependency says the credentials the app presented are wrong.',
    source:
      'Generic client and server wording: invalid credentials, invalid password, invalid API key, Bad credentials',
    examples: {
      match: [
        '-ERR invalid password',
        'Error: Invalid API Key provided: sk_live_****',
        'org.springframework.security.authentication.BadCredentialsException: Bad credentials',
      ],
      noMatch: ['password policy: minimum length 12'],
    },
  },
  {
    id: 'redis-wrongpass',
    verdict: 'bad-credentials',
    pattern: /WRONGPASS/,
    means: 'Redis rejected the username or password the app sent with AUTH.',
    source: 'Redis 6+ server: WRONGPASS invalid username-password pair or user is disabled.',
    examples: {
      match: ['ReplyError: WRONGPASS invalid username-password pair or user is disabled.'],
      noMatch: ['redis: AUTH ok'],
    },
  },
  {
    id: 'redis-noauth',
    verdict: 'bad-credentials',
    pattern: /NOAUTH|AUTH <password> called without any password configured/,
    means: 'Redis wants a password the app did not send, or was sent one it does not expect.',
    source:
      'Redis server: NOAUTH Authentication required. / ERR AUTH <password> called without any password configured for the default user',
    examples: {
      match: ['[ioredis] Unhandled error event: ReplyError: NOAUTH Authentication required.'],
      noMatch: ['redis: no auth configured, connecting anonymously'],
    },
  },
  {
    id: 'kafka-sasl-failed',
    verdict: 'bad-credentials',
    pattern: /SASL[\w -]* authentication|SaslAuthenticationException|SCRAM[\w-]* authentication (failed|error)/i,
    means: 'A Kafka broker rejected the SASL username or password.',
    source:
      'Apache Kafka clients: org.apache.kafka.common.errors.SaslAuthenticationException: Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512',
    examples: {
      match: [
        'org.apache.kafka.common.errors.SaslAuthenticationException: Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512',
        'KafkaJSSASLAuthenticationError: SASL SCRAM SHA512 authentication failed: Authentication failed',
      ],
      noMatch: ['INFO [Producer clientId=orders] Successfully authenticated with kafka-0.kafka-headless/10.1.2.3'],
    },
  },
  {
    id: 'kafka-not-authorized',
    verdict: 'bad-credentials',
    pattern: /(Topic|Group|Cluster|TransactionalId)AuthorizationException|Not authorized to access (topics|group)/,
    means: 'Kafka knows the client but its ACLs do not allow the topic or group it uses.',
    source: 'Apache Kafka clients: TopicAuthorizationException: Not authorized to access topics: [orders]',
    examples: {
      match: ['org.apache.kafka.common.errors.TopicAuthorizationException: Not authorized to access topics: [orders]'],
      noMatch: ['Subscribed to topic(s): orders'],
    },
  },
  {
    id: 'rabbitmq-access-refused',
    verdict: 'bad-credentials',
    pattern: /ACCESS_REFUSED|access to vhost '[^']*' refused for user/,
    means: 'RabbitMQ refused the login or the virtual host for this user.',
    source:
      'RabbitMQ broker: ACCESS_REFUSED - Login was refused using authentication mechanism PLAIN / NOT_ALLOWED - access to vhost refused',
    examples: {
      match: [
        'amqp.connect: Error: Handshake terminated by server: 403 (ACCESS-REFUSED) with message "ACCESS_REFUSED - Login was refused using authentication mechanism PLAIN. For details see the broker logfile."',
        "pika.exceptions.ConnectionClosedByBroker: (530, \"NOT_ALLOWED - access to vhost 'orders' refused for user 'app'\")",
      ],
      noMatch: ['rabbitmq: connection established, channel 1 opened'],
    },
  },
  {
    id: 'elasticsearch-security-exception',
    verdict: 'bad-credentials',
    pattern: /security_exception|unable to authenticate user \[/,
    means: 'Elasticsearch (or OpenSearch) security rejected the user or its rights.',
    source: 'Elasticsearch security: [security_exception] unable to authenticate user [x] for REST request',
    examples: {
      match: [
        'ResponseError: security_exception: [security_exception] Reason: unable to authenticate user [elastic] for REST request [/_bulk]',
      ],
      noMatch: ['elasticsearch: cluster health is green'],
    },
  },
  {
    id: 'nats-authorization-violation',
    verdict: 'bad-credentials',
    pattern: /nats: (authorization violation|authentication expired|authorization timeout)/i,
    means: 'The NATS server rejected the token, user or credentials.',
    source: 'NATS clients (nats.go, nats.js): nats: Authorization Violation',
    examples: { match: ['nats: Authorization Violation'], noMatch: ['nats: connected to nats://nats.messaging:4222'] },
  },
  {
    id: 'redis-acl-refused',
    verdict: 'bad-credentials',
    pattern: /invalid username-password pair|AuthenticationError: (invalid|Authentication required)/i,
    means: 'Redis (6+ ACL) refused the username and password the client sent.',
    source:
      'Redis server: WRONGPASS invalid username-password pair or user is disabled; redis-py: redis.exceptions.AuthenticationError',
    examples: {
      match: [
        'redis.exceptions.AuthenticationError: invalid username-password pair or user is disabled.',
        'AuthenticationError: Authentication required.',
      ],
      noMatch: ['redis.exceptions.ConnectionError: Error 111 connecting to redis:6379. Connection refused.'],
    },
  },
];
