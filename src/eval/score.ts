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

/**
 * `clockShiftMs`: what the mock added to every time of the scenario to serve it at the real
 * now (mock-cluster/served-clock.ts). The times a diagnosis quotes are on that clock; a
 * pattern may name them as the scenario wrote them, so each is matched against the text on
 * both clocks.
 */
export function scoreDiagnosis(
  diagnosis: Diagnosis | undefined,
  expect: Expectation,
  options: { clockShiftMs?: number } = {},
): Score {
  if (!diagnosis) {
    return {
      correct: false,
      categoryCorrect: false,
      culpritCorrect: false,
      missingMentions: expect.mustMention ?? [],
      remediationCorrect: expect.remediation ? false : undefined,
    };
  }
  const text = diagnosisText(diagnosis);
  const texts = options.clockShiftMs ? [text, onScenarioClock(text, options.clockShiftMs)] : [text];
  const missingMentions = (expect.mustMention ?? []).filter(
    (pattern) => !texts.some((candidate) => new RegExp(pattern, 'i').test(candidate)),
  );
  const categoryCorrect = diagnosis.category === expect.category;
  const culpritCorrect = diagnosis.culprit !== undefined && formatCulprit(diagnosis.culprit) === expect.culprit;
  const remediationCorrect = expect.remediation
    ? diagnosis.actions.some(
        (action) => action.tool === expect.remediation?.tool && hasArguments(action.args, expect.remediation.args),
      )
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

const ISO_TIME = /\b(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(\.\d+)?Z/g;
const CLOCK_TIME = /(?<![\dT:])(\d{2}):(\d{2}):(\d{2})(?![\d:])/g;

/** `text` with its times moved back by `shiftMs`: RFC 3339 times whole, and a log line's bare `HH:MM:SS` on the day's clock. */
export function onScenarioClock(text: string, shiftMs: number): string {
  const iso = text.replace(ISO_TIME, (whole, date: string, time: string) => {
    const parsed = Date.parse(`${date}T${time}Z`);
    return Number.isNaN(parsed) ? whole : `${new Date(parsed - shiftMs).toISOString().slice(0, 19)}Z`;
  });
  const day = 86_400;
  const shiftSeconds = ((Math.round(shiftMs / 1000) % day) + day) % day;
  return iso.replace(CLOCK_TIME, (whole, hours: string, minutes: string, seconds: string) => {
    const value = Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds);
    if (Number(hours) > 23 || Number(minutes) > 59 || Number(seconds) > 59) return whole;
    const back = (value - shiftSeconds + day) % day;
    const pad = (part: number): string => String(part).padStart(2, '0');
    return `${pad(Math.floor(back / 3600))}:${pad(Math.floor((back % 3600) / 60))}:${pad(back % 60)}`;
  });
}
