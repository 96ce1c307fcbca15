/**
 * A local HTTP server that speaks the OpenAI Chat Completions API from a script: each
 * POST to `/v1/chat/completions` (or Azure's `/openai/deployments/{deployment}/chat/completions`)
 * takes the next scripted answer (a completion with any `finish_reason`, tool calls or a
 * refusal; an error status with its headers; or a body that is not JSON), and every
 * request is recorded (method, path with query, headers, parsed body) so tests assert on
 * the wire format.
 */
import { after } from 'node:test';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedToolCall {
  /** Absent: the server leaves `id` empty, as a few local servers do. */
  id?: string;
  name: string;
  /** An object is sent as its JSON; a string as is (malformed arguments, say). */
  arguments: Record<string, unknown> | string;
}

export type ScriptedCompletion =
  | {
      content?: string | null;
      toolCalls?: ScriptedToolCall[];
      /** Default: `tool_calls` when there are calls, else `stop`. */
      finishReason?: string;
      refusal?: string;
      usage?: { prompt_tokens?: number; completion_tokens?: number; cached_tokens?: number };
    }
  /** An error: its status, OpenAI's error body, and `headers` instead of the default `retry-after-ms: 5`. */
  | { status: number; message: string; errorType?: string; headers?: Record<string, string> }
  /** A 200 whose body is this text, not JSON. */
  | { malformedBody: string };

export interface RecordedChatRequest {
  method: string;
  /** The path with its query (`/v1/chat/completions`, `/openai/deployments/d/chat/completions?api-version=...`). */
  path: string;
  headers: IncomingMessage['headers'];
  body: ChatRequestBody;
}

export interface ChatRequestBody {
  model: string;
  messages: {
    role: string;
    content?: unknown;
    tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
    tool_call_id?: string;
  }[];
  tools?: { type: string; function: { name: string; description?: string; parameters?: Record<string, unknown> } }[];
  tool_choice?: unknown;
  parallel_tool_calls?: boolean;
  response_format?: { type: string; json_schema?: { name: string; schema: Record<string, unknown> } };
  max_tokens?: number;
  max_completion_tokens?: number;
  [key: string]: unknown;
}

export interface FakeChatCompletions {
  url: string;
  requests: RecordedChatRequest[];
  close(): Promise<void>;
}

const CHAT_PATHS = [/^\/v1\/chat\/completions$/, /^\/openai\/deployments\/[^/]+\/chat\/completions$/];

export async function startFakeChatCompletions(script: ScriptedCompletion[]): Promise<FakeChatCompletions> {
  const requests: RecordedChatRequest[] = [];
  let given = 0;
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (request.method !== 'POST' || !CHAT_PATHS.some((path) => path.test(pathname))) {
      response.writeHead(404, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          error: { message: `no route ${request.method} ${request.url}`, type: 'invalid_request_error' },
        }),
      );
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequestBody;
    requests.push({ method: request.method, path: request.url ?? '', headers: request.headers, body });
    const index = given++;
    const answer = script[index];
    if (!answer) {
      response
        .writeHead(500, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'script exhausted', type: 'server_error' } }));
      return;
    }
    if ('malformedBody' in answer) {
      response.writeHead(200, { 'content-type': 'application/json' }).end(answer.malformedBody);
      return;
    }
    if ('status' in answer) {
      // retry-after-ms keeps the SDK's backoff short in tests.
      const wait = answer.headers ?? { 'retry-after-ms': '5' };
      response.writeHead(answer.status, { 'content-type': 'application/json', ...wait });
      response.end(
        JSON.stringify({
          error: { message: answer.message, type: answer.errorType ?? 'api_error', param: null, code: null },
        }),
      );
      return;
    }
    const toolCalls = (answer.toolCalls ?? []).map((call, position) => ({
      id: call.id ?? '',
      type: 'function',
      function: {
        name: call.name,
        arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
      },
      index: position,
    }));
    const usage = { prompt_tokens: 100, completion_tokens: 20, ...answer.usage };
    response.writeHead(200, { 'content-type': 'application/json', 'x-request-id': `req_${index}` });
    response.end(
      JSON.stringify({
        id: `chatcmpl-${index}`,
        object: 'chat.completion',
        created: 1_700_000_000 + index,
        model: body.model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: answer.content ?? null,
              refusal: answer.refusal ?? null,
              ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
            },
            finish_reason: answer.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
            logprobs: null,
          },
        ],
        usage: {
          prompt_tokens: usage.prompt_tokens,
          completion_tokens: usage.completion_tokens,
          total_tokens: usage.prompt_tokens + usage.completion_tokens,
          ...(usage.cached_tokens !== undefined
            ? { prompt_tokens_details: { cached_tokens: usage.cached_tokens } }
            : {}),
        },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const servers: FakeChatCompletions[] = [];
after(() => Promise.all(servers.map((server) => server.close())));

/** A fake server that closes when the test file ends. */
export async function startScriptedServer(script: ScriptedCompletion[]): Promise<FakeChatCompletions> {
  const api = await startFakeChatCompletions(script);
  servers.push(api);
  return api;
}
