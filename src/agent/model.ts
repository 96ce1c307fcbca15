/**
 * The model seam: the loop talks to Claude and to the offline engine through the same
 * interface. A run's history is a transcript in domain terms; the Anthropic adapter turns
 * it into Messages API messages (the model reads each result's `content`), the offline
 * engine reads each result's structured `data`.
 */
import type { ToolResult, ToolSpec } from '../tools/tool.ts';
import type { Trigger } from './trigger.ts';

export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
}

export type TranscriptEntry =
  | { role: 'user'; text: string }
  /** `blocks`: the turn's content exactly as the API gave it, sent back verbatim so a paused turn can continue. */
  | { role: 'assistant'; text: string; calls: ToolCall[]; blocks?: unknown[] }
  /** `note`: said to the model after the results (a turn cut short, say). */
  | { role: 'tool-results'; results: { call: ToolCall; result: ToolResult }[]; note?: string };

export interface TokenUsage {
  input: number;
  output: number;
  cacheRead: number;
  /** Every token written to the prompt cache, whatever its lifetime. */
  cacheWrite: number;
  /** Of `cacheWrite`, the tokens written to the 1-hour cache (billed higher); absent when none. */
  cacheWrite1h?: number;
}

export const ZERO_USAGE: TokenUsage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

export function addUsage(left: TokenUsage, right: TokenUsage): TokenUsage {
  const cacheWrite1h = (left.cacheWrite1h ?? 0) + (right.cacheWrite1h ?? 0);
  return {
    input: left.input + right.input,
    output: left.output + right.output,
    cacheRead: left.cacheRead + right.cacheRead,
    cacheWrite: left.cacheWrite + right.cacheWrite,
    ...(cacheWrite1h > 0 ? { cacheWrite1h } : {}),
  };
}

export type ToolChoice = { type: 'auto' } | { type: 'tool'; name: string };

export interface ModelRequest {
  system: string;
  /** The trigger as data; Claude reads it as the first message of the transcript. */
  trigger: Trigger;
  transcript: readonly TranscriptEntry[];
  tools: readonly ToolSpec[];
  toolChoice: ToolChoice;
  signal: AbortSignal;
  /** Allow a longer answer than usual: the last one was cut at the output limit. */
  longerAnswer?: boolean;
}

export interface ModelTurn {
  text: string;
  /** Complete tool calls only: a call cut off by an output limit is in `incompleteCalls`. */
  calls: ToolCall[];
  /**
   * Why the turn ended, as the Messages API says it (`StopReason` of `@anthropic-ai/sdk`:
   * end_turn, tool_use, stop_sequence, max_tokens, pause_turn, refusal,
   * model_context_window_exceeded); stop-reasons.ts says what the loop does with each.
   */
  stopReason: string;
  usage: TokenUsage;
  /** Tool calls the model had not finished writing when the turn was cut (max_tokens, context window). */
  incompleteCalls?: ToolCall[];
  /** Why the model refused (`refusal`): its explanation or policy category, when the API gives one. */
  refusal?: string;
  /** The turn's content as the API gave it, for a paused turn (`pause_turn`) to be sent back as is. */
  blocks?: unknown[];
}

export interface Model {
  /** The name metrics and audit events carry (`offline`, or the Claude model name). */
  readonly name: string;
  createTurn(request: ModelRequest): Promise<ModelTurn>;
}

/**
 * A model failure the loop ends the run with: the message says what went wrong.
 * `retryable`: the same request may succeed later (rate limit, overload, server error,
 * network); `retryAfterMs`: how long the API asked the caller to wait, when it said.
 */
export class ModelError extends Error {
  override name = 'ModelError';
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  constructor(message: string, options: { retryable?: boolean; retryAfterMs?: number; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.retryable = options.retryable ?? false;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** First wait before a run whose model failed is tried again; it doubles with each attempt. */
export const RUN_RETRY_BASE_MS = 30_000;
/** The longest wait between two attempts of a run, whatever the attempt or the API asked. */
export const RUN_RETRY_MAX_MS = 15 * 60_000;

/**
 * How long to wait before the next attempt of a run that a retryable model error ended:
 * what the API asked (`retry-after`) when it said, else 30 s doubled per attempt made,
 * capped at 15 minutes either way.
 */
export function runRetryDelayMs(error: ModelError, attempt: number): number {
  if (error.retryAfterMs !== undefined && error.retryAfterMs >= 0)
    return Math.min(Math.ceil(error.retryAfterMs), RUN_RETRY_MAX_MS);
  const exponent = Math.max(0, Math.floor(attempt) - 1);
  return Math.min(RUN_RETRY_BASE_MS * 2 ** exponent, RUN_RETRY_MAX_MS);
}
