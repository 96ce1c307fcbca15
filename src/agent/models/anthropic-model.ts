/**
 * Claude through `@anthropic-ai/sdk` and the clients built on it (Amazon Bedrock, Google
 * Vertex AI): the transcript becomes Messages API messages (tool results tagged with
 * their `tool_use_id`), the system prompt and tool list are marked for prompt caching
 * (5-minute or 1-hour, or not at all), and token usage comes back per call. Retries
 * (408, 409, 429, 5xx, 529) and timeouts are the SDK's; what survives them becomes a
 * ModelError that names the provider and says whether a later attempt may succeed.
 * The SDK logs through the service's logger when one is given.
 */
import Anthropic, { type ClientOptions } from '@anthropic-ai/sdk';
import type {
  CacheControlEphemeral,
  MessageCreateParamsNonStreaming,
  MessageParam,
  ContentBlockParam,
  ToolResultBlockParam,
  Tool as AnthropicTool,
} from '@anthropic-ai/sdk/resources/messages';
import type { Logger } from 'pino';
import { sdkLoggerFor, sdkLogLevelFor, withConsoleWarningsTo } from './anthropic-logging.ts';
import {
  ModelError,
  type Model,
  type ModelRequest,
  type ModelTurn,
  type ToolCall,
  type TranscriptEntry,
} from '../model.ts';

/** `5m` and `1h`: prompt-cache lifetime of the system prompt and tools; `off`: no caching. */
export type PromptCache = '5m' | '1h' | 'off';

/** What Claude takes alike from every provider (Anthropic's API, Bedrock, Vertex). */
export interface ClaudeProviderOptions extends ClientSettings {
  /** The model as the provider names it: `claude-sonnet-4-5`, a Bedrock model id or inference profile, a Vertex model. */
  model: string;
  /** Another address for the provider's API (a gateway, a VPC endpoint, a proxy). */
  baseUrl?: string;
  maxTokens?: number;
  promptCache?: PromptCache;
}

export interface AnthropicModelOptions extends ClaudeProviderOptions {
  apiKey: string;
}

/**
 * What the model needs of a client: `messages.create` without streaming. `Anthropic`,
 * `AnthropicBedrock` and `AnthropicVertex` all have it, and all throw the errors of
 * `@anthropic-ai/sdk` (their base client's).
 */
export interface MessagesClient {
  messages: {
    create(body: MessageCreateParamsNonStreaming, options?: { signal?: AbortSignal }): PromiseLike<Anthropic.Message>;
  };
}

export interface ClaudeModelOptions extends Pick<
  ClaudeProviderOptions,
  'model' | 'maxTokens' | 'promptCache' | 'logger'
> {
  client: MessagesClient;
  /** The provider as error messages name it: `Anthropic API`, `Bedrock`, `Vertex AI`. */
  label: string;
}

/** The settings every client takes alike: retries, timeout, and the SDK's log. */
export interface ClientSettings {
  maxRetries?: number;
  timeoutMs?: number;
  /** Where the SDK's warnings go (default: the SDK's own, the console). */
  logger?: Logger;
}

const DEFAULT_MAX_TOKENS = 4096;
const DEFAULT_MAX_RETRIES = 3;
const DEFAULT_TIMEOUT_MS = 120_000;
/** A turn asked again after being cut at the output limit may be this many times longer. */
const LONGER_ANSWER_FACTOR = 4;
/** Stop reasons after which the last tool call of a turn may be cut off mid-way. */
const CUT_STOP_REASONS = new Set(['max_tokens', 'model_context_window_exceeded']);

export function createAnthropicModel(options: AnthropicModelOptions): Model {
  const client = new Anthropic({
    apiKey: options.apiKey,
    ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
    ...buildClientOptions(options),
  });
  return createClaudeModel({ ...options, client, label: 'Anthropic API' });
}

/**
 * The client options the three adapters share: retries (default 3), timeout (default
 * 2 minutes), and the SDK's log sent to `logger` when given.
 */
export function buildClientOptions(
  settings: ClientSettings,
): Pick<ClientOptions, 'maxRetries' | 'timeout' | 'logger' | 'logLevel'> {
  return {
    maxRetries: settings.maxRetries ?? DEFAULT_MAX_RETRIES,
    timeout: settings.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    ...(settings.logger
      ? { logger: sdkLoggerFor(settings.logger), logLevel: sdkLogLevelFor(settings.logger.level) }
      : {}),
  };
}

/**
 * Claude through any client with `messages.create`: builds each request (caching,
 * tool choice, a longer answer after a cut one), turns the response into a ModelTurn,
 * and every failure into a ModelError whose message starts with `label` and the status.
 */
export function createClaudeModel(options: ClaudeModelOptions): Model {
  const { client, label } = options;
  const maxTokens = options.maxTokens ?? DEFAULT_MAX_TOKENS;
  const cacheControl = cacheControlFor(options.promptCache ?? '5m');
  const startRequest = sdkWarningsTo(options.logger, options.model);
  return {
    name: options.model,
    async createTurn(request: ModelRequest): Promise<ModelTurn> {
      let response: Anthropic.Message;
      try {
        const pending = startRequest(() =>
          client.messages.create(buildRequest({ request, model: options.model, maxTokens, cacheControl }), {
            signal: request.signal,
          }),
        );
        response = await pending;
      } catch (error) {
        throw toModelError(error, label);
      }
      return toTurn(response);
    },
  };
}

function buildRequest(input: {
  request: ModelRequest;
  model: string;
  maxTokens: number;
  cacheControl: CacheControlEphemeral | undefined;
}): MessageCreateParamsNonStreaming {
  const { request, cacheControl } = input;
  return {
    model: input.model,
    max_tokens: request.longerAnswer ? input.maxTokens * LONGER_ANSWER_FACTOR : input.maxTokens,
    system: [{ type: 'text', text: request.system, ...(cacheControl ? { cache_control: cacheControl } : {}) }],
    tools: toAnthropicTools(request.tools, cacheControl),
    tool_choice:
      request.toolChoice.type === 'tool' ? { type: 'tool', name: request.toolChoice.name } : { type: 'auto' },
    messages: toMessages(request.transcript, { cache: cacheControl !== undefined }),
  };
}

/**
 * Starts a request with the SDK's console warnings (a deprecated model) sent to `logger`,
 * each distinct one once; without a logger, the SDK's console is left alone.
 */
function sdkWarningsTo(logger: Logger | undefined, model: string): <T>(start: () => T) => T {
  if (!logger) return (start) => start();
  const warnedAlready = new Set<string>();
  const warn = (message: string): void => {
    if (warnedAlready.has(message)) return;
    warnedAlready.add(message);
    logger.warn({ component: 'anthropic-sdk', model }, message);
  };
  return (start) => withConsoleWarningsTo(warn, start);
}

function cacheControlFor(promptCache: PromptCache): CacheControlEphemeral | undefined {
  if (promptCache === 'off') return undefined;
  return promptCache === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
}

function toTurn(response: Anthropic.Message): ModelTurn {
  const stopReason = response.stop_reason ?? 'unknown';
  const text = response.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
  const calls: ToolCall[] = response.content.flatMap((block) =>
    block.type === 'tool_use' ? [{ id: block.id, name: block.name, input: block.input }] : [],
  );
  // A turn cut at a limit may end inside a tool call: the last block, if a call, is unfinished.
  const cutMidCall = CUT_STOP_REASONS.has(stopReason) && response.content.at(-1)?.type === 'tool_use';
  const incompleteCalls = cutMidCall ? calls.splice(-1, 1) : [];
  const creation = response.usage.cache_creation;
  const cacheWrite1h = creation?.ephemeral_1h_input_tokens ?? 0;
  return {
    text,
    calls,
    stopReason,
    usage: {
      input: response.usage.input_tokens,
      output: response.usage.output_tokens,
      cacheRead: response.usage.cache_read_input_tokens ?? 0,
      cacheWrite: response.usage.cache_creation_input_tokens ?? 0,
      ...(cacheWrite1h > 0 ? { cacheWrite1h } : {}),
    },
    ...(incompleteCalls.length > 0 ? { incompleteCalls } : {}),
    ...(stopReason === 'refusal' ? { refusal: describeRefusal(response) } : {}),
    ...(stopReason === 'pause_turn' ? { blocks: response.content as unknown[] } : {}),
  };
}

function describeRefusal(response: Anthropic.Message): string {
  const details = response.stop_details;
  const said = response.content
    .flatMap((block) => (block.type === 'text' && block.text.trim() ? [block.text.trim()] : []))
    .join(' ');
  const parts = [
    details?.explanation,
    details?.category ? `(category ${details.category})` : undefined,
    details?.explanation ? undefined : said || undefined,
  ];
  const description = parts.filter((part): part is string => typeof part === 'string' && part.length > 0).join(' ');
  return description || 'no explanation given';
}

function toAnthropicTools(
  tools: ModelRequest['tools'],
  cacheControl: CacheControlEphemeral | undefined,
): AnthropicTool[] {
  return tools.map((tool, index) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.input_schema as AnthropicTool['input_schema'],
    // One breakpoint after the last tool caches the whole (stable) tool list.
    ...(cacheControl && index === tools.length - 1 ? { cache_control: cacheControl } : {}),
  }));
}

/**
 * Consecutive entries of one role merge into one message, as the API requires alternation.
 * With `cache` (the default), the newest block carries a 5-minute breakpoint: turns come
 * seconds apart, and a shorter lifetime may follow the 1-hour ones of tools and system.
 */
export function toMessages(transcript: readonly TranscriptEntry[], options: { cache?: boolean } = {}): MessageParam[] {
  const messages: MessageParam[] = [];
  const push = (role: 'user' | 'assistant', blocks: ContentBlockParam[]): void => {
    const last = messages.at(-1);
    if (last && last.role === role && Array.isArray(last.content)) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  for (const entry of transcript) {
    if (entry.role === 'user') push('user', [{ type: 'text', text: entry.text }]);
    else if (entry.role === 'assistant') push('assistant', assistantBlocks(entry));
    else {
      const blocks: ContentBlockParam[] = entry.results.map(({ call, result }): ToolResultBlockParam => ({
        type: 'tool_result',
        tool_use_id: call.id,
        content: result.content,
        ...(result.ok ? {} : { is_error: true }),
      }));
      if (entry.note) blocks.push({ type: 'text', text: entry.note });
      push('user', blocks);
    }
  }
  // A breakpoint on the newest block lets the next turn reuse this whole prefix from the cache
  // (not on a paused assistant turn, which goes back untouched).
  const last = messages.at(-1);
  if ((options.cache ?? true) && last?.role === 'user' && Array.isArray(last.content)) {
    const block = last.content.at(-1);
    if (block && (block.type === 'text' || block.type === 'tool_result')) block.cache_control = { type: 'ephemeral' };
  }
  return messages;
}

function assistantBlocks(entry: Extract<TranscriptEntry, { role: 'assistant' }>): ContentBlockParam[] {
  // A paused turn goes back exactly as the API gave it (copied: the breakpoint must not touch the transcript).
  if (entry.blocks && entry.blocks.length > 0)
    return entry.blocks.map((block) => ({ ...(block as object) }) as ContentBlockParam);
  const blocks: ContentBlockParam[] = [];
  if (entry.text) blocks.push({ type: 'text', text: entry.text });
  for (const call of entry.calls)
    blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: call.input ?? {} });
  if (blocks.length === 0) blocks.push({ type: 'text', text: '(no answer)' });
  return blocks;
}

/** The SDK's own rule: these statuses may succeed when tried again. */
function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** `label` names the provider: `Anthropic API 429: rate_limit_error: ...`, `Bedrock 403: AccessDeniedException: ...`. */
function toModelError(error: unknown, label: string): ModelError {
  if (error instanceof Anthropic.APIUserAbortError)
    return new ModelError(`the request was aborted: ${error.message}`, { cause: error });
  if (error instanceof Anthropic.APIError) {
    // No status: the connection failed or timed out, which a later attempt may not meet.
    const status = typeof error.status === 'number' ? error.status : undefined;
    const retryAfterMs = retryAfterOf(error.headers);
    return new ModelError(`${label} ${status ?? 'no status'}: ${describeApiError(error)}`, {
      retryable: status === undefined || isRetryableStatus(status),
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      cause: error,
    });
  }
  return new ModelError(error instanceof Error ? error.message : String(error), { cause: error });
}

/**
 * The provider's own `type: message` when its error body has one, else the SDK's message.
 * Anthropic: `{ error: { type, message } }`; Vertex AI: `{ error: { status, message } }`;
 * Bedrock: `{ message }`, its type in the `x-amzn-errortype` header (`AccessDeniedException:...`).
 */
function describeApiError(error: InstanceType<typeof Anthropic.APIError>): string {
  const body: unknown = error.error;
  if (typeof body !== 'object' || body === null) return error.message;
  const nested =
    'error' in body ? (body as { error?: { type?: unknown; status?: unknown; message?: unknown } }).error : undefined;
  if (typeof nested?.message === 'string') {
    const type =
      typeof nested.type === 'string' ? nested.type : typeof nested.status === 'string' ? nested.status : undefined;
    return type ? `${type}: ${nested.message}` : nested.message;
  }
  const message = (body as { message?: unknown }).message;
  if (typeof message === 'string') {
    const type = error.headers?.get('x-amzn-errortype')?.split(':')[0];
    return type ? `${type}: ${message}` : message;
  }
  return error.message;
}

/** `retry-after-ms`, else `retry-after` (seconds, or an HTTP date), as the SDK reads them. */
export function retryAfterOf(headers: Headers | undefined, now: number = Date.now()): number | undefined {
  const milliseconds = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
