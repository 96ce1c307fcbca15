/**
 * A parked run's checkpoint: everything the loop needs to go on from the turn that held
 * an action for a person's approval, stored with the run while nobody works on it. The
 * turn's other calls were answered before it parked; the held ones are answered when the
 * run resumes with their decisions. `activeMs` is the time the run spent working, so the
 * deadline never counts the time spent waiting for a person.
 *
 * A run parks once the model has submitted its diagnosis and its held actions are put to
 * a person (`diagnosed`): `turn` is then the submitting turn, and resuming runs the decided
 * actions and ends the run with that diagnosis. A checkpoint without `diagnosed` was taken
 * mid-investigation (as earlier versions parked): resuming answers the turn's held calls
 * and the investigation goes on.
 */
import { z } from 'zod';
import type { ToolResult } from '../tools/tool.ts';
import type { DiagnosisInput } from './diagnosis.ts';
import type { ToolCall, TokenUsage, TranscriptEntry } from './model.ts';

export interface ToolCallRecord {
  step: number;
  id: string;
  tool: string;
  input: unknown;
  risk: string;
  ok: boolean;
  error?: string;
  /** For a write: what became of it (proposed, executed, rejected...). */
  action?: string;
  bytes: number;
}

export interface RunCheckpoint {
  version: 1;
  /** The step whose turn is waiting. */
  step: number;
  /** Whether the model had to submit on that step, and why. */
  forced: boolean;
  forcedBy?: string;
  /** A note sent with the turn's results. */
  note?: string;
  usage: TokenUsage;
  activeMs: number;
  /** The transcript up to and including the waiting turn's model answer. */
  transcript: TranscriptEntry[];
  toolCalls: ToolCallRecord[];
  turn: {
    /** Every call of the turn with its result, in order; a held call's result is a placeholder until it resumes. */
    results: { call: ToolCall; result: ToolResult }[];
    /** The actions held in this turn, by id. */
    heldActionIds: string[];
    /** submit_diagnosis calls made in the same turn, handled once the held calls are answered. */
    submissions: ToolCall[];
  };
  /** Set when the run parked after its diagnosis: the diagnosis, and the call that made each held action. */
  diagnosed?: {
    diagnosis: DiagnosisInput;
    held: { actionId: string; call: ToolCall }[];
  };
}

const toolCallSchema = z.object({ id: z.string(), name: z.string(), input: z.unknown() });
const usageSchema = z.object({ input: z.number(), output: z.number(), cacheRead: z.number(), cacheWrite: z.number() });

const checkpointSchema = z.object({
  version: z.literal(1),
  step: z.number().int().positive(),
  forced: z.boolean(),
  forcedBy: z.string().optional(),
  note: z.string().optional(),
  usage: usageSchema,
  activeMs: z.number().nonnegative(),
  transcript: z.array(z.looseObject({ role: z.enum(['user', 'assistant', 'tool-results']) })).min(1),
  toolCalls: z.array(z.looseObject({ id: z.string(), tool: z.string() })),
  turn: z.object({
    results: z.array(
      z.object({ call: toolCallSchema, result: z.looseObject({ ok: z.boolean(), content: z.string() }) }),
    ),
    heldActionIds: z.array(z.string()).min(1),
    submissions: z.array(toolCallSchema),
  }),
  diagnosed: z
    .object({
      diagnosis: z.looseObject({
        category: z.string(),
        summary: z.string(),
        evidence: z.array(z.string()),
        confidence: z.string(),
      }),
      held: z.array(z.object({ actionId: z.string(), call: toolCallSchema })).min(1),
    })
    .optional(),
});

export class CheckpointError extends Error {
  override name = 'CheckpointError';
}

export function serializeCheckpoint(checkpoint: RunCheckpoint): string {
  return JSON.stringify(checkpoint);
}

/** The stored checkpoint, checked; a CheckpointError says what is wrong with it. */
export function parseCheckpoint(text: string): RunCheckpoint {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CheckpointError(`the stored checkpoint is not JSON: ${(error as Error).message}`);
  }
  const parsed = checkpointSchema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .slice(0, 3)
      .map((issue) => `${issue.path.join('.') || '(checkpoint)'}: ${issue.message}`);
    throw new CheckpointError(`the stored checkpoint is invalid: ${problems.join('; ')}`);
  }
  return parsed.data as unknown as RunCheckpoint;
}
