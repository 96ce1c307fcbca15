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
  | { role: 'assistant'; text: string; calls: ToolCall[] }
  | { role: 'tool-results'; results: { call: ToolCall; result: ToolResult }[]; note?: string };

export interface TokenUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export const ZERO_USAGE: TokenUsage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

export function addUsage(left: TokenUsage, right: TokenUsage): TokenUsage {
  return {
    input: left.input + right.input,
    output: left.output + right.output,
    cacheRead: left.cacheRead + right.cacheRead,
    cacheWrite: left.cacheWrite + right.cacheWrite,
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
}

export interface ModelTurn {
  text: string;
  calls: ToolCall[];
  stopReason: string;
  usage: TokenUsage;
}

export interface Model {
  /** The name metrics and audit events carry (`offline`, or the Claude model name). */
  readonly name: string;
  createTurn(request: ModelRequest): Promise<ModelTurn>;
}

/** A model failure the loop ends the run with: the message says what went wrong. */
export class ModelError extends Error {
  override name = 'ModelError';
  readonly retryable: boolean;
  constructor(message: string, options: { retryable?: boolean; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.retryable = options.retryable ?? false;
  }
}
