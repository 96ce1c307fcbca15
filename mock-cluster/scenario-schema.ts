/**
 * The schema of `scenario.yaml` (SCENARIOS.md): what happened, the trigger the agent gets,
 * and what a correct diagnosis says.
 */
import { z } from 'zod';
import { CATEGORIES } from '../src/agent/diagnosis.ts';

export const KEBAB_CASE = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** `Kind/namespace/name`, or `Kind/name` for a cluster-scoped culprit. */
export const CULPRIT_PATTERN = /^[A-Z][A-Za-z0-9]*\/([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

const stringMap = z.record(z.string(), z.coerce.string());

const isValidRegex = (pattern: string): boolean => {
  try {
    new RegExp(pattern, 'i');
    return true;
  } catch {
    return false;
  }
};

/** `expect` in scenario.yaml: what a correct diagnosis says (SCENARIOS.md). */
export const scenarioExpectSchema = z.object({
  category: z.enum(CATEGORIES),
  culprit: z.string().regex(CULPRIT_PATTERN, 'must be Kind/namespace/name, or Kind/name for a cluster-scoped object'),
  mustMention: z.array(z.string().refine(isValidRegex, 'must be a valid regular expression')).default([]),
  remediation: z.object({ tool: z.string().min(1), args: z.record(z.string(), z.unknown()).default({}) }).optional(),
});

export type ScenarioExpect = z.infer<typeof scenarioExpectSchema>;

/**
 * Loading is lenient where the evaluation does not depend on a field (a name that is not
 * kebab-case, a missing description, no `expect` yet): a snapshot someone captured still
 * replays.
 * `kubewhy validate-scenarios` holds the public scenarios to the stricter rules.
 */
export const scenarioMetaSchema = z.object({
  name: z.string().min(1),
  description: z.string().default(''),
  now: z
    .string()
    .refine((value) => !Number.isNaN(Date.parse(value)), 'must be an RFC 3339 time such as "2026-11-29T10:00:00Z"'),
  trigger: z
    .object({
      alert: z.object({ labels: stringMap, annotations: stringMap.default({}) }).optional(),
      incident: z.string().min(1).optional(),
    })
    .refine(
      (trigger) => trigger.alert !== undefined || trigger.incident !== undefined,
      'needs an alert, an incident, or both',
    ),
  /** What a correct diagnosis says. Absent in a fresh capture: it replays, and `kubewhy eval` skips it. */
  expect: scenarioExpectSchema.optional(),
});

export type ScenarioMeta = z.infer<typeof scenarioMetaSchema>;

/** The culprit string split into its parts. */
export function parseCulprit(culprit: string): { kind: string; namespace?: string; name: string } {
  const parts = culprit.split('/');
  if (parts.length === 3) return { kind: parts[0] ?? '', namespace: parts[1] ?? '', name: parts[2] ?? '' };
  return { kind: parts[0] ?? '', name: parts[1] ?? '' };
}
