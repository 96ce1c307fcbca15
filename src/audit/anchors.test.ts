import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openDatabase } from '../store/database.ts';
import { createSqliteStores } from '../store/sqlite-stores.ts';
import { readAnchorLog } from './anchor-log.ts';
import {
  anchorLogFields,
  checkAnchorSignature,
  createAnchorSigner,
  keyIdOf,
  readAuditKey,
  unsignedAnchors,
} from './anchors.ts';

const KEY = Buffer.from('9f1c2b7e4a5d6c8e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f70');
const OTHER_KEY = Buffer.from('0000000000000000000000000000000000000000000000000000000000000001');
const anchor = { runId: 'run-a', seq: 4, hash: 'a'.repeat(64), time: '2026-12-01T10:00:00.000Z' };

function keyFile(content: string | Buffer): string {
  const path = join(mkdtempSync(join(tmpdir(), 'kubewhy-key-')), 'audit-key');
  writeFileSync(path, content);
  return path;
}

test('a signed anchor checks with its key and fails with another key or with any field changed', () => {
  const signature = createAnchorSigner(KEY).sign(anchor)!;
  assert.match(signature, new RegExp(`^hmac-sha256:${keyIdOf(KEY)}:[0-9a-f]{64}$`));
  assert.deepEqual(checkAnchorSignature(anchor, signature, KEY), { valid: true });
  const withOtherKey = checkAnchorSignature(anchor, signature, OTHER_KEY);
  assert.equal(withOtherKey.valid, false);
  assert.match(withOtherKey.valid ? '' : withOtherKey.problem, /names key id/);
  for (const changed of [
    { runId: 'run-b' },
    { seq: 5 },
    { hash: 'b'.repeat(64) },
    { time: '2026-12-01T10:00:01.000Z' },
  ]) {
    assert.equal(checkAnchorSignature({ ...anchor, ...changed }, signature, KEY).valid, false, JSON.stringify(changed));
  }
  assert.equal(checkAnchorSignature(anchor, 'hmac-sha256:abc:not-hex', KEY).valid, false);
});

test('the key file is read without its trailing newline; a missing or short one fails naming the setting and the path', () => {
  assert.deepEqual(readAuditKey(keyFile(`${KEY.toString()}\n`)), KEY);
  const short = keyFile('too-short-key\n');
  assert.throws(
    () => readAuditKey(short),
    (error: Error) =>
      error.name === 'ConfigError' &&
      error.message.includes('KUBEWHY_AUDIT_KEY_FILE') &&
      error.message.includes(short) &&
      /at least 32/.test(error.message),
  );
  const missing = join(tmpdir(), 'kubewhy-no-such-key-file');
  assert.throws(
    () => readAuditKey(missing, '--key-file'),
    (error: Error) =>
      error.message.includes('--key-file') && error.message.includes(missing) && /ENOENT/.test(error.message),
  );
});

test('the log fields carry the head and the time, signed with a key and unsigned without one', async () => {
  const { audit } = createSqliteStores(openDatabase(':memory:'));
  assert.deepEqual(await anchorLogFields({ audit, runId: 'run-a', signer: unsignedAnchors }), {});
  await audit.append({ runId: 'run-a', type: 'run-created', payload: {} });
  const last = await audit.append({ runId: 'run-a', type: 'run-finished', payload: { status: 'completed' } });
  const now = new Date('2026-12-01T10:00:00.000Z');
  assert.deepEqual(await anchorLogFields({ audit, runId: 'run-a', signer: unsignedAnchors, now }), {
    auditHead: `2:${last.hash}`,
    auditAnchoredAt: now.toISOString(),
  });
  const signed = await anchorLogFields({ audit, runId: 'run-a', signer: createAnchorSigner(KEY), now });
  assert.ok('auditAnchor' in signed && signed.auditAnchor);
  assert.deepEqual(
    checkAnchorSignature({ runId: 'run-a', seq: 2, hash: last.hash, time: now.toISOString() }, signed.auditAnchor, KEY),
    { valid: true },
  );
});

test('anchors are read from mixed log lines: other lines skipped, a collector prefix allowed, the last line of a run wins', () => {
  const head = (seq: number): string => `${seq}:${String(seq).repeat(64)}`;
  const text = [
    'kubewhy 0.1.0 listening on http://127.0.0.1:8080',
    '{"level":30,"msg":"request completed","runId":"run-a"}',
    `{"level":30,"msg":"run interrupted by shutdown","runId":"run-a","auditHead":"${head(3)}","auditAnchoredAt":"2026-12-01T10:00:00.000Z"}`,
    'not json {"broken": ',
    `2026-12-01T10:05:00Z stdout F {"msg":"run finished","runId":"run-a","auditHead":"${head(7)}","auditAnchoredAt":"2026-12-01T10:05:00.000Z","auditAnchor":"hmac-sha256:x:y"}`,
    `{"msg":"run finished","runId":"run-b","auditHead":"7:short","auditAnchoredAt":"2026-12-01T10:05:00.000Z"}`,
    '',
  ].join('\n');
  const log = readAnchorLog(text, 'service.log');
  assert.equal(log.lines, 3);
  assert.deepEqual([...log.anchors.keys()], ['run-a']);
  assert.deepEqual(log.anchors.get('run-a'), {
    runId: 'run-a',
    seq: 7,
    hash: '7'.repeat(64),
    time: '2026-12-01T10:05:00.000Z',
    signature: 'hmac-sha256:x:y',
    source: 'service.log:5',
  });
  assert.equal(log.malformed.length, 1);
  assert.equal(log.malformed[0]!.runId, 'run-b');
  assert.match(log.malformed[0]!.problem, /not "<seq>:<64 hex digits>"/);
});
