import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { REDACTED, redactText, redactValue } from '../src/redact/redactor.ts';

describe('redactText', () => {
  const cases: Array<[string, string, string]> = [
    ['a password in a connection URL', 'dial postgres://checkout:Zq8canaryUrl@db.staging:5432/app', 'Zq8canaryUrl'],
    ['a bearer token in a header line', 'GET /v1 Authorization: Bearer abcCanaryBearer123', 'abcCanaryBearer123'],
    [
      'a JWT anywhere',
      'token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjYW5hcnkifQ.c2lnbmF0dXJl rejected',
      'eyJzdWIiOiJjYW5hcnkifQ',
    ],
    ['an AWS access key id', 'using key AKIAIOSFODNN7CANARY1 for s3', 'AKIAIOSFODNN7CANARY1'],
    ['an AWS secret access key', 'aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYCANARYKEY1', 'wJalrXUtnFEMI'],
    ['an unlabelled AWS secret shape', 'creds wJalrXUtnFEMI/K7MDENG/bPxRfiCYCANARYKEY2 loaded', 'wJalrXUtnFEMI'],
    ['a password env assignment', 'DB_PASSWORD=hunter2canary', 'hunter2canary'],
    ['a quoted JSON password with spaces', '{"password": "two words canary", "user": "app"}', 'two words canary'],
    [
      'a password in an ADO.NET connection string',
      'Server=db;User Id=app;Password=AdoCanary9;Database=x',
      'AdoCanary9',
    ],
    ['a password flag with a space', 'exec app --db-password FlagCanary7 --port 80', 'FlagCanary7'],
    ['a token in a query string', 'GET /hook?token=QueryCanary55&x=1', 'QueryCanary55'],
    [
      'a PEM private key',
      'key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpemCanary\n-----END RSA PRIVATE KEY-----\nnext',
      'MIIEpemCanary',
    ],
    ['a PEM key cut before its end', 'x -----BEGIN PRIVATE KEY-----\nMIIEcutCanary', 'MIIEcutCanary'],
    [
      'a GitHub token',
      'push with ghp_abcdefghijklmnopqrstuvwxyz0123456789',
      'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
    ],
  ];
  for (const [what, input, secret] of cases) {
    it(`masks ${what}`, () => {
      const output = redactText(input);
      assert.ok(!output.includes(secret), output);
      assert.match(output, /REDACTED/);
    });
  }

  it('keeps the evidence a diagnosis needs', () => {
    const lines = [
      'FATAL: password authentication failed for user "checkout"',
      'Error: secret "cart-db" not found',
      "couldn't find key password in Secret staging/checkout-db",
      'env DB_PASSWORD from secretKeyRef checkout-db/password-old',
      'secretKeyRef=checkout-db/password',
      'Liveness probe failed: Get "http://10.0.0.1:8080/healthz": dial tcp 10.0.0.1:8080: connect: connection refused',
      'image sha256:0f3a5c9e1b2d4f6a8c0e2b4d6f8a0c2e4b6d8f0a2c4e6b8d0f2a4c6e8b0d2f4a',
      'Back-off restarting failed container app in pod checkout-api-7d9f8c6b5-x2k4q_staging',
      'password: ********',
    ];
    for (const line of lines) assert.equal(redactText(line), line);
  });

  it('keeps the user of a URL and masks only its password', () => {
    assert.equal(redactText('amqp://guest:guestpass@rabbit:5672/'), `amqp://guest:${REDACTED}@rabbit:5672/`);
  });
});

describe('redactValue', () => {
  it('masks env values by the variable name and leaves references intact', () => {
    const container = {
      env: [
        { name: 'DB_PASS', value: 'EnvCanary1' },
        { name: 'LOG_LEVEL', value: 'debug' },
        { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'checkout-db', key: 'password' } } },
      ],
    };
    const output = redactValue(container);
    assert.equal(output.env[0]?.value, REDACTED);
    assert.equal(output.env[1]?.value, 'debug');
    assert.deepEqual(output.env[2], container.env[2]);
  });

  it('masks values of sensitive keys but keeps names that only refer to a secret', () => {
    const output = redactValue({
      apiKey: 'KeyCanary2',
      secretName: 'checkout-db',
      claimName: 'data',
      nested: { token: 'TokCanary3' },
    });
    assert.deepEqual(output, {
      apiKey: REDACTED,
      secretName: 'checkout-db',
      claimName: 'data',
      nested: { token: REDACTED },
    });
  });

  it('masks the argument after a sensitive flag', () => {
    assert.deepEqual(redactValue(['--password', 'ArgCanary4', '--port', '80']), [
      '--password',
      REDACTED,
      '--port',
      '80',
    ]);
  });

  it('masks last-applied-configuration annotations whole', () => {
    const output = redactValue({
      'kubectl.kubernetes.io/last-applied-configuration': '{"data":{"x":"QW5ub3RhdGlvbkNhbmFyeQ=="}}',
    });
    assert.equal(output['kubectl.kubernetes.io/last-applied-configuration'], REDACTED);
  });

  it('keeps dates and numbers as they are', () => {
    const date = new Date('2026-11-29T10:00:00Z');
    assert.deepEqual(redactValue({ at: date, count: 3 }), { at: date, count: 3 });
  });
});

describe('isSensitiveName', () => {
  it('reads the name, not the words around it', async () => {
    const { isSensitiveName } = await import('../src/redact/redactor.ts');
    for (const name of [
      'DB_PASSWORD',
      'DB_PASSWORD_OLD',
      'PGPASSWORD',
      'X-Auth-Token',
      'apiKey',
      'aws_secret_access_key',
      'client_secret',
      'DB_PASS',
      '--db-password',
      'APP_SECRETS',
    ]) {
      assert.equal(isSensitiveName(name), true, name);
    }
    for (const name of [
      'secretName',
      'secretKeyRef',
      'SECRET_NAME',
      'auth-proxy',
      'bypass',
      'key',
      'LOG_LEVEL',
      'tokenPath',
      'imagePullSecrets',
      'pod imagePullSecrets',
    ]) {
      assert.equal(isSensitiveName(name), false, name);
    }
    for (const name of ['token-refresher', 'secret-sync-7d9f8', 'auth-api-5d8c7-q2x9z']) {
      assert.equal(isSensitiveName(name, 'text'), false, `${name} in text`);
    }
    assert.equal(isSensitiveName('DB_PASSWORD_STAGING'), true);
  });
});

describe('redactText on tool output', () => {
  it('keeps secret references written as tools write them', () => {
    for (const line of [
      '[app] env DB_PASSWORD: secretKeyRef checkout-db/password -> secretKeyRef checkout-db/password-old',
      'env: DB_PASSWORD=<secret checkout-db/password>, API_URL=<configmap app/url>',
      'pod auth-api-5d8c7-q2x9z: CrashLoopBackOff',
      'container token-refresher: OOMKilled',
    ]) {
      assert.equal(redactText(line), line);
    }
  });
});

describe('redactText on prose about credentials', () => {
  it('keeps a sentence that names a token without holding one', () => {
    const line = 'failed to fetch anonymous token: unexpected status from GET request: 401 Unauthorized';
    assert.equal(redactText(line), line);
  });
  it('still masks a lowercase password at the end of a line', () => {
    assert.equal(redactText('password: hunter'), `password: ${REDACTED}`);
  });
});
