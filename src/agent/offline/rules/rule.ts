/**
 * A diagnosis rule: one row of the engine's decision table. Rules are tried by declared
 * priority, highest first; the first that applies and explains the case decides it. Each
 * row says why it outranks the rows below it, and names public scenarios where it must
 * decide and where it must not (a test runs them).
 */
import type { Category } from '../../diagnosis.ts';
import type { Finding } from '../classify.ts';
import type { CaseView } from './view.ts';

export interface Rule {
  id: string;
  /** The category it concludes; `from-the-facts` when the facts name it (a log's verdict, the missing object's kind). */
  category: Category | 'from-the-facts';
  priority: number;
  /** Why this rule is tried before the ones below it. */
  outranks: string;
  applies(view: CaseView): boolean;
  /** The finding, or undefined when the facts do not bear it out after all (the next rule is tried). */
  explain(view: CaseView): Finding | undefined;
  /**
   * Public scenarios (under mock-cluster/scenarios) diagnosed from their alert, or from
   * their incident text with the suffix `#incident`: this rule decides each of `decides`,
   * and none of `doesNotDecide`.
   */
  examples: { decides: string[]; doesNotDecide: string[] };
}
