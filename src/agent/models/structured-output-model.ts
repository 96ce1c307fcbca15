/**
 * The loop's tool calling for a model without it: the model answers each turn with one
 * JSON object, `{"calls": [{"name", "input"}]}` or `{"diagnosis": {...}}`, asked for with
 * a `json_schema` response format when the family takes one, else `json_object`, else by
 * instruction alone (then read tolerantly: `<think>` blocks and code fences dropped, the
 * first JSON object taken). The step comes back as an ordinary ModelTurn whose calls
 * (ids made here) go through the tool registry's validation and the gate exactly as native
 * calls do; a diagnosis becomes a `submit_diagnosis` call.
 *
 * It never throws for what the model wrote: an answer that is not such a JSON object is a
 * turn with no calls whose text says so, and the next request reminds the model of the
 * format (the loop answers a turn without calls with a user message; the reminder joins it).
 */
import { randomUUID } from 'node:crypto';
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { ToolResult, ToolSpec } from '../../tools/tool.ts';
import type { ModelCapabilities } from './model-capabilities.ts';
import type { Model, ModelRequest, ModelTurn, TokenUsage, ToolCall, TranscriptEntry } from '../model.ts';
import { SUBMIT_DIAGNOSIS_TOOL } from '../prompt.ts';
import { describeTrigger } from '../trigger.ts';

/** Sends one Chat Completions request; failures come back as ModelError (the OpenAI adapter maps them). */
export type RequestCompletion = (
  body: ChatCompletionCreateParamsNonStreaming,
  signal: AbortSignal,
) => Promise<ChatCompletion>;

export interface StructuredOutputModelOptions {
  /** The model name requests carry and metrics show. */
  model: string;
  requestCompletion: RequestCompletion;
  capabilities: ModelCapabilities;
  maxTokens?: number;
}

export const DEFAULT_MAX_TOKENS = 4096;
/** A turn asked again after being cut at the output limit may be this many times longer (as with Claude). */
export const LONGER_ANSWER_FACTOR = 4;

/** Starts the text of a turn whose answer was not a JSON step; the next request then reminds the model of the format. */
export const NOT_A_STEP = 'The answer was not one JSON object in the required shape, so nothing ran. It read:';

export const JSON_REMINDER =
  'Your last answer was not one JSON object in the required shape, so nothing ran. Answer with exactly one JSON object and nothing else: {"reason": "...", "calls": [{"name": "<tool>", "input": {...}}]} to call tools, or {"diagnosis": {...}} to finish.';

const FORCED_NOTE = 'You must finish now: answer with {"diagnosis": {...}} and nothing else.';

export function createStructuredOutputModel(options: StructuredOutputModelOptions): Model {
  const maxTokens = options.maxTokens ?? DEFAULT_MAX_TOKENS;
  return {
    name: options.model,
    async createTurn(request: ModelRequest): Promise<ModelTurn> {
      const forced = request.toolChoice.type === 'tool';
      const responseFormat = responseFormatFor(options.capabilities, request.tools, forced);
      const completion = await options.requestCompletion(
        {
          model: options.model,
          messages: toStructuredMessages(request),
          ...tokenLimit(options.capabilities, request.longerAnswer ? maxTokens * LONGER_ANSWER_FACTOR : maxTokens),
          ...(responseFormat ? { response_format: responseFormat } : {}),
        },
        request.signal,
      );
      return toStructuredTurn(completion);
    },
  };
}

/** `max_completion_tokens` or `max_tokens`, as the family takes it. */
export function tokenLimit(
  capabilities: ModelCapabilities,
  tokens: number,
): { max_tokens: number } | { max_completion_tokens: number } {
  return capabilities.maxTokensField === 'max_completion_tokens'
    ? { max_completion_tokens: tokens }
    : { max_tokens: tokens };
}

/** Chat Completions usage in the loop's terms: cached prompt tokens are counted as cache reads, not input. */
export function usageOf(completion: ChatCompletion): TokenUsage {
  const cached = completion.usage?.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    input: Math.max(0, (completion.usage?.prompt_tokens ?? 0) - cached),
    output: completion.usage?.completion_tokens ?? 0,
    cacheRead: cached,
    cacheWrite: 0,
  };
}

function responseFormatFor(
  capabilities: ModelCapabilities,
  tools: readonly ToolSpec[],
  forced: boolean,
): ChatCompletionCreateParamsNonStreaming['response_format'] {
  if (capabilities.responseFormat === 'json_object') return { type: 'json_object' };
  if (capabilities.responseFormat !== 'json_schema') return undefined;
  const diagnosis = tools.find((tool) => tool.name === SUBMIT_DIAGNOSIS_TOOL)?.input_schema ?? { type: 'object' };
  const names = tools.filter((tool) => tool.name !== SUBMIT_DIAGNOSIS_TOOL).map((tool) => tool.name);
  const call = {
    type: 'object',
    properties: { name: { type: 'string', enum: names }, input: { type: 'object' } },
    required: ['name', 'input'],
  };
  const schema = forced
    ? { type: 'object', properties: { reason: { type: 'string' }, diagnosis }, required: ['diagnosis'] }
    : { type: 'object', properties: { reason: { type: 'string' }, calls: { type: 'array', items: call }, diagnosis } };
  return {
    type: 'json_schema',
    json_schema: {
      name: 'next_step',
      description: 'The next step of the investigation: tool calls, or the diagnosis.',
      schema,
      strict: false,
    },
  };
}

/** The system prompt with the answer format and every tool's input schema. */
function structuredSystem(system: string, tools: readonly ToolSpec[]): string {
  const diagnosis = tools.find((tool) => tool.name === SUBMIT_DIAGNOSIS_TOOL);
  const listed = tools
    .filter((tool) => tool.name !== SUBMIT_DIAGNOSIS_TOOL)
    .map((tool) => `- ${tool.name}: ${tool.description}\n  input (JSON schema): ${JSON.stringify(tool.input_schema)}`);
  return `${system}

How you call tools here: every answer of yours is exactly one JSON object and nothing else, in one of two shapes.
- To call tools: {"reason": "one sentence on why", "calls": [{"name": "<tool name>", "input": {...}}]}. Independent calls go in the same answer; their results come back in the next message.
- To finish (this is ${SUBMIT_DIAGNOSIS_TOOL}): {"diagnosis": {...}}, where the diagnosis follows this JSON schema: ${JSON.stringify(diagnosis?.input_schema ?? {})}

Tools:
${listed.join('\n')}`;
}

/**
 * The transcript as plain chat: calls as the JSON the model wrote, results as a user
 * message. Consecutive user texts are joined, as some chat templates (Gemma, Mistral)
 * require the roles to alternate.
 */
export function toStructuredMessages(request: ModelRequest): ChatCompletionMessageParam[] {
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: structuredSystem(request.system, request.tools) },
  ];
  const say = (text: string): void => {
    const last = messages.at(-1);
    if (last?.role === 'user' && typeof last.content === 'string') last.content = `${last.content}\n\n${text}`;
    else messages.push({ role: 'user', content: text });
  };
  if (request.transcript[0]?.role !== 'user') say(describeTrigger(request.trigger));
  let remind = false;
  for (const entry of request.transcript) {
    if (entry.role === 'assistant') {
      messages.push({ role: 'assistant', content: assistantJson(entry) });
      remind = entry.calls.length === 0 && entry.text.startsWith(NOT_A_STEP);
      continue;
    }
    say(entry.role === 'user' ? entry.text : resultsText(entry));
    if (remind) say(JSON_REMINDER);
    remind = false;
  }
  if (remind) say(JSON_REMINDER);
  if (request.toolChoice.type === 'tool') say(FORCED_NOTE);
  return messages;
}

function assistantJson(entry: Extract<TranscriptEntry, { role: 'assistant' }>): string {
  if (entry.calls.length === 0)
    return entry.text.startsWith(NOT_A_STEP) ? entry.text.slice(NOT_A_STEP.length).trim() : entry.text || '(no answer)';
  const diagnosis = entry.calls.find((call) => call.name === SUBMIT_DIAGNOSIS_TOOL);
  const reason = entry.text ? { reason: entry.text } : {};
  if (diagnosis) return JSON.stringify({ ...reason, diagnosis: diagnosis.input });
  return JSON.stringify({ ...reason, calls: entry.calls.map((call) => ({ name: call.name, input: call.input })) });
}

function resultsText(entry: Extract<TranscriptEntry, { role: 'tool-results' }>): string {
  const results = entry.results.map(
    ({ call, result }) => `Result of ${call.name} (call ${call.id})${resultLine(result)}`,
  );
  return [...results, ...(entry.note ? [entry.note] : [])].join('\n\n');
}

function resultLine(result: ToolResult): string {
  return result.ok ? `:\n${result.content}` : ` failed: ERROR (${result.error})\n${result.content}`;
}

/** What the completion says, as a turn: a JSON step's calls, a refusal, or a turn without calls that says what went wrong. */
export function toStructuredTurn(completion: ChatCompletion): ModelTurn {
  const usage = usageOf(completion);
  const choice = completion.choices[0];
  const said = choice?.message.content ?? '';
  if (choice?.finish_reason === 'content_filter' || choice?.message.refusal) {
    return {
      text: said,
      calls: [],
      stopReason: 'refusal',
      usage,
      refusal: choice?.message.refusal || 'the content filter stopped the answer',
    };
  }
  const step = parseStep(said);
  const cut = choice?.finish_reason === 'length';
  if (!step)
    return {
      text: `${NOT_A_STEP} ${said.slice(0, 1000)}`,
      calls: [],
      stopReason: cut ? 'max_tokens' : 'end_turn',
      usage,
    };
  return { text: step.reason, calls: step.calls, stopReason: step.calls.length > 0 ? 'tool_use' : 'end_turn', usage };
}

interface Step {
  reason: string;
  calls: ToolCall[];
}

/** The step an answer holds: its first JSON object with `calls`, `diagnosis`, or one `{name, input}`; undefined when none. */
export function parseStep(text: string): Step | undefined {
  const cleaned = text.replace(/<think>[\s\S]*?<\/think>/gi, '').replace(/```(?:json)?/gi, '');
  for (const candidate of jsonObjectsIn(cleaned)) {
    const step = stepOf(candidate);
    if (step) return step;
  }
  return undefined;
}

function stepOf(value: Record<string, unknown>): Step | undefined {
  const reason = typeof value.reason === 'string' ? value.reason : '';
  if (isObject(value.diagnosis))
    return { reason, calls: [{ id: newCallId(), name: SUBMIT_DIAGNOSIS_TOOL, input: value.diagnosis }] };
  // A bare diagnosis, without its wrapper.
  if (typeof value.category === 'string' && typeof value.summary === 'string')
    return { reason: '', calls: [{ id: newCallId(), name: SUBMIT_DIAGNOSIS_TOOL, input: value }] };
  const single = typeof value.name === 'string' && ('input' in value || 'arguments' in value);
  const listed = Array.isArray(value.calls) ? value.calls : single ? [value] : undefined;
  if (!listed) return undefined;
  const calls = listed.flatMap((call): ToolCall[] => {
    if (!isObject(call) || typeof call.name !== 'string') return [];
    // `arguments` is how OpenAI-trained models often spell it.
    const input = call.input ?? call.arguments ?? {};
    return [
      { id: newCallId(), name: call.name, input: typeof input === 'string' ? (parseObject(input) ?? input) : input },
    ];
  });
  return calls.length > 0 || listed.length === 0 ? { reason, calls } : undefined;
}

/** Every outermost balanced `{...}` in the text that parses as a JSON object, in order (never one nested in another). */
function* jsonObjectsIn(text: string): Generator<Record<string, unknown>> {
  for (let start = text.indexOf('{'); start !== -1; start = text.indexOf('{', start + 1)) {
    const end = matchingBrace(text, start);
    if (end === -1) continue;
    const parsed = parseObject(text.slice(start, end + 1));
    if (!parsed) continue;
    yield parsed;
    start = end;
  }
}

function matchingBrace(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let index = start; index < text.length; index++) {
    const character = text[index];
    if (inString) {
      if (character === '\\') index++;
      else if (character === '"') inString = false;
    } else if (character === '"') inString = true;
    else if (character === '{') depth++;
    else if (character === '}' && --depth === 0) return index;
  }
  return -1;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function newCallId(): string {
  return `call_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
}
