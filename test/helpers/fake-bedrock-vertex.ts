/**
 * Local HTTP servers that speak Claude's wire on Amazon Bedrock and on Google Vertex AI,
 * answering from a script as the fake Messages API does (fake-messages-api.ts):
 *
 * - Bedrock: `POST /model/{modelId}/invoke`; errors as Bedrock gives them, `{ message }`
 *   with the type in `x-amzn-errortype` (AccessDeniedException, ThrottlingException...).
 * - Vertex AI: `POST /v1/projects/{project}/locations/{region}/publishers/anthropic/models/{model}:rawPredict`;
 *   errors as Google APIs give them, `{ error: { code, message, status } }` (PERMISSION_DENIED...).
 *
 * Both take the Messages request with `anthropic_version` and without `model` (the model
 * is in the path) and refuse any other body with a 400, as the platforms do. Every
 * request is recorded as it arrived: path as sent, headers, raw body (a SigV4 signature
 * can be checked against it).
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ScriptedAnswer } from './fake-messages-api.ts';

export interface PlatformRequest {
  method: string;
  /** The path and query as sent, percent-encoding included. */
  rawPath: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: Record<string, unknown> & {
    messages: { role: string; content: unknown }[];
    tools?: Record<string, unknown>[];
    system?: unknown;
  };
  /** The path's parameters, decoded: Bedrock `modelId`; Vertex `project`, `region`, `model`. */
  params: Record<string, string>;
}

export interface FakePlatform {
  url: string;
  requests: PlatformRequest[];
  close(): Promise<void>;
}

type Script = ScriptedAnswer[] | ((request: PlatformRequest, index: number) => ScriptedAnswer);

interface Platform {
  /** The path's parameters when the path is the platform's Messages endpoint. */
  route(rawPath: string): Record<string, string> | undefined;
  /** The model the response names. */
  modelOf(params: Record<string, string>): string;
  error(status: number, errorType: string, message: string): { headers: Record<string, string>; body: unknown };
}

const bedrock: Platform = {
  route: (rawPath) => {
    const match = /^\/model\/([^/]+)\/invoke$/.exec(rawPath);
    return match ? { modelId: decodeURIComponent(match[1]!) } : undefined;
  },
  modelOf: (params) => params.modelId!,
  error: (_status, errorType, message) => ({
    headers: {
      'x-amzn-errortype': `${errorType}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
      'x-amzn-requestid': 'fake-request-id',
    },
    body: { message },
  }),
};

const vertex: Platform = {
  route: (rawPath) => {
    const match =
      /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/anthropic\/models\/([^/]+):rawPredict$/.exec(rawPath);
    return match
      ? {
          project: decodeURIComponent(match[1]!),
          region: decodeURIComponent(match[2]!),
          model: decodeURIComponent(match[3]!),
        }
      : undefined;
  },
  modelOf: (params) => params.model!,
  error: (status, errorType, message) => ({
    headers: {},
    body: { error: { code: status, message, status: errorType } },
  }),
};

/** Bedrock's InvokeModel for Claude. `errorType` of a scripted error: `AccessDeniedException`, `ThrottlingException`... */
export function startFakeBedrock(script: Script): Promise<FakePlatform> {
  return startPlatform(bedrock, script, 'ValidationException');
}

/** Vertex AI's rawPredict for Claude. `errorType` of a scripted error: `PERMISSION_DENIED`, `RESOURCE_EXHAUSTED`... */
export function startFakeVertex(script: Script): Promise<FakePlatform> {
  return startPlatform(vertex, script, 'INVALID_ARGUMENT');
}

async function startPlatform(platform: Platform, script: Script, invalidType: string): Promise<FakePlatform> {
  const requests: PlatformRequest[] = [];
  let given = 0;
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const send = (status: number, headers: Record<string, string>, body: unknown): void => {
      response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    };
    const fail = (status: number, errorType: string, message: string, headers: Record<string, string> = {}): void => {
      const error = platform.error(status, errorType, message);
      send(status, { ...error.headers, ...headers }, error.body);
    };
    const rawPath = request.url ?? '';
    const params = platform.route(rawPath);
    if (request.method !== 'POST' || !params)
      return fail(404, 'NOT_FOUND', `no such endpoint: ${request.method} ${rawPath}`);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    const body = JSON.parse(rawBody) as PlatformRequest['body'];
    requests.push({ method: request.method, rawPath, headers: request.headers, rawBody, body, params });
    if (typeof body.anthropic_version !== 'string') return fail(400, invalidType, 'anthropic_version: required');
    if ('model' in body) return fail(400, invalidType, 'extraneous key [model] is not permitted');
    const index = given++;
    const answer = typeof script === 'function' ? script(requests.at(-1)!, index) : script[index];
    if (!answer) return fail(500, 'INTERNAL', 'script exhausted');
    if ('status' in answer) return fail(answer.status, answer.errorType, answer.message, answer.headers);
    send(
      200,
      {},
      {
        id: `msg_${index}`,
        type: 'message',
        role: 'assistant',
        model: platform.modelOf(params),
        content: answer.content,
        stop_reason:
          answer.stopReason ?? (answer.content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn'),
        stop_sequence: null,
        usage: {
          input_tokens: 100,
          output_tokens: 20,
          cache_read_input_tokens: 0,
          cache_creation_input_tokens: 0,
          ...answer.usage,
        },
      },
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

export interface FakeMetadataServer {
  /** For GCE_METADATA_HOST: `127.0.0.1:<port>`. */
  host: string;
  /** Every request's path, in order. */
  requests: string[];
  close(): Promise<void>;
}

/**
 * A GCE metadata server as Application Default Credentials find one (GKE Workload
 * Identity serves the same): it answers the detection ping and hands out `token` for
 * the default service account, always with `Metadata-Flavor: Google`.
 */
export async function startFakeMetadataServer(token: string): Promise<FakeMetadataServer> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(request.url ?? '');
    const headers = { 'metadata-flavor': 'Google', 'content-type': 'application/json' };
    if (request.headers['metadata-flavor'] !== 'Google') return void response.writeHead(403, headers).end('{}');
    if (request.url?.startsWith('/computeMetadata/v1/instance/service-accounts/default/token')) {
      return void response
        .writeHead(200, headers)
        .end(JSON.stringify({ access_token: token, expires_in: 3599, token_type: 'Bearer' }));
    }
    response.writeHead(200, headers).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: `127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
