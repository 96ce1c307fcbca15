/**
 * What the loop does with a model turn, by the reason the turn ended (`stop_reason` of
 * the Messages API). One row per reason; the loop applies the directive a row returns.
 *
 * - `end_turn`, `tool_use`, `stop_sequence`: the turn is complete; its calls run.
 * - `max_tokens`: the answer was cut at the output limit. Calls it had not finished are
 *   dropped, the finished ones run, and the model is told to answer shorter. On the
 *   turn that must submit the diagnosis, the turn is asked again once with a longer
 *   answer allowed; cut again, the run fails.
 * - `pause_turn`: the API paused a long turn; the turn goes back as is to continue.
 * - `refusal`: the run fails; a refusal is never a diagnosis.
 * - `model_context_window_exceeded`: the transcript fills the model's context; the
 *   oldest tool results are cut to a short note and the model must submit now. On the
 *   turn that already had to submit, the run fails.
 * - anything else: recorded with the turn, then read as `end_turn`.
 */
import type { ModelTurn, TranscriptEntry } from './model.ts';
import { SUBMIT_DIAGNOSIS_TOOL } from './prompt.ts';

export type TurnDirective =
  /** Run the turn's calls as usual (a note, when given, is said to the model after their results). */
  | { kind: 'proceed'; note?: string }
  /** Ask for the same turn again with a longer answer allowed. */
  | { kind: 'retry-longer' }
  /** Send the paused turn back as is for the model to continue it. */
  | { kind: 'continue-paused' }
  /** Drop the turn's calls, shrink the transcript, and force the diagnosis on the next turn. */
  | { kind: 'submit-now'; note: string; reason: string }
  | { kind: 'fail'; reason: string };

export const CUT_ANSWER_NOTE =
  'Your last answer was cut off at the output limit; tool calls it had not finished were dropped. Answer shorter: fewer calls per turn, smaller arguments, a concise diagnosis.';

export const CONTEXT_FULL_NOTE = `The investigation has filled your context window; the oldest tool results were shortened to a note. Call ${SUBMIT_DIAGNOSIS_TOOL} now with the evidence you have.`;

/**
 * The directive for one turn. `forced`: the model had to submit its diagnosis on this
 * turn; `retriedLonger`: this turn is already the retry with a longer answer allowed.
 */
export function directTurn(turn: ModelTurn, context: { forced: boolean; retriedLonger: boolean }): TurnDirective {
  const submitted = turn.calls.some((call) => call.name === SUBMIT_DIAGNOSIS_TOOL);
  switch (turn.stopReason) {
    case 'refusal':
      return {
        kind: 'fail',
        reason: `the model refused: ${turn.refusal ?? (turn.text.trim() || 'it gave no explanation')}`,
      };
    case 'pause_turn':
      return { kind: 'continue-paused' };
    case 'max_tokens':
      if (!context.forced) return { kind: 'proceed', note: CUT_ANSWER_NOTE };
      if (submitted) return { kind: 'proceed' };
      if (!context.retriedLonger) return { kind: 'retry-longer' };
      return {
        kind: 'fail',
        reason:
          'the model stopped at max_tokens: its answer was cut at the output limit twice on the turn that had to submit the diagnosis',
      };
    case 'model_context_window_exceeded':
      if (submitted) return { kind: 'proceed' };
      if (context.forced)
        return {
          kind: 'fail',
          reason:
            'the model stopped at model_context_window_exceeded: the transcript filled its context window before it submitted a diagnosis',
        };
      return { kind: 'submit-now', note: CONTEXT_FULL_NOTE, reason: 'the transcript filled the model context window' };
    default:
      return { kind: 'proceed' };
  }
}

/** Tool results longer than this are cut when the context window is full. */
const TRIM_ABOVE_CHARS = 200;

/**
 * Frees context: the oldest half of the tool-result entries (at least one) get their
 * results' content replaced by a short note; ids and pairing with their calls stay.
 * Returns how many results were cut.
 */
export function trimOldestToolResults(transcript: TranscriptEntry[]): number {
  const entries = transcript.flatMap((entry, index) => (entry.role === 'tool-results' ? [index] : []));
  const count = Math.max(1, Math.ceil(entries.length / 2));
  let trimmed = 0;
  for (const index of entries.slice(0, count)) {
    const entry = transcript[index];
    if (entry?.role !== 'tool-results') continue;
    const results = entry.results.map(({ call, result }) => {
      if (result.content.length <= TRIM_ABOVE_CHARS) return { call, result };
      trimmed++;
      const note = `[${call.name} returned ${result.content.length} characters here; cut to fit the context window. Rely on what you concluded from it.]`;
      return { call, result: { ...result, content: note } };
    });
    transcript[index] = { ...entry, results };
  }
  return trimmed;
}
