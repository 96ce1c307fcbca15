import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import { buildNotice, RUN_URL } from '../../../test/helpers/notify-notices.ts';
import {
  createSignedWebhookChannel,
  renderWebhookBody,
  signPayload,
  verifyWebhookSignature,
} from './signed-webhook.ts';

const SECRET = 'whsec_5b1e7c0d9a2f4e68';
const BODY = '{"event":"finished","at":"2026-12-02T08:42:41.000Z"}';
const NOW = Date.parse('2026-12-02T08:42:41.000Z');
const TIMESTAMP = Math.floor(NOW / 1000);

test('the signature is t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>"> with the secret, as Stripe signs', () => {
  const expected = createHmac('sha256', SECRET).update(`${TIMESTAMP}.${BODY}`).digest('hex');
  assert.equal(signPayload({ secret: SECRET, body: BODY, timestamp: TIMESTAMP }), `t=${TIMESTAMP},v1=${expected}`);
});

test('a good signature verifies over the raw bytes, as a string or a Buffer, within the tolerance', () => {
  const header = signPayload({ secret: SECRET, body: BODY, timestamp: TIMESTAMP });
  assert.deepEqual(verifyWebhookSignature({ secret: SECRET, header, body: BODY, now: NOW }), {
    ok: true,
    timestamp: TIMESTAMP,
  });
  assert.deepEqual(verifyWebhookSignature({ secret: SECRET, header, body: Buffer.from(BODY), now: NOW + 299_000 }), {
    ok: true,
    timestamp: TIMESTAMP,
  });
});

test('a tampered body, a wrong secret, a stale or future timestamp and a bad header are refused, each with its reason', () => {
  const header = signPayload({ secret: SECRET, body: BODY, timestamp: TIMESTAMP });
  const refused = (input: Partial<Parameters<typeof verifyWebhookSignature>[0]>) =>
    verifyWebhookSignature({ secret: SECRET, header, body: BODY, now: NOW, ...input });
  assert.deepEqual(refused({ body: BODY.replace('finished', 'resolved') }), {
    ok: false,
    reason: 'signature mismatch',
  });
  assert.deepEqual(refused({ secret: 'whsec_other' }), { ok: false, reason: 'signature mismatch' });
  assert.deepEqual(refused({ now: NOW + 301_000 }), { ok: false, reason: 'timestamp outside tolerance' });
  assert.deepEqual(refused({ now: NOW - 301_000 }), { ok: false, reason: 'timestamp outside tolerance' });
  assert.deepEqual(refused({ now: NOW + 30_000, toleranceSeconds: 10 }), {
    ok: false,
    reason: 'timestamp outside tolerance',
  });
  assert.deepEqual(refused({ header: undefined }), { ok: false, reason: 'missing signature header' });
  assert.deepEqual(refused({ header: '' }), { ok: false, reason: 'missing signature header' });
  for (const malformed of [
    'v1=abc',
    `t=${TIMESTAMP}`,
    `t=soon,v1=${'a'.repeat(64)}`,
    `t=${TIMESTAMP},v1=xyz`,
    `t=1,t=2,v1=${'a'.repeat(64)}`,
    'garbage',
  ]) {
    assert.deepEqual(refused({ header: malformed }), { ok: false, reason: 'malformed signature header' }, malformed);
  }
  // A shifted timestamp with the old signature is a mismatch, not a pass: the timestamp is signed.
  assert.deepEqual(refused({ header: header.replace(`t=${TIMESTAMP}`, `t=${TIMESTAMP + 1}`) }), {
    ok: false,
    reason: 'signature mismatch',
  });
});

test('while a secret is rotated, a header with a v1 for each secret verifies with either', () => {
  const oldSignature = signPayload({ secret: 'whsec_old', body: BODY, timestamp: TIMESTAMP });
  const newSignature = signPayload({ secret: SECRET, body: BODY, timestamp: TIMESTAMP });
  const header = `${newSignature},${oldSignature.split(',')[1]}`;
  assert.equal(verifyWebhookSignature({ secret: 'whsec_old', header, body: BODY, now: NOW }).ok, true);
  assert.equal(verifyWebhookSignature({ secret: SECRET, header, body: BODY, now: NOW }).ok, true);
});

test('the webhook body is the notice itself: event, time, console link and the run as the API shows it', () => {
  const notice = buildNotice('finished');
  assert.deepEqual(renderWebhookBody(notice), { event: 'finished', at: notice.at, runUrl: RUN_URL, run: notice.run });
  assert.equal('runUrl' in renderWebhookBody(buildNotice('finished', { runUrl: null })), false);
  const channel = createSignedWebhookChannel({
    name: 'tickets',
    url: 'https://tickets.example.com/hook',
    secret: SECRET,
  });
  assert.deepEqual(
    { kind: channel.kind, name: channel.name, threads: channel.threads },
    { kind: 'webhook', name: 'tickets', threads: false },
  );
});
