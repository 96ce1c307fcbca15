/**
 * A local HTTP server that speaks the Anthropic Messages API from a script: each POST
 * /v1/messages takes the next scripted answer (a message with any stop reason, or an
 * error status), and every request body is recorded so tests can assert on the wire
 * format.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ScriptedContent =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  /** A server tool's call, as a paused (`pause_turn`) turn may hold. */
  | { type: 'server_tool_use'; id: string; name: string; input: unknown };

/**
 * A message: `stopReason` is any of the API's (`end_turn`, `tool_use`, `max_tokens`,
 * `pause_turn`, `refusal`, `model_context_window_exceeded`...), by default `tool_use`
 * when the content calls a tool and `end_turn` otherwise; `stopDetails` is the
 * refusal's `stop_details`. An error: its status, and `headers` instead of the default
 * `retry-after-ms: 5` (say, `retry-after: 7`).
 */
export type ScriptedAnswer =
  | {
      content: ScriptedContent[];
      stopReason?: string;
      stopDetails?: { type: 'refusal'; category: string | null; explanation: string | null };
      usage?: Partial<Usage>;
    }
  | { status: number; errorType: string; message: string; headers?: Record<string, string> };

interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number } | null;
}

export interface RecordedRequest {
  headers: IncomingMessage['headers'];
  body: Record<string, unknown> & {
    messages: { role: string; content: unknown }[];
    tools?: Record<string, unknown>[];
    tool_choice?: unknown;
    system?: unknown;
  };
}

export interface FakeMessagesApi {
  url: string;
  requests: RecordedRequest[];
  /** Answers not yet given. */
  remaining(): number;
  close(): Promise<void>;
}

/** `next` decides each answer from the request when the script is a function. */
export async function startFakeMessagesApi(
  script: ScriptedAnswer[] | ((request: RecordedRequest, index: number) => ScriptedAnswer),
): Promise<FakeMessagesApi> {
  const requests: RecordedRequest[] = [];
  let given = 0;
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (request.method !== 'POST' || !request.url?.startsWith('/v1/messages')) {
      response
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: request.url } }));
      return;
    }
    const recorded: RecordedRequest = {
      headers: request.headers,
      body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
    };
    requests.push(recorded);
    const index = given++;
    const answer = typeof script === 'function' ? script(recorded, index) : script[index];
    if (!answer) {
      response
        .writeHead(500, { 'content-type': 'application/json' })
        .end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'script exhausted' } }));
      return;
    }
    if ('status' in answer) {
      // retry-after-ms keeps the SDK's backoff short in tests.
      const wait = answer.headers ?? { 'retry-after-ms': '5' };
      response.writeHead(answer.status, {
        'content-type': 'application/json',
        ...wait,
        'x-should-retry': answer.status >= 500 || answer.status === 429 ? 'true' : 'false',
      });
      response.end(JSON.stringify({ type: 'error', error: { type: answer.errorType, message: answer.message } }));
      return;
    }
    const usage: Usage = {
      input_tokens: 100,
      output_tokens: 20,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
      cache_creation: null,
      ...answer.usage,
    };
    response.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_${index}` });
    response.end(
      JSON.stringify({
        id: `msg_${index}`,
        type: 'message',
        role: 'assistant',
        model: String(recorded.body.model),
        content: answer.content,
        stop_reason:
          answer.stopReason ?? (answer.content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn'),
        stop_sequence: null,
        stop_details: answer.stopDetails ?? null,
        usage,
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    remaining: () => (typeof script === 'function' ? Infinity : script.length - given),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
