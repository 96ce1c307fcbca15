import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mayHoldSecret, REDACTED, redactNamedValue, redactText, redactValue } from './redactor.ts';

const PEM_KEY_BASE64 = Buffer.from(
  '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAkeyCanary\n-----END RSA PRIVATE KEY-----\n',
).toString('base64');
const CERT_BASE64 = Buffer.from(
  '-----BEGIN CERTIFICATE-----\nMIIDcertificatePublic\n-----END CERTIFICATE-----\n',
).toString('base64');

/** [what, text, the secret that must not survive] */
const SHAPES: Array<[string, string, string]> = [
  [
    'a token under another key in a kubeconfig',
    'users:\n- name: ci\n  user:\n    token: KubeTok3nCanary9',
    'KubeTok3nCanary9',
  ],
  [
    'a password under a datasource key',
    'spring:\n  datasource:\n    url: jdbc:postgresql://db/app\n    password: DsCanary4x',
    'DsCanary4x',
  ],
  ['a password after a log level', 'ERROR: password: LogCanary77 rejected', 'LogCanary77'],
  ['a token after a sentence', 'auth failed: token: SentCanary5', 'SentCanary5'],
  [
    'aws_secret_access_key in a log line',
    'botocore: aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYLOGCANARY',
    'wJalrXUtnFEMI/K7MDENG',
  ],
  [
    'client-key-data in a kubeconfig',
    `users:\n- name: admin\n  user:\n    client-key-data: ${PEM_KEY_BASE64}`,
    PEM_KEY_BASE64.slice(0, 50),
  ],
  ['mysql -pX', 'mysql -h db -uroot -pMyCanary12 shop', 'MyCanary12'],
  ['redis-cli -a X', 'redis-cli -h cache -a RedisCanary3 ping', 'RedisCanary3'],
  ['curl -u user:X', 'curl -fsS -u elastic:CurlCanary8 https://es:9200', 'CurlCanary8'],
  ['sshpass -p X', 'sshpass -p SshCanary2 ssh root@10.0.0.4', 'SshCanary2'],
  ['PGPASSWORD=X psql', 'PGPASSWORD=PgCanary6 psql -h db -U app', 'PgCanary6'],
  ['an Anthropic key', `key=sk-ant-api03-${'Ab3_'.repeat(23)}AA`, 'Ab3_Ab3_Ab3_'],
  ['an OpenAI project key', `using sk-proj-${'Xy9-'.repeat(16)}`, 'Xy9-Xy9-Xy9-'],
  ['an npm token', `npm_${'aB1c'.repeat(9)}`, 'aB1caB1caB1c'],
  ['a SendGrid key', `SG.${'Qw3r'.repeat(5)}Qw.${'Ty6u'.repeat(10)}Ty6`, 'Qw3rQw3r'],
  [
    'a Slack webhook URL',
    'https://hooks.slack.com/services/T00CANARY/B00CANARY/HookCanarySecret42',
    'HookCanarySecret42',
  ],
  [
    'an Azure SAS signature',
    'https://acct.blob.core.windows.net/c/b?sv=2022-11-02&sp=r&sig=SasCanary%2Babc%3D',
    'SasCanary',
  ],
  [
    'a presigned S3 URL',
    'https://b.s3.amazonaws.com/k?X-Amz-Credential=AKIAx&X-Amz-Signature=S3SigCanary0123456789abcdef',
    'S3SigCanary',
  ],
  [
    'a Twilio API key and auth token',
    'twilio: key=SK0f1e2d3c4b5a69788796a5b4c3d2e1f0 TWILIO_AUTH_TOKEN=0f1e2d3c4b5aTwCanary8796a5b4c3d2',
    'TwCanary',
  ],
  [
    'a Twilio account sid',
    'account AC0f1e2d3c4b5a69788796a5b4c3d2e1f0 suspended',
    'AC0f1e2d3c4b5a69788796a5b4c3d2e1f0',
  ],
  ['a Telegram bot token', `GET https://api.telegram.org/bot123456789:AA${'Tg7k'.repeat(8)}Tg/getMe`, 'Tg7kTg7kTg7k'],
  ['a password in a YAML block scalar', 'data:\n  password: |\n    BlockCanary1\n    line2\nnext: x', 'BlockCanary1'],
  ['a password on the line below its key', 'secret:\n  password:\n    NextLineCanary2\n', 'NextLineCanary2'],
  ['escaped JSON in a log line', 'msg="{\\"user\\":\\"a\\",\\"password\\":\\"EscCanary3\\"}"', 'EscCanary3'],
  [
    'an env list as JSON text',
    '[{"name":"DB_PASSWORD","value":"EnvJsonCanary4"},{"name":"LOG","value":"x"}]',
    'EnvJsonCanary4',
  ],
  ['an env list as JSON text, value first', '{"value":"EnvRevCanary5","name":"API_TOKEN"}', 'EnvRevCanary5'],
  [
    'an env list as YAML text',
    'env:\n- name: STRIPE_SECRET\n  value: EnvYamlCanary6\n- name: LOG_LEVEL\n  value: debug',
    'EnvYamlCanary6',
  ],
  ['a --flag=value', 'exec app --db-password=FlagEqCanary7 --port=80', 'FlagEqCanary7'],
  ['a cookie header', 'Cookie: session=CookieCanary8; theme=dark', 'CookieCanary8'],
  ['an X-Api-Key header', 'X-Api-Key: HeaderCanary9abc', 'HeaderCanary9abc'],
  ['an Authorization header with a bearer token', 'Authorization: Bearer BearerCanary10', 'BearerCanary10'],
  ['a connection string password', 'Server=tcp:db,1433;User ID=app;Password=ConnCanary11;Encrypt=true', 'ConnCanary11'],
  ['a postgres URL password', 'DATABASE_URL=postgres://app:UrlCanary12@db:5432/app', 'UrlCanary12'],
  ['a JSON array under a secret key', '{"secrets": ["ArrCanary13", "ArrCanary14"]}', 'ArrCanary13'],
  [
    'a random signature after a weak key',
    'hmac=9f8e7d6c5b4a39281706f5e4d3c2b1a0 ok',
    '9f8e7d6c5b4a39281706f5e4d3c2b1a0',
  ],
  ['a random nonce after a weak key', 'nonce: Zx81kQpL0mV7sT2yBn4c', 'Zx81kQpL0mV7sT2yBn4c'],
  [
    'a passphrase of several words in YAML',
    'auth:\n  password: correct horse battery staple\n',
    'horse battery staple',
  ],
  ['an annotation with a domain prefix', '    vault.example.com/token: AnnoCanary15', 'AnnoCanary15'],
  ['an env entry in YAML flow style', '        - {name: DB_PASSWORD, value: FlowCanary16}', 'FlowCanary16'],
  ['a JSON key right after a brace', '{"password":"BraceCanary17"}', 'BraceCanary17'],
  [
    'an argv array written as text',
    'args: ["--db-password", "ArgsTextCanary18", "--port", "8080"]',
    'ArgsTextCanary18',
  ],
  [
    'a last-applied-configuration annotation',
    `kubectl.kubernetes.io/last-applied-configuration: '{"data":{"x":"LastCanary19"}}'`,
    'LastCanary19',
  ],
];

describe('redactText masks every shape', () => {
  for (const [what, text, secret] of SHAPES) {
    it(`masks ${what}`, () => {
      const output = redactText(text);
      assert.ok(!output.includes(secret), output);
      assert.match(output, /REDACTED/);
      assert.ok(mayHoldSecret(text), 'the pre-check must let it through');
    });
  }
});

describe('redactText keeps what is not a secret', () => {
  const lines = [
    "ERROR 1045 (28000): Access denied for user 'root'@'localhost' (using password: YES)",
    'password: YES',
    'token_count: 12',
    'secretName: db-creds',
    '  valueFrom:\n    secretKeyRef:\n      name: db\n      key: password',
    'passwordFile: /etc/x',
    'tokens_used=512',
    'token expired',
    'pod token-refresher-7d9f8 restarted',
    'container token-refresher-7d9f8: OOMKilled',
    'Token expired, requesting a new one',
    'nonce: 1',
    'sig=abc',
    'key: app.kubernetes.io/name',
    'hash: 5d8c7',
    'git sha 4b825dc642cb6eb9a060e54bf8d69288fbee4904',
    `client-certificate-data: ${CERT_BASE64}`,
    'docker run -p 8080:80 nginx',
    'Authorization: Bearer [REDACTED]',
    'password: [REDACTED]',
    '      - key: CriticalAddonsOnly',
    '    controller-revision-hash: orders-db-pqrbk95nfj',
    '    pod-template-hash: 7d9f8c6b5',
    '  - image: oci.external-secrets.io/external-secrets/external-secrets:v0.10.5',
    '  password_aux="${MYSQL_ROOT_PASSWORD:-}"',
    '"error_uri": "https://login.microsoftonline.com/error?code=7000215"',
    '    checksum/secret: effd0e15a7260ab9116de420277aca3810b6e02ee81aa70dcbedbc392cb3a8e7',
    '  token: ... 401 Unauthorized". The creation events have expired; only the repeating pull',
    'automountServiceAccountToken: false',
  ];
  for (const line of lines) {
    it(`keeps ${JSON.stringify(line.slice(0, 60))}`, () => assert.equal(redactText(line), line));
  }
});

describe('redactValue and redactNamedValue', () => {
  it('masks a YAML document held as a ConfigMap value by its inner keys', () => {
    const value = redactNamedValue('application.yaml', 'server:\n  port: 8080\ndatasource:\n  password: CmCanary1\n');
    assert.ok(!value.includes('CmCanary1'), value);
    assert.match(value, /port: 8080/);
  });

  it('masks a mysql password in a container args array', () => {
    assert.deepEqual(redactValue(['mysql', '-uroot', '-pArgvCanary2', 'shop']), [
      'mysql',
      '-uroot',
      `-p${REDACTED}`,
      'shop',
    ]);
  });

  it('masks a curl password in an argv array but keeps the user', () => {
    assert.deepEqual(redactValue(['curl', '-u', 'admin:ArgvCanary3', 'http://x']), [
      'curl',
      '-u',
      `admin:${REDACTED}`,
      'http://x',
    ]);
  });

  it('keeps status words under a sensitive key', () => {
    assert.deepEqual(redactValue({ password: 'YES', token_count: '12', secretName: 'db-creds' }), {
      password: 'YES',
      token_count: '12',
      secretName: 'db-creds',
    });
  });

  it('masks a random value under a weakly named key and keeps a plain one', () => {
    assert.deepEqual(redactValue({ signature: 'Q2FuYXJ5U2lnbmF0dXJlMTIz', state: 'open' }), {
      signature: REDACTED,
      state: 'open',
    });
  });

  it('is idempotent on its own output', () => {
    for (const [, text] of SHAPES) {
      const once = redactText(text);
      assert.equal(redactText(once), once);
    }
  });
});
