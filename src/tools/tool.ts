/**
 * The tool contract shared by the registry, the gate and the agent loop.
 *
 * A tool is one object. The model sees only `spec()` (name, description, JSON schema);
 * `risk` and `run` never leave the process. `run` never throws for a failure the model
 * can act on (not found, forbidden, timeout, bad arguments): it returns an error result.
 */
import type { z } from 'zod';
import type { Cluster } from '../cluster/cluster.ts';

/** read: observe only. write: changes the cluster reversibly. destructive: deletes or cannot be undone. */
export type RiskClass = 'read' | 'write' | 'destructive';

/** Why a tool call failed, in terms the model and the metrics can use. */
export type ToolErrorKind =
  | 'invalid-input'
  | 'not-found'
  | 'forbidden'
  | 'unavailable'
  | 'timeout'
  | 'conflict'
  | 'namespace-not-allowed'
  | 'unknown-tool'
  | 'internal';

export interface ToolSuccess<Data = unknown> {
  ok: true;
  /** What the model reads: compact text, within the context's output budget. */
  content: string;
  /** The same facts as structured data, for the offline engine and the audit log. */
  data?: Data;
  /** True when the content was cut to fit the budget (the content says how to narrow). */
  truncated: boolean;
  /** The cluster's clock when the result was read (ISO 8601); set by the registry. */
  observedAt?: string;
  /** The action the gate made of this call (a write), when it made one. */
  actionId?: string;
}

export interface ToolFailure {
  ok: false;
  error: ToolErrorKind;
  /** The action the gate made of this call (a write), when it made one. */
  actionId?: string;
  /** What the model reads: what went wrong and what to try instead. */
  content: string;
}

export type ToolResult<Data = unknown> = ToolSuccess<Data> | ToolFailure;

/** Everything a tool may use. One AbortSignal reaches every cluster call. */
export interface ToolContext {
  cluster: Cluster;
  signal: AbortSignal;
  /** Namespaces the run may touch; `undefined` means every namespace. */
  allowedNamespaces?: readonly string[];
  /** Upper bound, in bytes, of `content`. */
  outputBudgetBytes: number;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyZodObject = z.ZodObject<any>;

/**
 * `Data` is what a successful call's `data` holds and `Name` the literal name, so the
 * registry can derive a name-to-data map (tool-data.ts) that the offline engine reads with.
 */
export interface Tool<Input extends AnyZodObject = AnyZodObject, Data = unknown, Name extends string = string> {
  name: Name;
  /** What it returns and when to use it: the only text the model reads about the tool. */
  description: string;
  /** Every field `.describe()`d. */
  input: Input;
  risk: RiskClass;
  run(input: z.infer<Input>, context: ToolContext): Promise<ToolResult<Data>>;
}

/** The shape the Anthropic Messages API takes in `tools`. */
export interface ToolSpec {
  name: string;
  description: string;
  input_schema: { type: 'object'; properties?: Record<string, unknown>; required?: string[]; [key: string]: unknown };
}
