/**
 * Property tests of the redactor: generated secrets of every shape, placed in generated
 * YAML, JSON, env lists, command lines and log text, never survive `redactText` (nor
 * `redactValue` where the container is structured); generated non-secrets (status words,
 * counters, references, pod names, prose about credentials) always survive unchanged.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { stringify as toYaml } from 'yaml';
import { redactText, redactValue } from '../src/redact/redactor.ts';

const RUNS = 300;

/** A secret body: a marker that cannot occur by chance, then random token characters. */
const body = (length: number): fc.Arbitrary<string> =>
  fc.stringMatching(new RegExp(`^[A-Za-z0-9]{${length}}$`)).map((random) => `Zk7${random.slice(3)}`);

const SENSITIVE_KEYS = [
  'password',
  'db_password',
  'DB_PASSWORD',
  'API_TOKEN',
  'client_secret',
  'apiKey',
  'X-Auth-Token',
  'accessKey',
  'privateKey',
  'PGPASSWORD',
  'slack_webhook_token',
  'encryptionKey',
  'redis-pass',
  'SMTP_PASSWORD_OLD',
  'authToken',
];
const SAFE_KEYS = ['app', 'replicas', 'image', 'port', 'level', 'region', 'owner', 'team', 'mode', 'name', 'enabled'];
const WORDS = [
  'checkout',
  'cart',
  'served',
  'request',
  'retrying',
  'upstream',
  'pool',
  'ready',
  'draining',
  'warm',
  'cache',
  'miss',
];

const safeScalar = fc.oneof(fc.constantFrom(...WORDS), fc.nat({ max: 9999 }).map(String));
/** A random tree of non-secret keys whose leaves are safe scalars, with `hole` somewhere at the bottom. */
function treeAround(hole: Record<string, unknown>): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .record({
      path: fc.array(fc.constantFrom(...SAFE_KEYS, 'spec', 'config', 'data', 'user', 'datasource'), { maxLength: 4 }),
      siblings: fc.dictionary(fc.constantFrom(...SAFE_KEYS), safeScalar, { maxKeys: 3 }),
    })
    .map(({ path, siblings }) =>
      path.reduceRight<Record<string, unknown>>((inner, key) => ({ ...siblings, [key]: inner }), {
        ...siblings,
        ...hole,
      }),
    );
}

const logLine = (middle: string): fc.Arbitrary<string> =>
  fc
    .tuple(
      fc.array(fc.constantFrom(...WORDS), { maxLength: 4 }),
      fc.array(fc.constantFrom(...WORDS), { maxLength: 4 }),
      fc.constantFrom('ERROR', 'WARN', 'info', 'level=error'),
    )
    .map(([before, after, level]) => `2026-12-01T00:00:00Z ${level}: ${[...before, middle, ...after].join(' ')}`);

/** A credential under a key, in one of the places keys hold values. */
const keyedSecret = fc
  .record({
    key: fc.constantFrom(...SENSITIVE_KEYS),
    secret: body(18),
    container: fc.constantFrom(
      'yaml',
      'json',
      'json-escaped',
      'env-json',
      'env-yaml',
      'logfmt',
      'log-colon',
      'flag-equals',
      'flag-space',
    ),
  })
  .chain(({ key, secret, container }) => {
    switch (container) {
      case 'yaml':
        return treeAround({ [key]: secret }).map((tree) => ({
          text: toYaml(tree),
          secret,
          structured: tree as unknown,
        }));
      case 'json':
        return fc
          .tuple(treeAround({ [key]: secret }), fc.constantFrom(0, 2))
          .map(([tree, indent]) => ({ text: JSON.stringify(tree, null, indent), secret, structured: tree as unknown }));
      case 'json-escaped':
        return treeAround({ [key]: secret })
          .chain((tree) => logLine(`payload=${JSON.stringify(JSON.stringify(tree))}`))
          .map((text) => ({ text, secret, structured: undefined as unknown }));
      case 'env-json': {
        const env = [
          { name: 'LOG_LEVEL', value: 'debug' },
          { name: key.toUpperCase().replace(/-/g, '_'), value: secret },
        ];
        return fc.constant({ text: JSON.stringify({ env }), secret, structured: { env } as unknown });
      }
      case 'env-yaml': {
        const env = [
          { name: 'LOG_LEVEL', value: 'debug' },
          { name: key.toUpperCase().replace(/-/g, '_'), value: secret },
        ];
        return fc.constant({
          text: toYaml({ containers: [{ name: 'app', env }] }),
          secret,
          structured: { containers: [{ name: 'app', env }] } as unknown,
        });
      }
      case 'logfmt':
        return logLine(`${key}=${secret}`).map((text) => ({ text, secret, structured: undefined as unknown }));
      case 'log-colon':
        return logLine(`${key}: ${secret}`).map((text) => ({ text, secret, structured: undefined as unknown }));
      case 'flag-equals':
        return fc.constant({
          text: `exec /app --port=80 --${key}=${secret} --verbose`,
          secret,
          structured: undefined as unknown,
        });
      default:
        return fc.constant({
          text: `exec /app --port 80 --${key} ${secret} --verbose`,
          secret,
          structured: ['/app', '--port', '80', `--${key}`, secret] as unknown,
        });
    }
  });

/** Tokens recognised by their shape, whatever key or text surrounds them. */
const shapedSecret = fc.oneof(
  body(36).map((random) => ({ secret: `ghp_${random}`, mark: random })),
  body(93).map((random) => ({ secret: `sk-ant-api03-${random}AA`, mark: random })),
  body(64).map((random) => ({ secret: `sk-proj-${random}`, mark: random })),
  body(36).map((random) => ({ secret: `npm_${random}`, mark: random })),
  fc.tuple(body(22), body(43)).map(([left, right]) => ({ secret: `SG.${left}.${right}`, mark: left })),
  body(24).map((random) => ({ secret: `xoxb-123456789012-1234567890123-${random}`, mark: random })),
  body(20).map((random) => ({ secret: `glpat-${random}`, mark: random })),
  body(90).map((random) => ({ secret: `hvs.${random}`, mark: random })),
  body(35).map((random) => ({ secret: `AIza${random}`, mark: random })),
  body(33).map((random) => ({ secret: `123456789:AA${random}`, mark: random })),
  body(24).map((random) => ({
    secret: `https://hooks.slack.com/services/T0123ABCD/B0123ABCD/${random}`,
    mark: random,
  })),
  body(20).map((random) => ({ secret: `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOi${random}.c2lnbmF0dXJl`, mark: random })),
  body(30).map((random) => ({
    secret: `https://acct.blob.core.windows.net/c/b?sv=2022-11-02&sp=r&sig=${random}%3D`,
    mark: random,
  })),
  body(16).map((random) => ({ secret: `postgres://app:${random}@db.shop:5432/app`, mark: random })),
  body(40).map((random) => ({
    secret: `-----BEGIN RSA PRIVATE KEY-----\nMII${random}\n-----END RSA PRIVATE KEY-----`,
    mark: random,
  })),
);

const shapedInContainer = fc
  .record({ shaped: shapedSecret, container: fc.constantFrom('yaml', 'json', 'log', 'env-json', 'annotation') })
  .chain(({ shaped, container }) => {
    switch (container) {
      case 'yaml':
        return treeAround({ note: shaped.secret }).map((tree) => ({
          text: toYaml(tree),
          mark: shaped.mark,
          structured: tree as unknown,
        }));
      case 'json':
        return treeAround({ message: shaped.secret }).map((tree) => ({
          text: JSON.stringify(tree),
          mark: shaped.mark,
          structured: tree as unknown,
        }));
      case 'env-json': {
        const env = [{ name: 'UPSTREAM', value: shaped.secret }];
        return fc.constant({ text: JSON.stringify(env), mark: shaped.mark, structured: env as unknown });
      }
      case 'annotation': {
        const metadata = { annotations: { 'example.com/last-error': `failed with ${shaped.secret}` } };
        return fc.constant({ text: JSON.stringify(metadata), mark: shaped.mark, structured: metadata as unknown });
      }
      default:
        return logLine(shaped.secret).map((text) => ({ text, mark: shaped.mark, structured: undefined as unknown }));
    }
  });

/** Passwords on the command line of known tools, as text (also inside `sh -c`) and as argv. */
const commandSecret = fc
  .record({
    secret: body(14),
    tool: fc.constantFrom('mysql', 'redis-cli', 'curl', 'sshpass', 'psql', 'mysqldump'),
    wrap: fc.boolean(),
  })
  .map(({ secret, tool, wrap }) => {
    const argv = {
      mysql: ['mysql', '-h', 'db', '-uroot', `-p${secret}`, 'shop'],
      mysqldump: ['/usr/bin/mysqldump', '--single-transaction', `-p${secret}`, 'shop'],
      'redis-cli': ['redis-cli', '-h', 'cache', '-a', secret, 'ping'],
      curl: ['curl', '-fsS', '-u', `elastic:${secret}`, 'https://es:9200/_cluster/health'],
      sshpass: ['sshpass', '-p', secret, 'ssh', 'deploy@10.0.0.4'],
      psql: [`PGPASSWORD=${secret}`, 'psql', '-h', 'db', '-U', 'app'],
    }[tool];
    const line = argv.join(' ');
    return { secret, argv: wrap ? ['sh', '-c', line] : argv, text: wrap ? `command: ["sh", "-c", "${line}"]` : line };
  });

describe('generated secrets never survive', () => {
  it('credentials under sensitive keys, in YAML, JSON, escaped JSON, env lists, logfmt, logs and flags', () => {
    fc.assert(
      fc.property(keyedSecret, ({ text, secret, structured }) => {
        assert.ok(!redactText(text).includes(secret), `${text}\n→ ${redactText(text)}`);
        if (structured !== undefined)
          assert.ok(!JSON.stringify(redactValue(structured)).includes(secret), JSON.stringify(structured));
      }),
      { numRuns: RUNS },
    );
  });

  it('provider tokens, webhook and signed URLs, URL passwords, JWTs and PEM keys wherever they sit', () => {
    fc.assert(
      fc.property(shapedInContainer, ({ text, mark, structured }) => {
        assert.ok(!redactText(text).includes(mark), `${text}\n→ ${redactText(text)}`);
        if (structured !== undefined)
          assert.ok(!JSON.stringify(redactValue(structured)).includes(mark), JSON.stringify(structured));
      }),
      { numRuns: RUNS },
    );
  });

  it('command-line passwords, as text and as argv', () => {
    fc.assert(
      fc.property(commandSecret, ({ secret, argv, text }) => {
        assert.ok(!redactText(text).includes(secret), `${text}\n→ ${redactText(text)}`);
        assert.ok(!JSON.stringify(redactValue(argv)).includes(secret), JSON.stringify(redactValue(argv)));
      }),
      { numRuns: RUNS },
    );
  });
});

const dnsName = fc.stringMatching(/^[a-z]{3,8}(?:-[a-z]{2,6}){0,2}$/);
const podSuffix = fc.stringMatching(/^[a-z0-9]{5}$/);
const nonSecret = fc.oneof(
  fc.nat({ max: 100000 }).map((count) => `token_count: ${count}`),
  fc.nat({ max: 100000 }).map((count) => `tokens_used=${count}`),
  dnsName.map((name) => `secretName: ${name}`),
  dnsName.map((name) => `passwordFile: /etc/${name}`),
  fc.constantFrom('YES', 'NO').map((answer) => `Access denied for user 'app'@'10.0.0.7' (using password: ${answer})`),
  fc.constantFrom('YES', 'NO', 'true', 'false').map((answer) => `password: ${answer}`),
  fc
    .tuple(fc.constantFrom('token-refresher', 'secret-sync', 'auth-api', 'password-reset'), podSuffix)
    .map(([prefix, suffix]) => `pod ${prefix}-7d9f8-${suffix} restarted`),
  fc.constantFrom(
    'token expired',
    'the password was rotated',
    'Token expired, fetching a new one',
    'secret "cart-db" not found',
    'valueFrom: secretKeyRef',
  ),
  dnsName.map((name) => `env DB_PASSWORD from secretKeyRef ${name}/password`),
);

describe('generated non-secrets always survive', () => {
  it('status words, counters, references, pod names and prose, alone or in a log line', () => {
    fc.assert(
      fc.property(nonSecret, fc.boolean(), (line, inLog) => {
        const text = inLog ? `2026-12-01T00:00:00Z info ${line}` : line;
        assert.equal(redactText(text), text);
      }),
      { numRuns: RUNS },
    );
  });

  it('a YAML document of non-secrets keeps every line', () => {
    fc.assert(
      fc.property(fc.array(nonSecret, { minLength: 1, maxLength: 6 }), (lines) => {
        const text = lines.filter((line) => /^[A-Za-z_]+[:=] ?\S/.test(line)).join('\n');
        assert.equal(redactText(text), text);
      }),
      { numRuns: RUNS },
    );
  });
});
