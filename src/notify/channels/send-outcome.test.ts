import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  describeNetworkError,
  describeUrl,
  outcomeFromNetworkError,
  outcomeFromStatus,
  parseRetryAfter,
} from './send-outcome.ts';

const NOW = Date.parse('2026-12-02T08:00:00.000Z');
const headers = (values: Record<string, string>) => new Headers(values);

test('Retry-After is read as delay seconds or as an HTTP-date counted from now; a past date means now; anything else is ignored', () => {
  assert.equal(parseRetryAfter('30', NOW), 30_000);
  assert.equal(parseRetryAfter(' 0 ', NOW), 0);
  assert.equal(parseRetryAfter('Wed, 02 Dec 2026 08:01:30 GMT', NOW), 90_000);
  assert.equal(parseRetryAfter('Wed, 02 Dec 2026 07:59:00 GMT', NOW), 0);
  for (const unreadable of [
    null,
    undefined,
    '',
    'soon',
    '-5',
    '1.5',
    '2026-12-02T08:01:30Z',
    'Wed, 02 Dec 2026 08:01:30',
  ]) {
    assert.equal(parseRetryAfter(unreadable, NOW), undefined, String(unreadable));
  }
});

test('2xx is delivered; 429 and 503 are retried when the receiver says; other 5xx, 408 and 429 without a header are retried; other 4xx are not', () => {
  const destination = 'Teams workflow https://example.com/workflows/…';
  assert.deepEqual(outcomeFromStatus({ status: 202, destination }), { ok: true });
  assert.deepEqual(outcomeFromStatus({ status: 429, headers: headers({ 'retry-after': '7' }), destination }), {
    ok: false,
    retryable: true,
    status: 429,
    retryAfterMs: 7000,
    error: `${destination} answered HTTP 429`,
  });
  assert.deepEqual(
    outcomeFromStatus({
      status: 503,
      headers: headers({ 'retry-after': 'Wed, 02 Dec 2026 08:00:10 GMT' }),
      destination,
      now: NOW,
    }),
    {
      ok: false,
      retryable: true,
      status: 503,
      retryAfterMs: 10_000,
      error: `${destination} answered HTTP 503`,
    },
  );
  for (const status of [408, 429, 500, 502, 504]) {
    const outcome = outcomeFromStatus({ status, headers: headers({}), destination });
    assert.equal(outcome.ok === false && outcome.retryable, true, String(status));
    assert.equal(outcome.ok === false && outcome.retryAfterMs, undefined, String(status));
  }
  // Retry-After on a 500 is not the receiver asking for a pause in the sense RFC 9110 gives it.
  assert.equal(
    'retryAfterMs' in outcomeFromStatus({ status: 500, headers: headers({ 'retry-after': '5' }), destination }),
    false,
  );
  for (const status of [400, 401, 403, 404, 410, 413]) {
    const outcome = outcomeFromStatus({ status, destination });
    assert.equal(outcome.ok === false && outcome.retryable, false, String(status));
  }
});

test("a receiver's short error code is named in the error; free text, which could echo the request, is not", () => {
  const destination = 'Slack webhook https://hooks.slack.com/services/…';
  const named = outcomeFromStatus({ status: 400, detail: 'invalid_payload', destination });
  assert.equal(named.ok === false && named.error, `${destination} answered HTTP 400 (invalid_payload)`);
  const echoed = outcomeFromStatus({
    status: 400,
    detail: 'bad request to https://hooks.slack.com/services/T1/B2/SECRET',
    destination,
  });
  assert.equal(echoed.ok === false && echoed.error, `${destination} answered HTTP 400`);
});

test('a request that got no answer is retryable, and names the socket error or the timeout, never the error message', () => {
  const refused = new TypeError('fetch failed', {
    cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9 https://hooks.slack.com/services/T1/B2/SECRET'), {
      code: 'ECONNREFUSED',
    }),
  });
  assert.deepEqual(outcomeFromNetworkError({ error: refused, destination: 'webhook https://example.com/' }), {
    ok: false,
    retryable: true,
    error: 'webhook https://example.com/ could not be reached: ECONNREFUSED',
  });
  assert.equal(
    describeNetworkError(new DOMException('The operation was aborted due to timeout', 'TimeoutError'), 250),
    'timed out after 250 ms',
  );
  assert.equal(describeNetworkError(new DOMException('This operation was aborted', 'AbortError')), 'aborted');
  assert.equal(
    describeNetworkError(
      new TypeError('fetch failed', {
        cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
      }),
    ),
    'UND_ERR_SOCKET',
  );
  assert.equal(describeNetworkError('a string'), 'network error');
});

test('describeUrl keeps the scheme, the host and a first path segment that reads as a word, and drops every secret part', () => {
  const cases: [string, string][] = [
    ['https://hooks.slack.com/services/T0ABCDEF/B0GHIJKL/x1y2z3SECRETsecret', 'https://hooks.slack.com/services/…'],
    [
      'https://prod-12.westeurope.logic.azure.com:443/workflows/5e1f/triggers/manual/paths/invoke?api-version=2016-06-01&sig=SIGSECRET',
      'https://prod-12.westeurope.logic.azure.com/workflows/…',
    ],
    ['http://127.0.0.1:8123/api/', 'http://127.0.0.1:8123/api'],
    ['https://user:password@tickets.example.com/hook?token=TOKENSECRET', 'https://tickets.example.com/hook/…'],
    ['https://tickets.example.com/a8f3e9c1d2b4a5f6e7d8c9b0a1f2e3d4', 'https://tickets.example.com/…'],
    ['https://tickets.example.com', 'https://tickets.example.com/'],
    ['https://tickets.example.com/#fragment', 'https://tickets.example.com/…'],
    ['not a url SECRET', 'an invalid URL'],
  ];
  for (const [url, expected] of cases) assert.equal(describeUrl(url), expected, url);
  for (const [url] of cases) assert.doesNotMatch(describeUrl(url), /SECRET|T0ABCDEF|B0GHIJKL|password|a8f3e9/);
});
