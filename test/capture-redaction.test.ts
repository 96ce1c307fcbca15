/**
 * What a capture writes never holds a credential. The secret-canary fixture hides a unique
 * canary in every place a credential hides in a cluster (Secret data and stringData, the
 * last-applied annotation, ConfigMap values, env values, args, probe commands, annotations,
 * status and event messages, log lines: tokens, passwords, keys, connection strings); the
 * capture of its namespace, served by the mock cluster, must hold none of them, in any
 * encoding, while keeping what a diagnosis reads.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { startMockCluster } from '../mock-cluster/index.ts';

const run = promisify(execFile);
const FIXTURE = 'test/fixtures/secret-canary';

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('kubewhy capture redacts', () => {
  const out = join(mkdtempSync(join(tmpdir(), 'kubewhy-capture-redaction-')), 'vault-incident');
  let written: { file: string; text: string }[] = [];

  before(async () => {
    const mock = await startMockCluster({ scenario: FIXTURE });
    try {
      await run(
        process.execPath,
        ['bin/kubewhy.js', 'capture', '--namespace', 'vault', '--kubeconfig', mock.kubeconfigPath, out],
        { env: { ...process.env, ANTHROPIC_API_KEY: '' }, timeout: 60_000 },
      );
    } finally {
      await mock.close();
    }
    written = filesUnder(out).map((file) => ({ file, text: readFileSync(file, 'utf8') }));
  });

  it('no canary of the fixture survives, as text or base64', () => {
    const fixtureText = filesUnder(FIXTURE)
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n');
    const canaries = [...new Set(fixtureText.match(/Canary[A-Za-z0-9]+/gi) ?? [])];
    assert.ok(canaries.length >= 30, `the fixture hides canaries (${canaries.length})`);
    const forms = ['canary', Buffer.from('Canary').toString('base64').slice(0, 8), 'eyJzdWIiOiJDYW5hcnlKd3QyNiJ9'];
    for (const { file, text } of written) {
      const leaked = [
        ...canaries.filter((canary) => text.includes(canary)),
        ...forms.filter((form) => text.toLowerCase().includes(form.toLowerCase())),
      ];
      assert.deepEqual(leaked, [], `${file} leaks`);
    }
  });

  it('a Secret is its name, type and key names: every value is the redacted placeholder', () => {
    const objects = parseAllDocuments(readFileSync(join(out, 'cluster.yaml'), 'utf8')).map(
      (document) =>
        document.toJS() as {
          kind: string;
          data?: Record<string, string>;
          stringData?: unknown;
          metadata: { annotations?: unknown };
        },
    );
    const secrets = objects.filter((object) => object.kind === 'Secret');
    assert.ok(secrets.length > 0);
    for (const secret of secrets) {
      assert.equal(secret.stringData, undefined);
      assert.equal(secret.metadata.annotations, undefined);
      for (const value of Object.values(secret.data ?? {}))
        assert.equal(Buffer.from(value, 'base64').toString(), 'REDACTED');
    }
    assert.ok(
      secrets.some((secret) => Object.keys(secret.data ?? {}).length > 0),
      'key names are kept',
    );
  });

  it('keeps what a diagnosis reads: images, env names, the failure in the log', () => {
    const cluster = written.find(({ file }) => file.endsWith('cluster.yaml'))?.text ?? '';
    assert.match(cluster, /image: registry\.example\.com\/billing:2\.0\.0/);
    assert.match(cluster, /name: DB_PASSWORD/);
    const previous = written.find(({ file }) => file.endsWith('app.previous.log'))?.text ?? '';
    assert.match(previous, /password authentication failed for user "billing"/);
  });
});
