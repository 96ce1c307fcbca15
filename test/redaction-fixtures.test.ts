/**
 * The secret-canary fixture read as raw text (a `kubectl get -o yaml` dump and its logs):
 * every canary is masked by `redactText` alone, without the structure the tools know.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { redactText } from '../src/redact/redactor.ts';

const FIXTURE = join(import.meta.dirname, 'fixtures', 'secret-canary');
const FILES = [
  'cluster.yaml',
  'logs/vault/billing-7f8d9c6b5-abcde/app.previous.log',
  'logs/vault/billing-7f8d9c6b5-abcde/app.log',
  'logs/vault/sync-job-x7k2p/sync.log',
];

describe('the canary fixture as raw text', () => {
  for (const file of FILES) {
    it(`${file}: no canary survives`, async () => {
      const text = await readFile(join(FIXTURE, file), 'utf8');
      const canaries = new Set(text.match(/Canary[A-Za-z0-9]*/g) ?? []);
      assert.ok(canaries.size > 0, 'the file hides canaries');
      const output = redactText(text);
      assert.deepEqual(
        [...canaries].filter((canary) => output.includes(canary)),
        [],
      );
    });
  }

  it('the dump keeps what a diagnosis reads: names, images, the failure', async () => {
    const output = redactText(await readFile(join(FIXTURE, 'cluster.yaml'), 'utf8'));
    assert.match(output, /image: registry\.example\.com\/billing:2\.0\.0/);
    assert.match(output, /name: DB_PASSWORD/);
  });
});
