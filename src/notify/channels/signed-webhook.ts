/**
 * The generic webhook: the notice as JSON, POSTed with a signature the receiver checks,
 * in the scheme Stripe uses. Each attempt sends
 *
 *   kubewhy-signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>
 *   kubewhy-delivery:  <id, the same for every retry of one notification>
 *   kubewhy-event:     finished | approval | resolved
 *
 * A receiver verifies with `verifyWebhookSignature` over the raw bytes it received, refuses
 * a timestamp outside its tolerance (a replay), and drops a delivery id it has already
 * processed (a retry of something that did arrive). The secret never leaves this module.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Channel, Notice } from '../notice.ts';
import { describeUrl, postForOutcome } from './send-outcome.ts';

export const SIGNATURE_HEADER = 'kubewhy-signature';
export const DELIVERY_HEADER = 'kubewhy-delivery';
export const EVENT_HEADER = 'kubewhy-event';
/** How far a signature's timestamp may be from the receiver's clock, by default. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

const DEFAULT_TIMEOUT_MS = 10_000;

/** What a signed webhook carries: the notice itself. */
export interface WebhookBody {
  event: Notice['event'];
  at: string;
  runUrl?: string;
  run: Notice['run'];
}

export type SignatureCheck = { ok: true; timestamp: number } | { ok: false; reason: string };

/** `t=<timestamp>,v1=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>`: the header value for one attempt. */
export function signPayload(input: { secret: string; body: string; timestamp: number }): string {
  return `t=${input.timestamp},v1=${computeSignature(input.secret, input.timestamp, input.body)}`;
}

/**
 * Checks a `kubewhy-signature` header against the raw body: the header must parse, its
 * timestamp be within `toleranceSeconds` of `now` (ms, default the clock), and one of its
 * `v1` signatures match, compared in constant time. Several `v1` are accepted so a sender
 * can sign with an old and a new secret while the secret is rotated.
 */
export function verifyWebhookSignature(input: {
  secret: string;
  header: string | null | undefined;
  body: string | Buffer;
  now?: number;
  toleranceSeconds?: number;
}): SignatureCheck {
  const { header } = input;
  if (!header) return { ok: false, reason: 'missing signature header' };
  const parsed = parseSignatureHeader(header);
  if (!parsed) return { ok: false, reason: 'malformed signature header' };
  const nowSeconds = Math.floor((input.now ?? Date.now()) / 1000);
  const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(nowSeconds - parsed.timestamp) > tolerance) return { ok: false, reason: 'timestamp outside tolerance' };
  const expected = Buffer.from(computeSignature(input.secret, parsed.timestamp, input.body), 'hex');
  const matches = parsed.signatures.some((signature) => {
    const given = Buffer.from(signature, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  return matches ? { ok: true, timestamp: parsed.timestamp } : { ok: false, reason: 'signature mismatch' };
}

export function createSignedWebhookChannel(options: {
  name: string;
  url: string;
  secret: string;
  timeoutMs?: number;
  now?: () => number;
}): Channel {
  const destination = `webhook ${describeUrl(options.url)}`;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const now = options.now ?? Date.now;
  return {
    kind: 'webhook',
    name: options.name,
    threads: false,
    render: renderWebhookBody,
    send({ body, deliveryId, signal }) {
      // Serialized once: the bytes signed are the bytes sent.
      const raw = JSON.stringify(body);
      const timestamp = Math.floor(now() / 1000);
      const event =
        typeof (body as Partial<WebhookBody> | null)?.event === 'string' ? (body as WebhookBody).event : 'unknown';
      const headers = {
        [EVENT_HEADER]: event,
        [DELIVERY_HEADER]: deliveryId,
        [SIGNATURE_HEADER]: signPayload({ secret: options.secret, body: raw, timestamp }),
      };
      return postForOutcome({ url: options.url, body: raw, headers, signal, timeoutMs, destination });
    },
  };
}

/** The notice as the receiver gets it: `{ event, at, runUrl?, run }`. */
export function renderWebhookBody(notice: Notice): WebhookBody {
  return { event: notice.event, at: notice.at, ...(notice.runUrl ? { runUrl: notice.runUrl } : {}), run: notice.run };
}

/** Over the body's bytes as they are: a receiver passes the raw Buffer it read, never a re-serialized object. */
function computeSignature(secret: string, timestamp: number, body: string | Buffer): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

/** `t=` once, as whole seconds, and at least one `v1=` of 64 hex digits; other schemes (`v0=`) are ignored. */
function parseSignatureHeader(header: string): { timestamp: number; signatures: string[] } | undefined {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const [key, value] = part.trim().split('=', 2) as [string, string | undefined];
    if (key === 't') {
      if (timestamp !== undefined || !value || !/^\d{1,12}$/.test(value)) return undefined;
      timestamp = Number(value);
    } else if (key === 'v1' && value && /^[0-9a-f]{64}$/.test(value)) {
      signatures.push(value);
    }
  }
  return timestamp !== undefined && signatures.length > 0 ? { timestamp, signatures } : undefined;
}
