/**
 * What each alert of an Alertmanager notification does. An alert firing is identified
 * by its fingerprint and startsAt (Alertmanager resends both unchanged on every repeat):
 * - firing, no run for it yet, or its last run failed: a new run;
 * - firing, a run for it is queued, running, awaiting approval, or completed within
 *   the dedup window: nothing starts; the answer names that run and its repeats count up;
 * - resolved: the time is recorded on its run, and a run still queued is cancelled.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../audit/canonical-json.ts';
import type { AlertTrigger } from '../agent/trigger.ts';
import type { AlertKey, AlertRunMatch } from '../store/run-store.ts';

export interface IncomingAlert {
  status: 'firing' | 'resolved';
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt?: string;
  fingerprint?: string;
  generatorURL?: string;
}

export type AlertOutcome =
  | 'created'
  | 'duplicate'
  | 'resolved'
  | 'cancelled'
  /** A resolved alert no run was started for. */
  | 'unmatched'
  /** Firing, but the queue had no room: Alertmanager retries the notification. */
  | 'queue-full';

export interface AlertResult {
  fingerprint: string;
  status: 'firing' | 'resolved';
  outcome: AlertOutcome;
  runId?: string;
}

/** The alert's identity across repeats; the fingerprint is derived from the labels when a sender leaves it out. */
export function alertKeyOf(alert: IncomingAlert): AlertKey {
  const fingerprint = alert.fingerprint && alert.fingerprint.length > 0 ? alert.fingerprint : createHash('sha256').update(canonicalJson(alert.labels)).digest('hex').slice(0, 16);
  return { fingerprint, startsAt: normaliseTime(alert.startsAt) ?? alert.startsAt };
}

/** True when a firing alert matching `run` must not start another run. */
export function isRepeatOf(run: AlertRunMatch, input: { now: Date; dedupWindowMs: number }): boolean {
  if (run.status === 'failed') return false;
  if (run.status !== 'completed') return true;
  const ended = Date.parse(run.finishedAt ?? run.createdAt);
  return input.now.getTime() - ended <= input.dedupWindowMs;
}

export function alertTrigger(alert: IncomingAlert, key: AlertKey): AlertTrigger {
  return {
    kind: 'alert',
    alert: {
      labels: alert.labels,
      annotations: alert.annotations,
      startsAt: key.startsAt,
      fingerprint: key.fingerprint,
      ...(alert.generatorURL ? { generatorURL: alert.generatorURL } : {}),
    },
  };
}

/** When a resolved alert ended: its endsAt when it carries one, else now. */
export function resolvedTime(alert: IncomingAlert, now: Date): string {
  const ends = alert.endsAt ? normaliseTime(alert.endsAt) : undefined;
  // Alertmanager's zero time (0001-01-01) means "not set".
  return ends && Date.parse(ends) > 0 ? ends : now.toISOString();
}

/** ISO 8601 with milliseconds in UTC; undefined when the text is no time. */
export function normaliseTime(text: string): string | undefined {
  const time = Date.parse(text);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}
