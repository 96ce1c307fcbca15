/**
 * The annotations a person wrote on an object: why it is scaled to 0, decommissioned,
 * suspended or paused, a change ticket, the change-cause of a rollout. Annotations that
 * tools and controllers write (the last applied configuration, revision bookkeeping,
 * Helm's and Argo CD's tracking) say nothing of intent and are left out. Values pass
 * through the redactor and are cut short.
 */
import type { V1ObjectMeta } from '@kubernetes/client-node';
import { redactNamedValue } from '../../redact/redactor.ts';

const MACHINE_KEYS =
  /^(kubectl\.kubernetes\.io\/|deployment\.kubernetes\.io\/|meta\.helm\.sh\/|argocd\.argoproj\.io\/|autoscaling\.alpha\.kubernetes\.io\/|control-plane\.alpha\.kubernetes\.io\/|checksum\/|prometheus\.io\/|fluxcd\.io\/|kustomize\.toolkit\.fluxcd\.io\/|field\.cattle\.io\/|cattle\.io\/|objectset\.rio\.cattle\.io\/|kapp\.k14s\.io\/|service\.beta\.kubernetes\.io\/|pv\.kubernetes\.io\/|volume\.)/;
const MAX_NOTES = 4;
const MAX_NOTE_LENGTH = 200;

/** A person's annotations, by key, at most a few. */
export function readNotes(metadata: V1ObjectMeta | undefined): Record<string, string> | undefined {
  const notes = Object.entries(metadata?.annotations ?? {})
    .filter(([key, value]) => !MACHINE_KEYS.test(key) && value.length > 0 && !value.trimStart().startsWith('{'))
    .slice(0, MAX_NOTES)
    .map(([key, value]) => [key, redactNamedValue(key, value).replace(/\s+/g, ' ').slice(0, MAX_NOTE_LENGTH)] as const);
  return notes.length > 0 ? Object.fromEntries(notes) : undefined;
}

/** `note kubernetes.io/change-cause: "scaled to 0 per CHG-4471"`, for a listing line. */
export function formatNotes(notes: Record<string, string> | undefined): string[] {
  return Object.entries(notes ?? {}).map(([key, value]) => `note ${key}: ${JSON.stringify(value)}`);
}
