/**
 * The fallback for a run whose model keeps failing: from the configured start of the
 * run on, if its earlier starts ended on model failures that may pass (the loop's
 * retryable `error` events), the fallback model (the offline engine) diagnoses it
 * instead, and the run says so in its audit trail and in its diagnosis summary (or its
 * reason, if it fails). A run resuming from a checkpoint keeps its model: the
 * checkpoint's transcript is that model's.
 */
import type { RunOutcome } from '../loop.ts';
import type { Model } from '../model.ts';

export interface ModelChoice {
  model: Model;
  /** Set when the fallback was chosen: what the audit trail and the outcome say about it. */
  fallbackNote?: string;
}

export interface ModelChoiceInput {
  model: Model;
  fallbackModel?: Model;
  fallbackAfterAttempts?: number;
  /** Which start of the run this is (1 for the first). */
  attempt: number;
  /** How many earlier starts ended on a retryable model failure (see countModelFailures). */
  modelFailures: number;
  /** The run goes on from a parked checkpoint. */
  resuming: boolean;
}

export function chooseModel(input: ModelChoiceInput): ModelChoice {
  const { fallbackModel, fallbackAfterAttempts, modelFailures } = input;
  if (!fallbackModel || fallbackAfterAttempts === undefined || input.resuming) return { model: input.model };
  if (input.attempt < fallbackAfterAttempts || modelFailures === 0) return { model: input.model };
  const engine = fallbackModel.name === 'offline' ? 'the offline engine' : `model ${fallbackModel.name}`;
  return {
    model: fallbackModel,
    fallbackNote: `model ${input.model.name} failed ${modelFailures} ${modelFailures === 1 ? 'time' : 'times'}; diagnosed by ${engine}`,
  };
}

/** Retryable model failures in a run's audit events: the `error` events the loop marks `retryable`. */
export function countModelFailures(events: readonly { type: string; payload: unknown }[]): number {
  return events.filter((event) => event.type === 'error' && isRetryablePayload(event.payload)).length;
}

function isRetryablePayload(payload: unknown): boolean {
  return typeof payload === 'object' && payload !== null && (payload as { retryable?: unknown }).retryable === true;
}

/** The outcome, saying who diagnosed it: in the summary of a diagnosis, else in the reason. */
export function noteFallback(outcome: RunOutcome, note: string): RunOutcome {
  if (outcome.diagnosis)
    return {
      ...outcome,
      diagnosis: { ...outcome.diagnosis, summary: `${outcome.diagnosis.summary} (${capitalize(note)}.)` },
    };
  if (outcome.status === 'failed') return { ...outcome, reason: `${outcome.reason ?? 'the run failed'} (${note})` };
  return outcome;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
