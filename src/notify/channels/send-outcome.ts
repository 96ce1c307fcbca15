/**
 * What every channel does with an answer it got, or did not get: an HTTP status and its
 * headers become a `SendOutcome` the outbox schedules from, and a failure to reach the
 * receiver becomes a retryable one. The `error` text these build names the status, a
 * short code and the destination by `describeUrl`: never a full URL, a query or a token.
 */
import type { SendOutcome } from '../notice.ts';

/** The part of a fetch `Headers` these helpers read (the Slack SDKs' own header types fit it too). */
export interface HeaderReader {
  get(name: string): string | null;
}

/** Statuses the same request may succeed with later: a timeout, a rate limit, a receiver that is down or overloaded. */
const RETRYABLE_CLIENT_STATUSES = new Set([408, 429]);

/** Statuses whose Retry-After says when to come back (RFC 9110 §10.2.3). */
const STATUSES_WITH_RETRY_AFTER = new Set([429, 503]);

/**
 * Milliseconds to wait from a Retry-After value: delay seconds (`120`) or an HTTP-date
 * (`Wed, 02 Dec 2026 08:00:00 GMT`, counted from `now`). A date in the past means now (0);
 * anything else, or no header, is undefined.
 */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Date.parse also takes bare numbers and partial dates; an HTTP-date always names its weekday and GMT.
  if (!/^[A-Za-z]{3}, .+ GMT$/.test(text)) return undefined;
  const time = Date.parse(text);
  if (Number.isNaN(time)) return undefined;
  return Math.max(0, time - now);
}

/**
 * The outcome of an HTTP answer: 2xx delivered; 408, 429 and 5xx retryable (429 and 503
 * with `retryAfterMs` when the answer says when); any other status not retryable, as
 * sending the same body again cannot succeed. `detail` is a short code from the
 * receiver's body (`invalid_payload`), added to the error text when it looks like one.
 */
export function outcomeFromStatus(input: {
  status: number;
  headers?: HeaderReader;
  detail?: string;
  destination: string;
  now?: number;
}): SendOutcome {
  const { status, headers, destination } = input;
  if (status >= 200 && status < 300) return { ok: true };
  const retryable = status >= 500 || RETRYABLE_CLIENT_STATUSES.has(status);
  const retryAfterMs = STATUSES_WITH_RETRY_AFTER.has(status)
    ? parseRetryAfter(headers?.get('retry-after'), input.now)
    : undefined;
  const code = toShortCode(input.detail);
  const error = `${destination} answered HTTP ${status}${code ? ` (${code})` : ''}`;
  return { ok: false, retryable, status, error, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
}

/**
 * The outcome of a request that got no answer: the connection failed, the attempt timed
 * out, or the outbox aborted it. All are retryable. The text names the error's code
 * (`ECONNREFUSED`, `timeout`), never the error's message, which may quote the URL.
 */
export function outcomeFromNetworkError(input: {
  error: unknown;
  destination: string;
  timeoutMs?: number;
}): SendOutcome {
  const reason = describeNetworkError(input.error, input.timeoutMs);
  return { ok: false, retryable: true, error: `${input.destination} could not be reached: ${reason}` };
}

/** `timed out after 5000 ms`, `aborted`, or the socket error's code, found on the error or its causes. */
/**
 * One JSON POST to a receiver, as its outcome: the combined abort (the outbox's and the
 * attempt's timeout), no redirect followed (a redirect could carry the body elsewhere),
 * the answer read to free the connection, and `readDetail` picking a short code from it.
 */
export async function postForOutcome(input: {
  url: string;
  body: string;
  headers?: Record<string, string>;
  signal: AbortSignal;
  timeoutMs: number;
  destination: string;
  readDetail?: (text: string) => string | undefined;
}): Promise<SendOutcome> {
  const { destination, timeoutMs } = input;
  try {
    const response = await fetch(input.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...input.headers },
      body: input.body,
      redirect: 'error',
      signal: AbortSignal.any([input.signal, AbortSignal.timeout(timeoutMs)]),
    });
    const text = await response.text();
    const detail = input.readDetail?.(text);
    return outcomeFromStatus({
      status: response.status,
      headers: response.headers,
      ...(detail !== undefined ? { detail } : {}),
      destination,
    });
  } catch (error) {
    return outcomeFromNetworkError({ error, destination, timeoutMs });
  }
}

export function describeNetworkError(error: unknown, timeoutMs?: number): string {
  for (
    let current: unknown = error, depth = 0;
    current instanceof Error && depth < 5;
    current = current.cause, depth++
  ) {
    if (current.name === 'TimeoutError')
      return timeoutMs !== undefined ? `timed out after ${timeoutMs} ms` : 'timed out';
    if (current.name === 'AbortError') return 'aborted';
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z_]+$|^UND_ERR_[A-Z_]+$/.test(code)) return code;
  }
  return 'network error';
}

/**
 * A URL's name for errors, logs and metrics: `scheme://host/` and the first path segment
 * when that segment reads as a word (`https://hooks.slack.com/services/…`). The rest of
 * the path, the query, the fragment and any user:password are dropped, because webhook
 * URLs carry their secret there (Slack's `/services/T/B/SECRET`, a Teams workflow's
 * `?sig=`). A first segment with digits could itself be a token, so it is dropped too.
 */
export function describeUrl(url: string | URL): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'an invalid URL';
  }
  const origin = `${parsed.protocol}//${parsed.host}/`;
  const segments = parsed.pathname.split('/').filter((segment) => segment !== '');
  const [first] = segments;
  const hidden = segments.length > 1 || parsed.search !== '' || parsed.hash !== '';
  if (first === undefined) return hidden ? `${origin}…` : origin;
  const shown = /^[A-Za-z][A-Za-z._-]{0,31}$/.test(first) ? first : '…';
  return `${origin}${shown}${hidden && shown !== '…' ? '/…' : ''}`;
}

/** A receiver's short error code (`invalid_payload`, `channel_not_found`), or undefined for anything longer or freer. */
function toShortCode(detail: string | undefined): string | undefined {
  const text = detail?.trim();
  return text && /^[A-Za-z][\w.-]{0,63}$/.test(text) ? text : undefined;
}
