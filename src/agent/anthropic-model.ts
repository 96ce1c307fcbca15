/**
 * Claude through `@anthropic-ai/sdk`: the transcript becomes Messages API messages
 * (tool results tagged with their `tool_use_id`), the system prompt and tool list are
 * marked for prompt caching, and token usage comes back per call. Retries (429, 5xx,
 * 529) and timeouts are the SDK's; what survives them becomes a ModelError.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { MessageParam, ContentBlockParam, ToolResultBlockParam, Tool as AnthropicTool } from '@anthropic-ai/sdk/resources/messages';
import { ModelError, type Model, type ModelRequest, type ModelTurn, type TranscriptEntry } from './model.ts';

export interface AnthropicModelOptions {
  apiKey: string;
  model: string;
  baseUrl?: string;
  maxRetries?: number;
  timeoutMs?: number;
  maxTokens?: number;
}

export function createAnthropicModel(options: AnthropicModelOptions): Model {
  const client = new Anthropic({
    apiKey: options.apiKey,
    ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
    maxRetries: options.maxRetries ?? 3,
    timeout: options.timeoutMs ?? 120_000,
  });
  return {
    name: options.model,
    async createTurn(request: ModelRequest): Promise<ModelTurn> {
      let response: Anthropic.Message;
      try {
        response = await client.messages.create(
          {
            model: options.model,
            max_tokens: options.maxTokens ?? 4096,
            system: [{ type: 'text', text: request.system, cache_control: { type: 'ephemeral' } }],
            tools: toAnthropicTools(request.tools),
            tool_choice: request.toolChoice.type === 'tool' ? { type: 'tool', name: request.toolChoice.name } : { type: 'auto' },
            messages: toMessages(request.transcript),
          },
          { signal: request.signal },
        );
      } catch (error) {
        throw toModelError(error);
      }
      const text = response.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
      const calls = response.content.flatMap((block) => (block.type === 'tool_use' ? [{ id: block.id, name: block.name, input: block.input }] : []));
      return {
        text,
        calls,
        stopReason: response.stop_reason ?? 'unknown',
        usage: {
          input: response.usage.input_tokens,
          output: response.usage.output_tokens,
          cacheRead: response.usage.cache_read_input_tokens ?? 0,
          cacheWrite: response.usage.cache_creation_input_tokens ?? 0,
        },
      };
    },
  };
}

function toAnthropicTools(tools: ModelRequest['tools']): AnthropicTool[] {
  return tools.map((tool, index) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.input_schema as AnthropicTool['input_schema'],
    // One breakpoint after the last tool caches the whole (stable) tool list.
    ...(index === tools.length - 1 ? { cache_control: { type: 'ephemeral' as const } } : {}),
  }));
}

/** Consecutive entries of one role merge into one message, as the API requires alternation. */
export function toMessages(transcript: readonly TranscriptEntry[]): MessageParam[] {
  const messages: MessageParam[] = [];
  const push = (role: 'user' | 'assistant', blocks: ContentBlockParam[]): void => {
    const last = messages.at(-1);
    if (last && last.role === role && Array.isArray(last.content)) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  for (const entry of transcript) {
    if (entry.role === 'user') push('user', [{ type: 'text', text: entry.text }]);
    else if (entry.role === 'assistant') {
      const blocks: ContentBlockParam[] = [];
      if (entry.text) blocks.push({ type: 'text', text: entry.text });
      for (const call of entry.calls) blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: call.input ?? {} });
      if (blocks.length === 0) blocks.push({ type: 'text', text: '(no answer)' });
      push('assistant', blocks);
    } else {
      const blocks: ToolResultBlockParam[] = entry.results.map(({ call, result }) => ({
        type: 'tool_result',
        tool_use_id: call.id,
        content: result.content,
        ...(result.ok ? {} : { is_error: true }),
      }));
      push('user', blocks);
    }
  }
  // A breakpoint on the newest block lets the next turn reuse this whole prefix from the cache.
  const last = messages.at(-1);
  if (last && Array.isArray(last.content)) {
    const block = last.content.at(-1);
    if (block && (block.type === 'text' || block.type === 'tool_result')) block.cache_control = { type: 'ephemeral' };
  }
  return messages;
}

function toModelError(error: unknown): ModelError {
  if (error instanceof Anthropic.APIError) {
    const status = error.status ?? 'no status';
    return new ModelError(`Anthropic API ${status}: ${error.message}`, { retryable: typeof error.status !== 'number' || error.status >= 500 || error.status === 429, cause: error });
  }
  return new ModelError(error instanceof Error ? error.message : String(error), { cause: error });
}
