/**
 * The tool contract shared by the registry, the gate and the agent loop.
 *
 * A tool is one object. The model sees only `spec()` (name, description, JSON schema);
 * `risk` and `run` never leave the process. `run` never throws for a failure the model
 * can act on (not found, forbidden, timeout, bad arguments): it returns an error result.
 * The types carry the risk ladder: a read tool is handed a cluster that can only read, and
 * a write tool runs only with an `ApprovedAction`, which only the gate can make.
 */
import type { z } from 'zod';
import type { Cluster, ReadCluster } from '../cluster/cluster.ts';
import type { ApprovedAction } from '../gate/gate.ts';

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

/** Everything a read tool may use: reads only. One AbortSignal reaches every cluster call. */
export interface ReadToolContext {
  cluster: ReadCluster;
  signal: AbortSignal;
  /** Namespaces the run may touch; `undefined` means every namespace. */
  allowedNamespaces?: readonly string[];
  /** Upper bound, in bytes, of `content`. */
  outputBudgetBytes: number;
  /**
   * Within one run: blocks of text a tool already returned (a container's spec, keyed by
   * `shownKey`) and the call that returned them, so a later call says "as above" rather
   * than repeat them. Absent where calls share no transcript (MCP): everything is printed.
   */
  shown?: Map<string, string>;
}

/** The key under which a block of lines is remembered in `ReadToolContext.shown`. */
export function shownKey(kind: string, lines: readonly string[]): string {
  return `${kind}\n${lines.join('\n')}`;
}

/** Everything a write tool may use: the whole cluster, writes included. The loop holds one of these. */
export interface ToolContext extends ReadToolContext {
  cluster: Cluster;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyZodObject = z.ZodObject<any>;

interface ToolDefinition<Input extends AnyZodObject, Name extends string> {
  name: Name;
  /** What it returns and when to use it: the only text the model reads about the tool. */
  description: string;
  /** Every field `.describe()`d. */
  input: Input;
}

/** A tool that only observes: it is handed a read-only cluster and runs whenever the gate lets the call through. */
export interface ReadTool<
  Input extends AnyZodObject = AnyZodObject,
  Data = unknown,
  Name extends string = string,
> extends ToolDefinition<Input, Name> {
  risk: 'read';
  /** `input` is what the gate validated. */
  run(input: z.infer<Input>, context: ReadToolContext): Promise<ToolResult<Data>>;
}

/**
 * A tool that changes the cluster (risk `write` or `destructive`). `run` takes an
 * `ApprovedAction`, which only the gate makes from a held call a person approved; it
 * performs the server-side dry run first and stops if it fails. `dryRun` sends the same
 * request with `dryRun=All` (validated and admitted, never persisted), to show a person
 * what an approval would do: it takes the validated input alone.
 */
export interface WriteTool<
  Input extends AnyZodObject = AnyZodObject,
  Data = unknown,
  Name extends string = string,
> extends ToolDefinition<Input, Name> {
  risk: Exclude<RiskClass, 'read'>;
  run(approved: ApprovedAction<z.infer<Input>>, context: ToolContext): Promise<ToolResult<Data>>;
  dryRun(input: z.infer<Input>, context: ToolContext): Promise<ToolResult<Data>>;
}

/**
 * `Data` is what a successful call's `data` holds and `Name` the literal name, so the
 * registry can derive a name-to-data map (tool-data.ts) that the offline engine reads with.
 */
export type Tool<Input extends AnyZodObject = AnyZodObject, Data = unknown, Name extends string = string> =
  ReadTool<Input, Data, Name> | WriteTool<Input, Data, Name>;

export function isWriteTool(tool: Tool): tool is WriteTool {
  return tool.risk !== 'read';
}

/** The shape the Anthropic Messages API takes in `tools`. */
export interface ToolSpec {
  name: string;
  description: string;
  input_schema: { type: 'object'; properties?: Record<string, unknown>; required?: string[]; [key: string]: unknown };
}
