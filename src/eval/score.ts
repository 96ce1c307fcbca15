/**
 * Scores a diagnosis against a scenario's `expect`, exactly as SCENARIOS.md defines it:
 * category and culprit equal, every mustMention pattern matches the summary plus the
 * evidence lines (case-insensitive), and, where a remediation is given, one proposed
 * action names that tool with those arguments (it may carry more, such as a kind).
 */
import { isDeepStrictEqual } from 'node:util';
import { formatCulprit, type Diagnosis } from '../agent/diagnosis.ts';

export interface Expectation {
  category: string;
  culprit: string;
  mustMention?: string[];
  remediation?: { tool: string; args: Record<string, unknown> };
}

export interface Score {
  correct: boolean;
  categoryCorrect: boolean;
  culpritCorrect: boolean;
  missingMentions: string[];
  remediationCorrect: boolean | undefined;
}

export function scoreDiagnosis(diagnosis: Diagnosis | undefined, expect: Expectation): Score {
  if (!diagnosis) {
    return { correct: false, categoryCorrect: false, culpritCorrect: false, missingMentions: expect.mustMention ?? [], remediationCorrect: expect.remediation ? false : undefined };
  }
  const text = diagnosisText(diagnosis);
  const missingMentions = (expect.mustMention ?? []).filter((pattern) => !new RegExp(pattern, 'i').test(text));
  const categoryCorrect = diagnosis.category === expect.category;
  const culpritCorrect = diagnosis.culprit !== undefined && formatCulprit(diagnosis.culprit) === expect.culprit;
  const remediationCorrect = expect.remediation
    ? diagnosis.actions.some((action) => action.tool === expect.remediation?.tool && hasArguments(action.args, expect.remediation.args))
    : undefined;
  return {
    correct: categoryCorrect && culpritCorrect && missingMentions.length === 0 && remediationCorrect !== false,
    categoryCorrect,
    culpritCorrect,
    missingMentions,
    remediationCorrect,
  };
}

/** The text mustMention patterns are matched against: the summary plus every evidence line. */
export function diagnosisText(diagnosis: Pick<Diagnosis, 'summary' | 'evidence'>): string {
  return [diagnosis.summary, ...diagnosis.evidence].join('\n');
}

/**
 * Whether an action carries every argument the expectation names, each equal: an argument the
 * expectation leaves out (a StatefulSet's `kind`) does not make the action another one.
 */
export function hasArguments(args: Record<string, unknown>, expected: Record<string, unknown>): boolean {
  return Object.entries(expected).every(([key, value]) => value === undefined || isDeepStrictEqual(args[key], value));
}
