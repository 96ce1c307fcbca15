/**
 * An OpenAI-compatible Chat Completions API (OpenAI, Azure OpenAI, Ollama, vLLM, LM Studio,
 * LiteLLM) through the `openai` SDK. The transcript becomes Chat Completions messages
 * (calls as `tool_calls`, results as `tool` messages tagged with their `tool_call_id`, a
 * failed result marked ERROR in its text since there is no `is_error`); `finish_reason`
 * comes back in the loop's (Messages API) vocabulary. What the family can do comes from
 * the capability table: a forced diagnosis goes out as a named `tool_choice`, else as
 * `required`, else through the structured-output fallback, which also drives a family
 * without tool calling altogether.
 *
 * Tool arguments that are not a JSON object never throw: the call keeps a string input,
 * which the gate's validation refuses with a message the model reads. Retries and timeouts
 * are the SDK's; what survives them becomes a ModelError that says whether a later
 * attempt may succeed.
 */
import OpenAI, { AzureOpenAI } from 'openai';
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';
import type { Logger } from 'pino';
import type { ToolResult } from '../../tools/tool.ts';
import { retryAfterOf } from './anthropic-model.ts';
import { sdkLogLevelFor } from './anthropic-logging.ts';
import { capabilitiesOf, type ModelCapabilities } from './model-capabilities.ts';
import {
  ModelError,
  type Model,
  type ModelRequest,
  type ModelTurn,
  type ToolCall,
  type TranscriptEntry,
} from '../model.ts';
import {
  createStructuredOutputModel,
  DEFAULT_MAX_TOKENS,
  LONGER_ANSWER_FACTOR,
  tokenLimit,
  usageOf,
  type RequestCompletion,
} from './structured-output-model.ts';
import { describeTrigger } from '../trigger.ts';

export interface OpenAiModelOptions {
  /** Local servers (Ollama, vLLM) need none; a placeholder is sent then. */
  apiKey?: string;
  /** The API's base URL with its `/v1` (`http://localhost:11434/v1`); OpenAI's when absent. */
  baseUrl?: string;
  /** The model name requests carry; with Azure, the model the deployment serves (for its capabilities). */
  model: string;
  maxRetries?: number;
  timeoutMs?: number;
  maxTokens?: number;
  azure?: { endpoint: string; apiVersion: string; deployment: string };
  /** Corrections to the capability table's row for this model. */
  capabilities?: Partial<ModelCapabilities>;
  /** Where the SDK's messages go (default: the SDK's own, the console). */
  logger?: Logger;
}

/** Arguments longer than this are cut in what the model is shown of them. */
const QUOTED_ARGUMENTS_CHARS = 200;
const NOT_AN_OBJECT_NOTE =
  'Your arguments for this call were not a JSON object, so it did not run. Call it again with a JSON object that follows its schema.';

export function createOpenAiModel(options: OpenAiModelOptions): Model {
  const capabilities = capabilitiesOf(options.model, options.capabilities);
  const client = createClient(options);
  const requestCompletion: RequestCompletion = async (body, signal) => {
    try {
      return await client.chat.completions.create(body, { signal });
    } catch (error) {
      throw toModelError(error);
    }
  };
  const maxTokens = options.maxTokens ?? DEFAULT_MAX_TOKENS;
  const structured = createStructuredOutputModel({ model: options.model, requestCompletion, capabilities, maxTokens });
  if (!capabilities.toolCalling) return structured;
  return {
    name: options.model,
    async createTurn(request: ModelRequest): Promise<ModelTurn> {
      const toolChoice = toolChoiceFor(request.toolChoice, capabilities);
      // A family that cannot be made to call a tool is asked for the diagnosis as JSON instead.
      if (toolChoice === undefined) return structured.createTurn(request);
      const body: ChatCompletionCreateParamsNonStreaming = {
        model: options.model,
        messages: toChatMessages(request),
        tools: toChatTools(request.tools),
        tool_choice: toolChoice,
        ...(capabilities.parallelToolCalls ? {} : { parallel_tool_calls: false }),
        ...tokenLimit(capabilities, request.longerAnswer ? maxTokens * LONGER_ANSWER_FACTOR : maxTokens),
      };
      return toTurn(await requestCompletion(body, request.signal));
    },
  };
}

function createClient(options: OpenAiModelOptions): OpenAI {
  const common = {
    // Explicit, so the SDK never falls back to OPENAI_* environment variables.
    apiKey: options.apiKey ?? 'no-key',
    maxRetries: options.maxRetries ?? 3,
    timeout: options.timeoutMs ?? 120_000,
    ...(options.logger ? { logger: sdkLoggerFor(options.logger), logLevel: sdkLogLevelFor(options.logger.level) } : {}),
  };
  if (options.azure)
    return new AzureOpenAI({
      ...common,
      endpoint: options.azure.endpoint,
      apiVersion: options.azure.apiVersion,
      deployment: options.azure.deployment,
    });
  return new OpenAI({ ...common, baseURL: options.baseUrl ?? 'https://api.openai.com/v1' });
}

/** Lines from the SDK carry `component: openai-sdk`; its debug lines (whole bodies) are kept out by the level. */
function sdkLoggerFor(logger: Logger): NonNullable<ConstructorParameters<typeof OpenAI>[0]>['logger'] {
  const child = logger.child({ component: 'openai-sdk' });
  const write =
    (level: 'error' | 'warn' | 'info' | 'debug') =>
    (message: string, ...rest: unknown[]): void => {
      if (rest.length === 0) child[level](message);
      else
        child[level]({ details: rest.map((detail) => (detail instanceof Error ? detail.message : detail)) }, message);
    };
  return { error: write('error'), warn: write('warn'), info: write('info'), debug: write('debug') };
}

/** The request's `tool_choice`, or undefined when the forced choice needs the structured fallback. */
export function toolChoiceFor(
  choice: ModelRequest['toolChoice'],
  capabilities: ModelCapabilities,
): ChatCompletionToolChoiceOption | undefined {
  if (choice.type === 'auto') return 'auto';
  if (capabilities.namedToolChoice) return { type: 'function', function: { name: choice.name } };
  // Only the diagnosis tool is ever forced; `required` plus the prompt's instruction gets it.
  if (capabilities.requiredToolChoice) return 'required';
  return undefined;
}

function toChatTools(tools: ModelRequest['tools']): ChatCompletionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: {
      name: tool.name,
      description: tool.description,
      parameters: tool.input_schema as Record<string, unknown>,
    },
  }));
}

/** The system prompt, then the transcript (whose first user message is the trigger) as Chat Completions messages. */
export function toChatMessages(request: ModelRequest): ChatCompletionMessageParam[] {
  const messages: ChatCompletionMessageParam[] = [{ role: 'system', content: request.system }];
  if (request.transcript[0]?.role !== 'user')
    messages.push({ role: 'user', content: describeTrigger(request.trigger) });
  for (const entry of request.transcript) {
    if (entry.role === 'user') messages.push({ role: 'user', content: entry.text });
    else if (entry.role === 'assistant') messages.push(assistantMessage(entry));
    else {
      for (const { call, result } of entry.results)
        messages.push({ role: 'tool', tool_call_id: call.id, content: toolMessageText(call, result) });
      if (entry.note) messages.push({ role: 'user', content: entry.note });
    }
  }
  return messages;
}

function assistantMessage(entry: Extract<TranscriptEntry, { role: 'assistant' }>): ChatCompletionMessageParam {
  if (entry.calls.length === 0) return { role: 'assistant', content: entry.text || '(no answer)' };
  return {
    role: 'assistant',
    content: entry.text || null,
    tool_calls: entry.calls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: argumentsText(call.input) },
    })),
  };
}

/** The call's arguments as sent back: always a JSON object, as servers that re-parse them (vLLM, Ollama) require. */
function argumentsText(input: unknown): string {
  return JSON.stringify(isObject(input) ? input : { invalid_arguments: String(input) });
}

function toolMessageText(call: ToolCall, result: ToolResult): string {
  if (result.ok) return result.content;
  const notObject = isObject(call.input) ? '' : `${NOT_AN_OBJECT_NOTE} `;
  return `ERROR (${result.error}): ${notObject}${result.content}`;
}

/** The response as a turn, `finish_reason` in the loop's vocabulary (stop-reasons.ts). */
export function toTurn(completion: ChatCompletion): ModelTurn {
  const usage = usageOf(completion);
  const choice = completion.choices[0];
  if (!choice) throw new ModelError('the API answered without a choice', { retryable: true });
  const message = choice.message;
  const parsed = (message.tool_calls ?? []).flatMap((call, index) =>
    call.type === 'function'
      ? [
          {
            call: {
              id: call.id || `call_${completion.id}_${index}`,
              name: call.function.name,
              input: parseArguments(call.function.arguments),
            },
            complete: isObject(parseJson(call.function.arguments)),
          },
        ]
      : [],
  );
  const calls = parsed.map(({ call }) => call);
  const text = message.content ?? '';
  if (choice.finish_reason === 'content_filter' || message.refusal) {
    return {
      text,
      calls: [],
      stopReason: 'refusal',
      usage,
      refusal: message.refusal || text.trim() || 'the API content filter stopped the answer',
    };
  }
  // A turn cut at the output limit may end inside its last call: unparsable arguments mean it was.
  const incompleteCalls =
    choice.finish_reason === 'length' && parsed.at(-1)?.complete === false ? calls.splice(-1, 1) : [];
  return {
    text,
    calls,
    stopReason: stopReasonOf(choice.finish_reason, calls.length > 0),
    usage,
    ...(incompleteCalls.length > 0 ? { incompleteCalls } : {}),
  };
}

function stopReasonOf(finishReason: string | null, hasCalls: boolean): string {
  switch (finishReason) {
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'stop':
      // Some servers (Ollama, older vLLM) say stop for a turn with calls.
      return hasCalls ? 'tool_use' : 'end_turn';
    default:
      return hasCalls ? 'tool_use' : (finishReason ?? 'unknown');
  }
}

/**
 * The call's input: the arguments' JSON object; `{}` for empty arguments (a call without
 * any); else the text itself (cut), which no tool's schema accepts, so the gate refuses it.
 */
function parseArguments(text: string): unknown {
  if (text.trim() === '') return {};
  const value = parseJson(text);
  return isObject(value) ? value : text.slice(0, QUOTED_ARGUMENTS_CHARS);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The SDK's own rule: these statuses may succeed when tried again. */
function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

export function toModelError(error: unknown): ModelError {
  if (error instanceof ModelError) return error;
  // A 200 whose body is not JSON: a proxy or gateway in the way, which may answer properly later.
  if (error instanceof SyntaxError)
    return new ModelError(`the API's answer is not JSON: ${error.message}`, { retryable: true, cause: error });
  if (error instanceof OpenAI.APIUserAbortError)
    return new ModelError(`the request was aborted: ${error.message}`, { cause: error });
  if (error instanceof OpenAI.APIError) {
    // No status: the connection failed or timed out, which a later attempt may not meet.
    const status = typeof error.status === 'number' ? error.status : undefined;
    const retryAfterMs = retryAfterOf(error.headers);
    return new ModelError(`OpenAI-compatible API ${status ?? 'no status'}: ${error.message}`, {
      retryable: status === undefined || isRetryableStatus(status),
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      cause: error,
    });
  }
  return new ModelError(error instanceof Error ? error.message : String(error), { cause: error });
}
