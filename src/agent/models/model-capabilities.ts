/**
 * What an OpenAI-compatible model can do, by family: a table of rows, each with the
 * pattern that recognises the family's model names, what it supports, where that
 * knowledge comes from, and names that must and must not match (tested per row). The
 * OpenAI adapter asks `capabilitiesOf` and never branches on model names itself.
 *
 * When several rows match a name, the one with the highest `priority` wins; each row says
 * why it outranks the rows it overlaps. The `default` row matches every name, last.
 */

/** How the adapter may ask for a JSON answer: a schema, any JSON object, or only by instruction. */
export type ResponseFormatSupport = 'json_schema' | 'json_object' | 'none';

export interface ModelCapabilities {
  /** Native tool calling (`tools`, `tool_calls`); without it the structured-output fallback drives the loop. */
  toolCalling: boolean;
  /** Several calls in one turn; false: the request says `parallel_tool_calls: false`. */
  parallelToolCalls: boolean;
  /** `tool_choice: {type: 'function', function: {name}}` is honoured. */
  namedToolChoice: boolean;
  /** `tool_choice: 'required'` is honoured. */
  requiredToolChoice: boolean;
  responseFormat: ResponseFormatSupport;
  /** Which request field caps the answer's length: OpenAI's own models take `max_completion_tokens`. */
  maxTokensField: 'max_completion_tokens' | 'max_tokens';
}

export interface CapabilityRow {
  id: string;
  /** Tested against the whole model name as configured (`llama3.1:8b`, `meta-llama/Llama-3.1-8B-Instruct`, `gpt-4o`). */
  pattern: RegExp;
  /** Higher wins when several rows match; `priorityReason` says why. */
  priority: number;
  priorityReason: string;
  capabilities: ModelCapabilities;
  /** Where the knowledge comes from. */
  source: string;
  examples: { match: string[]; noMatch: string[] };
}

const OPENAI: ModelCapabilities = {
  toolCalling: true,
  parallelToolCalls: true,
  namedToolChoice: true,
  requiredToolChoice: true,
  responseFormat: 'json_schema',
  maxTokensField: 'max_completion_tokens',
};
/** Ollama's OpenAI compatibility takes `tools` and `response_format`, but not `tool_choice`: a forced choice is ignored there. */
const OLLAMA_TOOLS: ModelCapabilities = {
  toolCalling: true,
  parallelToolCalls: true,
  namedToolChoice: false,
  requiredToolChoice: false,
  responseFormat: 'json_schema',
  maxTokensField: 'max_tokens',
};
/** vLLM: named function calling by guided decoding, `required` since 0.8.3, `json_schema` by structured outputs. */
const VLLM_TOOLS: ModelCapabilities = {
  toolCalling: true,
  parallelToolCalls: true,
  namedToolChoice: true,
  requiredToolChoice: true,
  responseFormat: 'json_schema',
  maxTokensField: 'max_tokens',
};
const NO_TOOLS: ModelCapabilities = {
  toolCalling: false,
  parallelToolCalls: false,
  namedToolChoice: false,
  requiredToolChoice: false,
  responseFormat: 'json_schema',
  maxTokensField: 'max_tokens',
};

/** A name with an optional `provider/` prefix (LiteLLM, OpenRouter): `openai/gpt-4o`. */
const PREFIX = String.raw`^(?:[\w.-]+/)?`;

export const CAPABILITY_ROWS: readonly CapabilityRow[] = [
  {
    id: 'openai-reasoning',
    pattern: new RegExp(`${PREFIX}o[1-9](?:-|$)`, 'i'),
    priority: 20,
    priorityReason: 'a vendor family named exactly; no open model is named o1/o3/o4',
    capabilities: OPENAI,
    source:
      'OpenAI API reference: o-series models take tools, tool_choice and json_schema, and reject max_tokens for max_completion_tokens',
    examples: {
      match: ['o1', 'o3-mini', 'o4-mini-2025-04-16', 'openai/o3'],
      noMatch: ['gpt-4o', 'llama3.1:8b', 'olmo2:7b'],
    },
  },
  {
    id: 'openai-gpt',
    pattern: new RegExp(`${PREFIX}(?:chatgpt-4o|gpt-4o|gpt-4\\.1|gpt-5)`, 'i'),
    priority: 20,
    priorityReason: 'a vendor family named exactly; open models do not carry these names',
    capabilities: OPENAI,
    source:
      'OpenAI API reference (Chat Completions): tools with parallel calls, named and required tool_choice, json_schema response format, max_completion_tokens',
    examples: {
      match: ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1-nano', 'gpt-5', 'gpt-5-mini', 'openai/gpt-4.1'],
      noMatch: ['gpt-oss:20b', 'gpt-3.5-turbo', 'o3-mini'],
    },
  },
  {
    id: 'llama3-ollama',
    pattern: /^llama3\.[123](?::[\w.-]+)?$/i,
    priority: 10,
    priorityReason: "Ollama's `name:tag` form; the Hugging Face form is llama3-vllm's, the two never overlap",
    capabilities: { ...OLLAMA_TOOLS, parallelToolCalls: false },
    source:
      "Ollama docs (OpenAI compatibility: tools, no tool_choice); Llama 3.1 model card and vLLM's llama3_json parser: one tool call per turn",
    examples: {
      match: ['llama3.1', 'llama3.1:8b', 'llama3.2:3b', 'llama3.3:70b-instruct-q4_K_M'],
      noMatch: ['meta-llama/Llama-3.1-8B-Instruct', 'llama3:8b', 'llama2'],
    },
  },
  {
    id: 'llama3-vllm',
    pattern: new RegExp(`${PREFIX}(?:meta-)?llama-3\\.[123]-`, 'i'),
    priority: 10,
    priorityReason: "the Hugging Face repository form that vLLM serves; disjoint from llama3-ollama's",
    capabilities: { ...VLLM_TOOLS, parallelToolCalls: false },
    source:
      'vLLM docs, Tool Calling: named and required tool_choice; the llama3_json parser does not support parallel calls',
    examples: {
      match: [
        'meta-llama/Llama-3.1-8B-Instruct',
        'meta-llama/Llama-3.3-70B-Instruct',
        'meta-llama/Meta-Llama-3.1-70B-Instruct',
      ],
      noMatch: ['llama3.1:8b', 'meta-llama/Llama-2-7b-chat-hf'],
    },
  },
  {
    id: 'qwen-ollama',
    pattern: /^qwen(?:2\.5|3)(?:-coder)?(?::[\w.-]+)?$/i,
    priority: 10,
    priorityReason: "Ollama's `name:tag` form; disjoint from qwen-vllm's",
    capabilities: OLLAMA_TOOLS,
    source:
      'Ollama docs (OpenAI compatibility: tools, no tool_choice); Qwen 2.5/3 (Hermes-style tool template) call several tools per turn',
    examples: {
      match: ['qwen2.5:7b', 'qwen3:8b', 'qwen2.5-coder:14b', 'qwen3'],
      noMatch: ['Qwen/Qwen2.5-7B-Instruct', 'qwen2:7b'],
    },
  },
  {
    id: 'qwen-vllm',
    pattern: /^qwen\/qwen(?:2\.5|3)-/i,
    priority: 10,
    priorityReason: "the Hugging Face repository form that vLLM serves; disjoint from qwen-ollama's",
    capabilities: VLLM_TOOLS,
    source: 'vLLM docs, Tool Calling: the hermes parser for Qwen 2.5/3, parallel calls, named and required tool_choice',
    examples: {
      match: ['Qwen/Qwen2.5-7B-Instruct', 'Qwen/Qwen3-8B', 'Qwen/Qwen2.5-Coder-32B-Instruct'],
      noMatch: ['qwen2.5:7b', 'Qwen/Qwen2-7B-Instruct'],
    },
  },
  {
    id: 'mistral',
    pattern: new RegExp(`${PREFIX}(?:mistral|mixtral|ministral)`, 'i'),
    priority: 10,
    priorityReason: 'no other row names Mistral models',
    capabilities: {
      toolCalling: true,
      parallelToolCalls: true,
      namedToolChoice: false,
      requiredToolChoice: true,
      responseFormat: 'json_object',
      maxTokensField: 'max_tokens',
    },
    source:
      "Mistral function-calling docs (tool_choice any/auto/none, parallel calls; OpenAI-compatible servers map 'required' to any); Ollama ignores tool_choice, so only 'required' is claimed",
    examples: {
      match: [
        'mistral:7b',
        'mistral-nemo',
        'mixtral:8x22b',
        'mistralai/Mistral-7B-Instruct-v0.3',
        'mistral-small-latest',
      ],
      noMatch: ['llama3.1:8b', 'qwen3:8b'],
    },
  },
  {
    id: 'deepseek-chat',
    pattern: new RegExp(`${PREFIX}deepseek-(?:chat|v3)`, 'i'),
    priority: 30,
    priorityReason:
      'names of distilled DeepSeek models may carry a base family (Qwen, Llama); the DeepSeek name decides',
    capabilities: {
      toolCalling: true,
      parallelToolCalls: true,
      namedToolChoice: true,
      requiredToolChoice: true,
      responseFormat: 'json_object',
      maxTokensField: 'max_tokens',
    },
    source:
      'DeepSeek API docs: function calling with tool_choice none/auto/required/named, JSON output as json_object only',
    examples: {
      match: ['deepseek-chat', 'deepseek-v3', 'deepseek-ai/DeepSeek-V3-0324'],
      noMatch: ['deepseek-r1:8b', 'deepseek-reasoner'],
    },
  },
  {
    id: 'deepseek-r1',
    pattern: new RegExp(`${PREFIX}deepseek-(?:r1|reasoner)`, 'i'),
    priority: 30,
    priorityReason: 'names of distilled R1 models carry a base family (Qwen, Llama); the R1 chat format decides',
    capabilities: { ...NO_TOOLS, responseFormat: 'none' },
    source:
      'DeepSeek API docs (deepseek-reasoner: no function calling, no JSON output) and the Ollama library (deepseek-r1 tags without the tools label); answers start with a <think> block',
    examples: {
      match: ['deepseek-r1:8b', 'deepseek-reasoner', 'deepseek-ai/DeepSeek-R1-Distill-Qwen-7B'],
      noMatch: ['deepseek-chat', 'qwen3:8b'],
    },
  },
  {
    id: 'gemma',
    pattern: new RegExp(`${PREFIX}gemma`, 'i'),
    priority: 10,
    priorityReason: 'no other row names Gemma models',
    capabilities: NO_TOOLS,
    source:
      'Gemma chat templates have no tool role (Ollama library: no tools label); Ollama and vLLM constrain output to a json_schema for any model',
    examples: { match: ['gemma2:9b', 'gemma3:12b', 'google/gemma-3-27b-it'], noMatch: ['llama3.1:8b', 'mistral:7b'] },
  },
  {
    id: 'phi',
    pattern: new RegExp(`${PREFIX}phi-?[34](?!-mini)`, 'i'),
    priority: 10,
    priorityReason: 'no other row names Phi models',
    capabilities: NO_TOOLS,
    source:
      'Phi-3 and Phi-4 chat templates have no tool role (Ollama library: no tools label); phi4-mini has one and falls to the default row',
    examples: { match: ['phi3:14b', 'phi4', 'microsoft/Phi-4', 'phi3.5'], noMatch: ['phi4-mini', 'llama3.1:8b'] },
  },
  {
    id: 'default',
    pattern: /^/,
    priority: 0,
    priorityReason: 'matches every name; any specific row outranks it',
    capabilities: {
      toolCalling: true,
      parallelToolCalls: true,
      namedToolChoice: false,
      requiredToolChoice: true,
      responseFormat: 'json_object',
      maxTokensField: 'max_tokens',
    },
    source:
      "conservative: tools and 'required' are what OpenAI-compatible servers (vLLM, LiteLLM, LM Studio) share; calls that come in parallel are all run, so parallel_tool_calls is left to the server",
    examples: { match: ['some-gateway-model', 'llama3:8b', 'phi4-mini'], noMatch: [] },
  },
];

/** The row for a model name: the highest-priority row whose pattern matches (the default row at worst). */
export function capabilityRowOf(modelName: string, rows: readonly CapabilityRow[] = CAPABILITY_ROWS): CapabilityRow {
  const matching = rows.filter((row) => row.pattern.test(modelName));
  const best = matching.reduce<CapabilityRow | undefined>(
    (chosen, row) => (chosen === undefined || row.priority > chosen.priority ? row : chosen),
    undefined,
  );
  if (!best) throw new Error(`no capability row matches "${modelName}": the table needs a default row`);
  return best;
}

/** What the model can do: its family's row, with `overrides` (from configuration) on top. */
export function capabilitiesOf(modelName: string, overrides: Partial<ModelCapabilities> = {}): ModelCapabilities {
  return { ...capabilityRowOf(modelName).capabilities, ...overrides };
}
