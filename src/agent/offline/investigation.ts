/**
 * What the offline engine has learned so far, rebuilt from the transcript on every turn:
 * each tool call it made with the structured result it got back. The engine reads the
 * cluster only through these results.
 */
import { canonicalJson } from '../../audit/canonical-json.ts';
import type { ToolCall, TranscriptEntry } from '../model.ts';
import type { ToolResult } from '../../tools/tool.ts';
import { defaultTools } from '../../tools/registry.ts';

export interface Observation {
  call: ToolCall;
  result: ToolResult;
}

export interface Investigation {
  /** Every observation, in the order the calls were made. */
  observations: Observation[];
  /** Calls already made (name + canonical arguments). */
  asked: Set<string>;
  /** The result of a call made with exactly these arguments, if it was made. */
  resultOf(name: string, input: Record<string, unknown>): ToolResult | undefined;
  /** Structured data of every successful call to `name`, optionally filtered by its arguments. */
  dataOf<T>(name: string, match?: (input: Record<string, unknown>) => boolean): T[];
  /** Write calls already proposed or decided. */
  writesAsked: string[];
}

/** The tools that change the cluster, known by their risk class rather than by a list of names. */
const WRITE_TOOL_NAMES = new Set(
  defaultTools()
    .filter((tool) => tool.risk !== 'read')
    .map((tool) => tool.name),
);

export function callKey(name: string, input: unknown): string {
  return `${name} ${canonicalJson(stripUndefined(input ?? {}))}`;
}

export function readInvestigation(transcript: readonly TranscriptEntry[]): Investigation {
  const observations: Observation[] = [];
  for (const entry of transcript) {
    if (entry.role === 'tool-results') observations.push(...entry.results);
  }
  const byKey = new Map(
    observations.map((observation) => [callKey(observation.call.name, observation.call.input), observation.result]),
  );
  const asked = new Set(byKey.keys());
  return {
    observations,
    asked,
    resultOf: (name, input) => byKey.get(callKey(name, input)),
    dataOf<T>(name: string, match?: (input: Record<string, unknown>) => boolean): T[] {
      return observations
        .filter(
          (observation) =>
            observation.call.name === name && observation.result.ok && observation.result.data !== undefined,
        )
        .filter((observation) => !match || match((observation.call.input ?? {}) as Record<string, unknown>))
        .map((observation) => (observation.result as { data: T }).data);
    },
    writesAsked: observations
      .filter((observation) => WRITE_TOOL_NAMES.has(observation.call.name))
      .map((observation) => callKey(observation.call.name, observation.call.input)),
  };
}

function stripUndefined(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).filter(([, member]) => member !== undefined),
  );
}
