/**
 * Local servers that speak each notification receiver's wire, for the channel tests:
 * Slack (the Web API's `chat.postMessage` and an incoming webhook), a Teams Workflows
 * webhook, and a receiver of kubewhy's signed webhook. Each listens on 127.0.0.1, records
 * what it accepted, checks what the real receiver checks, and can be told to fail: the
 * next requests answered 429 or 5xx (`failNext`), no answer at all (`hangNext`, for client
 * timeouts), or down until told otherwise (`setDown`). `close()` ends every connection.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  DELIVERY_HEADER,
  EVENT_HEADER,
  SIGNATURE_HEADER,
  verifyWebhookSignature,
} from '../../src/notify/channels/signed-webhook.ts';
import { SLACK_LIMITS } from '../../src/notify/channels/slack-blocks.ts';

export interface ReceiverFaults {
  /** The next `count` requests are answered `status`, with `Retry-After: retryAfter` when given. */
  failNext(input: { count: number; status: number; retryAfter?: string }): void;
  /** The next `count` requests get no answer while the receiver runs: the client's timeout ends them. */
  hangNext(count: number): void;
  /** `reset`: every connection is destroyed; `unavailable`: every request is answered 503; `false`: up again. */
  setDown(mode: 'reset' | 'unavailable' | false): void;
}

interface Receiver<Received> extends ReceiverFaults {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

export interface SlackReceived {
  via: 'api' | 'webhook';
  channel?: string;
  text?: string;
  blocks?: unknown[];
  thread_ts?: string;
  /** The ts the API gave the message. */
  ts?: string;
  contentType: string;
}

export interface FakeSlack extends Receiver<SlackReceived> {
  /** Base URL of the Web API (`<url>api/`), for `apiUrl`. */
  apiUrl: string;
  /** The incoming webhook: `<url>services/T000/B000/<webhookSecret>`. */
  webhookUrl: string;
}

/**
 * Slack, as its Web API and an incoming webhook answer. `chat.postMessage` takes JSON or
 * form-encoded bodies (the SDK's default, with `blocks` as a JSON string) and answers HTTP
 * 200 `{ok:false, error}` for a missing or wrong token, an unknown channel, no text or
 * blocks that break Block Kit's limits; the webhook answers `ok`, 400 `invalid_payload` /
 * `invalid_blocks`, or 404 `no_service` for a wrong secret.
 */
export async function startFakeSlack(options: {
  token: string;
  channels?: string[];
  webhookSecret?: string;
}): Promise<FakeSlack> {
  const channels = new Set(options.channels ?? ['C0KUBEWHY']);
  const webhookSecret = options.webhookSecret ?? 'hook-secret-1f9a8c7e';
  const received: SlackReceived[] = [];
  let sequence = 0;
  const server = await startReceiver(async (request, response) => {
    const raw = await readBody(request);
    const contentType = request.headers['content-type'] ?? '';
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (path === '/api/chat.postMessage') {
      const answer = (body: Record<string, unknown>) =>
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      const args = readSlackArguments(raw.toString('utf8'), contentType);
      const authorization = request.headers.authorization;
      if (!authorization) return answer({ ok: false, error: 'not_authed' });
      if (authorization !== `Bearer ${options.token}`) return answer({ ok: false, error: 'invalid_auth' });
      if (typeof args.channel !== 'string' || !channels.has(args.channel))
        return answer({ ok: false, error: 'channel_not_found' });
      if (!args.text && args.blocks === undefined) return answer({ ok: false, error: 'no_text' });
      if (args.blocks !== undefined && findBlockKitProblem(args.blocks))
        return answer({ ok: false, error: 'invalid_blocks' });
      sequence += 1;
      const ts = `1733100000.${String(sequence * 100).padStart(6, '0')}`;
      const threadTs = typeof args.thread_ts === 'string' ? args.thread_ts : undefined;
      received.push({
        via: 'api',
        channel: args.channel,
        text: String(args.text ?? ''),
        blocks: args.blocks as unknown[],
        ts,
        contentType,
        ...(threadTs ? { thread_ts: threadTs } : {}),
      });
      return answer({
        ok: true,
        channel: args.channel,
        ts,
        message: { type: 'message', text: args.text, ts, ...(threadTs ? { thread_ts: threadTs } : {}) },
      });
    }
    if (path.startsWith('/api/'))
      return response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ ok: false, error: 'unknown_method' }));
    const hook = /^\/services\/T000\/B000\/([^/]+)$/.exec(path);
    const answerText = (status: number, text: string) =>
      response.writeHead(status, { 'content-type': 'text/plain' }).end(text);
    if (!hook || hook[1] !== webhookSecret) return answerText(404, 'no_service');
    const payload = parseJson(raw.toString('utf8')) as { text?: unknown; blocks?: unknown } | undefined;
    if (!payload || (typeof payload.text !== 'string' && payload.blocks === undefined))
      return answerText(400, 'invalid_payload');
    if (payload.blocks !== undefined && findBlockKitProblem(payload.blocks)) return answerText(400, 'invalid_blocks');
    received.push({
      via: 'webhook',
      text: String(payload.text ?? ''),
      blocks: payload.blocks as unknown[],
      contentType,
    });
    return answerText(200, 'ok');
  });
  return {
    ...server,
    received,
    apiUrl: `${server.url}api/`,
    webhookUrl: `${server.url}services/T000/B000/${webhookSecret}`,
  };
}

/** A Block Kit problem Slack would refuse the message for, or undefined. */
export function findBlockKitProblem(blocks: unknown): string | undefined {
  if (!Array.isArray(blocks)) return 'blocks is not an array';
  if (blocks.length > SLACK_LIMITS.blocks) return `${blocks.length} blocks, more than ${SLACK_LIMITS.blocks}`;
  for (const [index, block] of blocks.entries()) {
    const problem = findBlockProblem(block as Record<string, unknown>);
    if (problem) return `block ${index}: ${problem}`;
  }
  return undefined;
}

function findBlockProblem(block: Record<string, unknown>): string | undefined {
  const textProblem = (text: unknown, limit: number, types = ['mrkdwn', 'plain_text']) => {
    const object = text as { type?: unknown; text?: unknown } | undefined;
    if (!object || !types.includes(String(object.type)) || typeof object.text !== 'string' || object.text === '')
      return 'a text object needs a type and some text';
    return object.text.length > limit ? `text of ${object.text.length} characters, more than ${limit}` : undefined;
  };
  switch (block.type) {
    case 'header':
      return textProblem(block.text, SLACK_LIMITS.headerText, ['plain_text']);
    case 'section': {
      if (block.text === undefined && block.fields === undefined) return 'a section needs text or fields';
      if (block.text !== undefined) return textProblem(block.text, SLACK_LIMITS.sectionText);
      if (!Array.isArray(block.fields) || block.fields.length === 0 || block.fields.length > SLACK_LIMITS.fields)
        return 'fields must be 1 to 10';
      return block.fields.map((field) => textProblem(field, SLACK_LIMITS.fieldText)).find(Boolean);
    }
    case 'context':
      if (
        !Array.isArray(block.elements) ||
        block.elements.length === 0 ||
        block.elements.length > SLACK_LIMITS.contextElements
      )
        return 'elements must be 1 to 10';
      return block.elements.map((element) => textProblem(element, SLACK_LIMITS.sectionText)).find(Boolean);
    case 'divider':
      return undefined;
    default:
      return `unknown block type ${String(block.type)}`;
  }
}

export interface TeamsReceived {
  card: { type: string; body: unknown[]; actions?: unknown[]; version?: string };
}

/**
 * A Teams Workflows webhook: 202 for a `message` with one Adaptive Card attachment whose
 * content is an AdaptiveCard with a body array; 400 `InvalidRequestContent` otherwise; 401
 * when the URL's `sig` is not the workflow's. `url` is the full workflow URL, `sig` and all.
 */
export async function startFakeTeams(options: { signature?: string } = {}): Promise<Receiver<TeamsReceived>> {
  const signature = options.signature ?? 'sig-4e1b0d9f2a7c';
  const received: TeamsReceived[] = [];
  const server = await startReceiver(async (request, response) => {
    const raw = await readBody(request);
    const answerError = (status: number, code: string, message: string) =>
      response
        .writeHead(status, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { code, message } }));
    if (new URL(request.url ?? '/', 'http://localhost').searchParams.get('sig') !== signature)
      return answerError(401, 'DirectApiAuthorizationRequired', 'The request is not signed.');
    const message = parseJson(raw.toString('utf8')) as
      { type?: unknown; attachments?: { contentType?: unknown; content?: TeamsReceived['card'] }[] } | undefined;
    const [attachment] = Array.isArray(message?.attachments) ? message.attachments : [];
    const card = attachment?.content;
    if (
      message?.type !== 'message' ||
      message.attachments?.length !== 1 ||
      attachment?.contentType !== 'application/vnd.microsoft.card.adaptive'
    ) {
      return answerError(400, 'InvalidRequestContent', 'Expected a message with one Adaptive Card attachment.');
    }
    if (
      card?.type !== 'AdaptiveCard' ||
      !Array.isArray(card.body) ||
      !card.body.every((element) => typeof (element as { type?: unknown }).type === 'string')
    ) {
      return answerError(400, 'InvalidRequestContent', 'The attachment is not an Adaptive Card with a body.');
    }
    received.push({ card });
    response.writeHead(202).end();
  });
  return {
    ...server,
    url: `${server.url}workflows/7d2c/triggers/manual/paths/invoke?api-version=2016-06-01&sig=${signature}`,
    received,
  };
}

export interface SignedReceived {
  deliveryId: string;
  event: string;
  body: unknown;
  /** A new attempt of a delivery already processed: answered 200, not processed again. */
  duplicate: boolean;
  /** The bytes and headers as they came, for a test that replays them by hand. */
  raw: string;
  headers: Record<string, string>;
}

export interface SignedReceiver extends Receiver<SignedReceived> {
  /** Requests refused with 401, and why. */
  rejected: { reason: string }[];
}

/**
 * A receiver of kubewhy's signed webhook, as its README tells one to be written: checks
 * `kubewhy-signature` over the raw body, refuses (401) a missing or bad signature, a
 * timestamp outside tolerance and a signature header seen before (a replay), and answers
 * 200 without processing again a delivery id it already processed.
 */
export async function startSignedReceiver(options: {
  secret: string;
  toleranceSeconds?: number;
}): Promise<SignedReceiver> {
  const received: SignedReceived[] = [];
  const rejected: { reason: string }[] = [];
  const seenSignatures = new Set<string>();
  const processed = new Set<string>();
  const server = await startReceiver(async (request, response) => {
    const raw = await readBody(request);
    const header = request.headers[SIGNATURE_HEADER];
    const refuse = (reason: string) => {
      rejected.push({ reason });
      response.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ reason }));
    };
    const check = verifyWebhookSignature({
      secret: options.secret,
      header: typeof header === 'string' ? header : undefined,
      body: raw,
      ...(options.toleranceSeconds !== undefined ? { toleranceSeconds: options.toleranceSeconds } : {}),
    });
    if (!check.ok) return refuse(check.reason);
    if (seenSignatures.has(header as string)) return refuse('replayed signature');
    seenSignatures.add(header as string);
    const deliveryId = String(request.headers[DELIVERY_HEADER] ?? '');
    const duplicate = processed.has(deliveryId);
    processed.add(deliveryId);
    const headers = Object.fromEntries(
      ['content-type', EVENT_HEADER, DELIVERY_HEADER, SIGNATURE_HEADER].map((name) => [
        name,
        String(request.headers[name] ?? ''),
      ]),
    );
    received.push({
      deliveryId,
      event: String(request.headers[EVENT_HEADER] ?? ''),
      body: JSON.parse(raw.toString('utf8')),
      duplicate,
      raw: raw.toString('utf8'),
      headers,
    });
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ received: true, duplicate }));
  });
  return { ...server, received, rejected };
}

type Handler = (request: IncomingMessage, response: ServerResponse) => Promise<unknown>;

/** Listens on 127.0.0.1, puts every request through the programmed faults first, and closes every connection on `close`. */
async function startReceiver(handler: Handler): Promise<Omit<Receiver<never>, 'received'>> {
  let down: 'reset' | 'unavailable' | false = false;
  let hanging = 0;
  const failures: { status: number; retryAfter?: string }[] = [];
  const server = createServer((request, response) => {
    if (down === 'reset') return request.socket.destroy();
    if (down === 'unavailable')
      return void response.writeHead(503, { 'content-type': 'text/plain' }).end('service unavailable');
    if (hanging > 0) {
      hanging -= 1;
      return;
    }
    const failure = failures.shift();
    if (failure) {
      const headers = {
        'content-type': 'application/json',
        ...(failure.retryAfter !== undefined ? { 'retry-after': failure.retryAfter } : {}),
      };
      return void response
        .writeHead(failure.status, headers)
        .end(JSON.stringify({ ok: false, error: failure.status === 429 ? 'ratelimited' : 'fatal_error' }));
    }
    handler(request, response).catch((error: unknown) => response.writeHead(500).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    failNext({ count, status, retryAfter }) {
      for (let index = 0; index < count; index++)
        failures.push({ status, ...(retryAfter !== undefined ? { retryAfter } : {}) });
    },
    hangNext(count) {
      hanging += count;
    },
    setDown(mode) {
      down = mode;
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The Web API's arguments from a JSON or form-encoded body; form values that hold JSON (`blocks`) are parsed. */
function readSlackArguments(raw: string, contentType: string): Record<string, unknown> {
  if (contentType.startsWith('application/json')) return (parseJson(raw) as Record<string, unknown> | undefined) ?? {};
  const args: Record<string, unknown> = Object.fromEntries(new URLSearchParams(raw));
  if (typeof args.blocks === 'string') args.blocks = parseJson(args.blocks) ?? args.blocks;
  return args;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
