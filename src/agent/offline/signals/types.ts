/**
 * The shape of every signal table: rows of knowledge, each saying what it matches, what
 * that means, where the message comes from, and example inputs that must and must not
 * match it. The code that applies a table stays small; the examples are its specification
 * and signals.test.ts holds every row to them.
 */

/** Lines a row must match, and near misses it must not. */
export interface Examples {
  readonly match: readonly string[];
  readonly noMatch: readonly string[];
}

export interface Row {
  /** kebab-case, unique across all tables. */
  readonly id: string;
  readonly pattern: RegExp;
  /** The fact a match tells, in the words an operator would use. */
  readonly means: string;
  /** The upstream project and the message it prints. */
  readonly source: string;
  readonly examples: Examples;
}

export type LogVerdict = 'bad-credentials' | 'dependency-unreachable' | 'oom' | 'app-crash';

export interface LogSignal extends Row {
  readonly verdict: LogVerdict;
  /**
   * Set when this row must win over rows of other verdicts that match the same line
   * (VERDICT_RANK otherwise decides), with the reason.
   */
  readonly outranks?: { readonly verdicts: readonly LogVerdict[]; readonly because: string };
}
