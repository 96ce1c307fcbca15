/**
 * Slack channels: an incoming webhook (`@slack/webhook`), which posts to the channel the
 * webhook was made for and returns no message id, and a bot (`@slack/web-api`
 * `chat.postMessage`), which returns the message's `ts` so a run's later notices reply in
 * its thread. Both render with `renderSlackMessage`, make exactly one attempt per `send`
 * (the SDKs' retries are off: the outbox retries) and turn every answer into a
 * `SendOutcome`. The webhook URL and the token never reach an outcome, an error or a log:
 * the SDK's logger is silenced and errors are written from status codes and Slack's error
 * codes only.
 */
import {
  IncomingWebhook,
  IncomingWebhookHTTPError,
  IncomingWebhookRequestError,
  type FetchFunction as WebhookFetch,
  type IncomingWebhookSendArguments,
} from '@slack/webhook';
import {
  LogLevel,
  WebAPIHTTPError,
  WebAPIPlatformError,
  WebAPIRateLimitedError,
  WebAPIRequestError,
  WebClient,
  type Logger,
} from '@slack/web-api';
import type { Channel, SendOutcome } from '../notice.ts';
import { renderSlackMessage, type SlackMessage } from './slack-blocks.ts';
import { describeUrl, outcomeFromNetworkError, outcomeFromStatus, type HeaderReader } from './send-outcome.ts';

export const DEFAULT_SLACK_API_URL = 'https://slack.com/api/';
const DEFAULT_TIMEOUT_MS = 10_000;

/** Block Kit blocks as the SDKs type them; `renderSlackMessage` builds them, typed loosely as the stored body they become. */
type SlackBlocks = NonNullable<IncomingWebhookSendArguments['blocks']>;

/**
 * Slack's `{ok: false, error}` codes a retry can get past; every other code (invalid_auth,
 * channel_not_found, not_in_channel, is_archived, invalid_blocks, msg_too_long...) needs a
 * person to change the token, the channel or the code, so it is not retried.
 */
const RETRYABLE_PLATFORM_ERRORS: Record<string, string> = {
  ratelimited: 'rate limited without a 429 (a workspace-wide limit)',
  internal_error: "a transient error on Slack's side",
  fatal_error: "a failure on Slack's side; the message may or may not have been posted",
  service_unavailable: 'Slack is down',
  request_timeout: 'Slack timed out reading the request',
};

export function createSlackWebhookChannel(options: { name: string; url: string; timeoutMs?: number }): Channel {
  const destination = `Slack webhook ${describeUrl(options.url)}`;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return {
    kind: 'slack-webhook',
    name: options.name,
    threads: false,
    render: renderSlackMessage,
    async send({ body, signal }) {
      if (!isSlackMessage(body))
        return { ok: false, retryable: false, error: 'the stored body is not a Slack message ({text, blocks})' };
      const answer: { headers?: HeaderReader } = {};
      const webhook = new IncomingWebhook(options.url, {
        timeout: timeoutMs,
        retryConfig: { retries: 0 },
        fetch: recordAnswer(signal, answer),
      });
      try {
        await webhook.send({ text: body.text, blocks: body.blocks as SlackBlocks });
        return { ok: true };
      } catch (error) {
        if (error instanceof IncomingWebhookHTTPError)
          return outcomeFromStatus({
            status: error.statusCode,
            headers: answer.headers,
            detail: error.body,
            destination,
          });
        const cause = error instanceof IncomingWebhookRequestError ? error.original : error;
        return outcomeFromNetworkError({ error: cause, destination, timeoutMs });
      }
    },
  };
}

export function createSlackBotChannel(options: {
  name: string;
  token: string;
  channel: string;
  apiUrl?: string;
  timeoutMs?: number;
}): Channel {
  const apiUrl = options.apiUrl ?? DEFAULT_SLACK_API_URL;
  const destination = `Slack ${describeUrl(apiUrl)} (channel ${options.channel})`;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return {
    kind: 'slack-bot',
    name: options.name,
    threads: true,
    render: renderSlackMessage,
    async send({ body, thread, signal }) {
      if (!isSlackMessage(body))
        return { ok: false, retryable: false, error: 'the stored body is not a Slack message ({text, blocks})' };
      const answer: { status?: number; headers?: HeaderReader } = {};
      const client = new WebClient(options.token, {
        slackApiUrl: apiUrl,
        retryConfig: { retries: 0 },
        rejectRateLimitedCalls: true,
        timeout: timeoutMs,
        logger: silentLogger,
        fetch: recordAnswer(signal, answer),
      });
      try {
        const result = await client.chat.postMessage({
          channel: options.channel,
          text: body.text,
          blocks: body.blocks as SlackBlocks,
          ...(thread ? { thread_ts: thread } : {}),
        });
        // A reply keeps the thread it went to: Slack threads only under a top-level message's ts.
        const ts = thread ?? result.ts;
        return ts ? { ok: true, thread: ts } : { ok: true };
      } catch (error) {
        return outcomeFromBotError({ error, answer, destination, timeoutMs });
      }
    },
  };
}

function outcomeFromBotError(input: {
  error: unknown;
  answer: { status?: number; headers?: HeaderReader };
  destination: string;
  timeoutMs: number;
}): SendOutcome {
  const { error, answer, destination } = input;
  if (error instanceof WebAPIPlatformError) {
    const code = error.data.error;
    const retryable = Object.hasOwn(RETRYABLE_PLATFORM_ERRORS, code);
    return {
      ok: false,
      retryable,
      status: answer.status ?? 200,
      error: `${destination} refused the message: ${toSafeCode(code)}`,
    };
  }
  if (error instanceof WebAPIRateLimitedError) {
    return {
      ok: false,
      retryable: true,
      status: 429,
      retryAfterMs: error.retryAfter * 1000,
      error: `${destination} answered HTTP 429 (rate limited)`,
    };
  }
  if (error instanceof WebAPIHTTPError)
    return outcomeFromStatus({ status: error.statusCode, headers: answer.headers, destination });
  // A 429 whose Retry-After the SDK cannot read (an HTTP-date) arrives as a plain error; the answer tells what it was.
  if (answer.status !== undefined && answer.status !== 200)
    return outcomeFromStatus({ status: answer.status, headers: answer.headers, destination });
  const cause = error instanceof WebAPIRequestError ? error.original : error;
  return outcomeFromNetworkError({ error: cause, destination, timeoutMs: input.timeoutMs });
}

/**
 * A fetch for the SDKs that also stops when the outbox aborts the attempt, and keeps the
 * answer's status and headers (the SDKs drop Retry-After's HTTP-date form, and the
 * webhook's errors carry no headers).
 */
function recordAnswer(signal: AbortSignal, answer: { status?: number; headers?: HeaderReader }): WebhookFetch {
  return async (url, init) => {
    const signals = init?.signal ? [init.signal, signal] : [signal];
    const response = await fetch(url, { ...init, signal: AbortSignal.any(signals) });
    answer.status = response.status;
    answer.headers = response.headers;
    return response;
  };
}

function isSlackMessage(body: unknown): body is SlackMessage {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as SlackMessage).text === 'string' &&
    Array.isArray((body as SlackMessage).blocks)
  );
}

/** Slack's error codes are snake_case words; anything else is not repeated. */
function toSafeCode(code: string): string {
  return /^[a-z][a-z0-9_]{0,63}$/.test(code) ? code : 'an unrecognised error';
}

/** The SDK's logger, silenced: its warnings quote request failures, and nothing of a send belongs in the SDK's console output. */
const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  setLevel() {},
  getLevel: () => LogLevel.ERROR,
  setName() {},
};
