/**
 * The values a failing log line names: a host and port it could not reach, a URL, a file
 * path, a user, a bucket, a flag. Each row reads one form that real clients print; the
 * value-source tracer (value-source.ts) then looks for where the pod spec set that value.
 * Rows never decide a category: they only lift the value out of the line.
 */

import { isLoopbackHost } from './loopback.ts';

export type ValueKind = 'host' | 'port' | 'url' | 'path' | 'user' | 'bucket' | 'flag' | 'database';

export interface FailingValue {
  kind: ValueKind;
  value: string;
  /** For a file: the line of it the failure points at (`yaml: line 14`, `config.json:12`). */
  line?: number;
}

export interface ValueForm {
  id: string;
  /** What the value is, in the words of the program that printed it. */
  means: string;
  pattern: RegExp;
  /** The values one match names (group numbers of `pattern`). */
  read(match: RegExpExecArray): FailingValue[];
  examples: { match: Array<{ line: string; values: FailingValue[] }>; noMatch: string[] };
}

const HOST = String.raw`[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*`;
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/** A host and port, with an address that no spec could hold (an IP the client resolved) left out. */
function hostAndPort(host: string | undefined, port: string | undefined): FailingValue[] {
  const values: FailingValue[] = [];
  if (host && !IPV4.test(host) && !isLoopbackHost(host)) values.push({ kind: 'host', value: host });
  if (port) values.push({ kind: 'port', value: port });
  return values;
}

export const VALUE_FORMS: readonly ValueForm[] = [
  {
    id: 'dial-host-port',
    means: 'a TCP client (Go net, Node, Python, Java) could not connect to host:port',
    pattern: new RegExp(
      String.raw`(?:dial tcp|connect(?:ion)? to|ECONNREFUSED|ETIMEDOUT|EHOSTUNREACH|Connection refused:?|connect to|Could not connect to \w+ at|connecting to|upstream:?|address)\s*(?:\[?(?:tcp|https?)?:?\/?\/?)?(${HOST}):(\d{2,5})\b`,
      'i',
    ),
    read: (match) => hostAndPort(match[1], match[2]),
    examples: {
      match: [
        { line: 'dial tcp 10.0.3.7:5433: connect: connection refused', values: [{ kind: 'port', value: '5433' }] },
        {
          line: 'Error: connect ECONNREFUSED orders-db.shop.svc:6380',
          values: [
            { kind: 'host', value: 'orders-db.shop.svc' },
            { kind: 'port', value: '6380' },
          ],
        },
        {
          line: 'Could not connect to Redis at session-cache:6380: Connection refused',
          values: [
            { kind: 'host', value: 'session-cache' },
            { kind: 'port', value: '6380' },
          ],
        },
      ],
      noMatch: ['listening on :8080', 'GET /healthz 200 3ms'],
    },
  },
  {
    id: 'libpq-server-port',
    means: 'libpq (psql, psycopg, pgx) names the server and then the port it tried',
    pattern: new RegExp(String.raw`connection to server at "(${HOST})"(?: \([\d.]+\))?, port (\d{2,5}) failed`, 'i'),
    read: (match) => hostAndPort(match[1], match[2]),
    examples: {
      match: [
        {
          line: 'psycopg2.OperationalError: connection to server at "ledger-db" (10.96.4.12), port 5433 failed: Connection refused',
          values: [
            { kind: 'host', value: 'ledger-db' },
            { kind: 'port', value: '5433' },
          ],
        },
      ],
      noMatch: ['connection to server on socket "/var/run/postgresql/.s.PGSQL.5432" failed: No such file or directory'],
    },
  },
  {
    id: 'unresolved-host',
    means: 'a name the resolver could not find',
    pattern: new RegExp(
      String.raw`(?:lookup|getaddrinfo (?:ENOTFOUND|EAI_AGAIN)|UnknownHostException:|could not translate host name "?|Name or service not known:?|host not found in upstream "?|no such host:?)\s*"?(${HOST})`,
      'i',
    ),
    read: (match) => hostAndPort(match[1], undefined),
    examples: {
      match: [
        {
          line: 'dial tcp: lookup payments-db.prod.svc.cluster.local on 10.96.0.10:53: no such host',
          values: [{ kind: 'host', value: 'payments-db.prod.svc.cluster.local' }],
        },
        { line: 'Error: getaddrinfo ENOTFOUND redis-master', values: [{ kind: 'host', value: 'redis-master' }] },
        {
          line: 'java.net.UnknownHostException: kafka-0.kafka-headless',
          values: [{ kind: 'host', value: 'kafka-0.kafka-headless' }],
        },
      ],
      noMatch: ['resolved kafka-0 to 10.0.1.4'],
    },
  },
  {
    id: 'url',
    means: 'a URL the client called',
    pattern: /\b((?:https?|postgres(?:ql)?|mysql|redis|amqps?|mongodb(?:\+srv)?|nats|kafka):\/\/[^\s"'<>,)]+)/i,
    read: (match) => [{ kind: 'url', value: match[1]!.replace(/[.:;]+$/, '') }],
    examples: {
      match: [
        {
          line: 'Get "http://inventory-api:8081/v1/stock": dial tcp: i/o timeout',
          values: [{ kind: 'url', value: 'http://inventory-api:8081/v1/stock' }],
        },
      ],
      noMatch: ['request id 7f3a took 12ms'],
    },
  },
  {
    id: 'missing-path',
    means: 'a file or directory the process opened and did not find',
    pattern:
      /(?:open|stat|read|load(?:ing)?|exec:? "?|lstat|No such file or directory:?)\s*['"]?(\/[\w.@\-/]+)['"]?:?\s*(?:no such file|No such file|not found|\(No such file)?/i,
    read: (match) => [{ kind: 'path', value: match[1]! }],
    examples: {
      match: [
        {
          line: 'panic: open /etc/app/config.yaml: no such file or directory',
          values: [{ kind: 'path', value: '/etc/app/config.yaml' }],
        },
        {
          line: "FileNotFoundError: [Errno 2] No such file or directory: '/data/models/ranker.onnx'",
          values: [{ kind: 'path', value: '/data/models/ranker.onnx' }],
        },
      ],
      noMatch: ['GET /v1/orders 404 not found'],
    },
  },
  {
    id: 'config-file',
    means:
      'a configuration or script file the process read and failed on (a parse error), with the line it points at when it says one',
    pattern:
      /^(?:(?=.*(?:error|fail|invalid|unexpected|cannot|could not|unable|pars(?:e|ing)|syntax|emerg|exception|unknown|not allowed|expected))|\s*in (?=["']\/))(?:.*?[\s"'=(:])?(\/[\w.@\-/]*[\w-]\.(?:ya?ml|json|toml|conf|cfg|ini|properties|xml|hcl|alloy|rules|tmpl|tpl|lua|py|rb|js|sh))\b["']?(.{0,120})/i,
    read: (match) => {
      const at = /^(?::(\d+)\b|.*?\bline:? (\d+)\b)/i.exec(match[2] ?? '');
      const line = at ? Number(at[1] ?? at[2]) : undefined;
      return [{ kind: 'path', value: match[1]!, ...(line ? { line } : {}) }];
    },
    examples: {
      match: [
        {
          line: 'level=error msg="failed to load rules" file=/etc/rules/rules.yaml err="yaml: line 14: mapping values are not allowed in this context"',
          values: [{ kind: 'path', value: '/etc/rules/rules.yaml', line: 14 }],
        },
        {
          line: 'nginx: [emerg] unknown directive "proxy_passs" in /etc/nginx/conf.d/default.conf:23',
          values: [{ kind: 'path', value: '/etc/nginx/conf.d/default.conf', line: 23 }],
        },
        {
          line: 'yaml.scanner.ScannerError: while scanning a simple key in "/etc/worker/settings.yml", line 7, column 1',
          values: [{ kind: 'path', value: '/etc/worker/settings.yml', line: 7 }],
        },
        {
          line: 'SyntaxError: /app/config/app.json: Unexpected token } in JSON at position 214',
          values: [{ kind: 'path', value: '/app/config/app.json' }],
        },
        // PyYAML puts the position on the line after its error.
        {
          line: '  in "/etc/dispatch/routing.yaml", line 25, column 12',
          values: [{ kind: 'path', value: '/etc/dispatch/routing.yaml', line: 25 }],
        },
      ],
      noMatch: ['GET /api/v1/config.json 200 12ms', 'loaded 42 rules'],
    },
  },
  {
    id: 'database-user',
    means: 'a database or broker names the user it refused',
    pattern: /(?:for user|user(?:name)?[=:]?)\s*['"]([\w.@-]+)['"]/i,
    read: (match) => [{ kind: 'user', value: match[1]! }],
    examples: {
      match: [
        {
          line: 'FATAL: password authentication failed for user "ledger_rw"',
          values: [{ kind: 'user', value: 'ledger_rw' }],
        },
        {
          line: "ERROR 1045 (28000): Access denied for user 'shop'@'10.0.2.8' (using password: YES)",
          values: [{ kind: 'user', value: 'shop' }],
        },
      ],
      noMatch: ['user signed in'],
    },
  },
  {
    id: 'database-name',
    means: 'a database the server does not have',
    pattern: /database ['"]([\w.-]+)['"] does not exist|Unknown database '([\w.-]+)'/i,
    read: (match) => [{ kind: 'database', value: (match[1] ?? match[2])! }],
    examples: {
      match: [
        { line: 'FATAL: database "orders_prod" does not exist', values: [{ kind: 'database', value: 'orders_prod' }] },
      ],
      noMatch: ['database connection pool ready'],
    },
  },
  {
    id: 'bucket',
    means: 'an object store bucket the client was refused or did not find',
    pattern: /\bbucket(?:Name)?(?:[=:]\s*|\s+(?=['"]))['"]?([a-z0-9][a-z0-9.-]{2,62})/i,
    read: (match) => [{ kind: 'bucket', value: match[1]! }],
    examples: {
      match: [
        {
          line: 'NoSuchBucket: The specified bucket does not exist, bucket: media-uploads-prod',
          values: [{ kind: 'bucket', value: 'media-uploads-prod' }],
        },
      ],
      noMatch: ['uploaded 3 objects'],
    },
  },
  {
    id: 'unknown-flag',
    means: 'a command-line flag the program does not define',
    pattern:
      /(?:flag provided but not defined:|unknown (?:flag|option|shorthand flag)[^:]*:|unrecognized arguments?:|Unrecognized option:?)\s*['"]?(-{1,2}[\w.-]+)/i,
    read: (match) => [{ kind: 'flag', value: match[1]! }],
    examples: {
      match: [
        { line: 'flag provided but not defined: -metrics-addr', values: [{ kind: 'flag', value: '-metrics-addr' }] },
        { line: 'Error: unknown flag: --log-format', values: [{ kind: 'flag', value: '--log-format' }] },
      ],
      noMatch: ['starting with flags --port=8080'],
    },
  },
];

/** Every value the line names, by the forms above, each once. */
export function readFailingValues(line: string): FailingValue[] {
  return readFailingValuesIn([line]);
}

/** Every value the lines name, in the order they name them, each once. */
export function readFailingValuesIn(lines: readonly string[]): FailingValue[] {
  const found: FailingValue[] = [];
  const addOnce = (value: FailingValue): void => {
    if (!found.some((known) => known.kind === value.kind && known.value === value.value)) found.push(value);
  };
  for (const line of lines) {
    const named: FailingValue[] = [];
    for (const form of VALUE_FORMS) {
      const match = form.pattern.exec(line);
      if (match) named.push(...form.read(match));
    }
    // A URL also names its host and port: those are what a spec sets apart more often than the whole URL.
    for (const url of named.filter((value) => value.kind === 'url')) {
      const parsed = /^[a-z+]+:\/\/(?:[^@/]*@)?([^:/?#]+)(?::(\d+))?/i.exec(url.value);
      named.push(...hostAndPort(parsed?.[1], parsed?.[2]));
    }
    named.forEach(addOnce);
  }
  return found;
}
