/**
 * What a write would change, as a few readable lines for the person asked to approve it:
 * `app: env DB_PASSWORD: secretKeyRef checkout-db/password-old → secretKeyRef checkout-db/password`,
 * `replicas: 3 → 0`. Built from the object as it is and the object the server-side dry run
 * returned. Env vars show their references (a secret's key, never its value) and plain
 * values as the pod-template summary already redacted them; every line passes the
 * redactor once more on its way out.
 */
import type { V1PodTemplateSpec } from '@kubernetes/client-node';
import { redactText } from '../../redact/redactor.ts';
import { summarizePodSpec, templateAnnotations, type PodTemplateData } from './pod-template.ts';
import { diffPodTemplates, type TemplateDiffEntry } from './template-diff.ts';

/** At most this many lines: a diff is read by a person before a yes or no. */
export const MAX_DIFF_LINES = 20;

/** `field: from → to`, `field added: to`, `field removed (was from)`, redacted. */
export function formatChangeLine(entry: TemplateDiffEntry): string {
  const where = entry.container ? `${entry.container}: ` : '';
  const line =
    entry.from === undefined
      ? `${where}${entry.field} added: ${entry.to ?? ''}`
      : entry.to === undefined
        ? `${where}${entry.field} removed (was ${entry.from})`
        : `${where}${entry.field}: ${entry.from} → ${entry.to}`;
  return redactText(line);
}

/** The pod template as the diff compares it: its spec, and the annotations that say how its pods run. */
export function summarizeTemplate(template: V1PodTemplateSpec | undefined): PodTemplateData {
  const annotations = templateAnnotations(template?.metadata?.annotations);
  return { ...summarizePodSpec(template?.spec), ...(annotations ? { annotations } : {}) };
}

/** The lines that change from one pod template to the other, cut to MAX_DIFF_LINES with a count of the rest. */
export function templateChangeLines(
  before: V1PodTemplateSpec | undefined,
  after: V1PodTemplateSpec | undefined,
): string[] {
  return capLines(diffPodTemplates(summarizeTemplate(before), summarizeTemplate(after)).map(formatChangeLine));
}

export function capLines(lines: string[]): string[] {
  if (lines.length <= MAX_DIFF_LINES) return lines;
  return [...lines.slice(0, MAX_DIFF_LINES - 1), `… and ${lines.length - MAX_DIFF_LINES + 1} more change(s)`];
}
