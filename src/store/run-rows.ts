/**
 * A run's rows as both backends read them (run-store.ts for SQLite, postgres/run-store.ts
 * for PostgreSQL: the same columns, JSON kept as text), and the records made from them.
 * PostgreSQL answers a bigint as a string and a boolean as a boolean where SQLite answers
 * numbers: the mappers take either.
 */
import type { Action, Diagnosis } from '../agent/diagnosis.ts';
import type { TokenUsage } from '../agent/model.ts';
import { triggerNamespace, type Trigger } from '../agent/trigger.ts';
import type { ClusterIdentity } from '../cluster/kubeconfig.ts';
import type { Rung } from '../gate/rung.ts';
import { isCancelled } from './run-store.ts';
import {
  type AlertKey,
  type AlertRunMatch,
  type RunAlert,
  type RunRecord,
  type RunSource,
  type RunStatus,
} from './ports.ts';

export interface RunRow {
  seq: number | string;
  id: string;
  trigger: string;
  source: string;
  fingerprint: string | null;
  starts_at: string | null;
  status: string;
  rung: string;
  namespace: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  diagnosis: string | null;
  reason: string | null;
  usage: string | null;
  steps: number | null;
  actions: string;
  resolved_at: string | null;
  repeats: number;
  attempts: number;
  not_before?: string | null;
  /** The run has a checkpoint (`checkpoint IS NOT NULL AS parked`). */
  parked?: number | boolean;
  cluster?: string | null;
}

export interface MatchRow {
  id: string;
  status: string;
  created_at: string;
  finished_at: string | null;
  earlier_failures: number;
  reason: string | null;
}

export interface RunAlertRow {
  fingerprint: string;
  alertname: string | null;
  status: string;
  starts_at: string;
  ends_at: string | null;
  labels: string;
  received_at: string;
  repeats: number;
}

export function toRecord(row: RunRow): RunRecord {
  return {
    id: row.id,
    sequence: Number(row.seq),
    trigger: JSON.parse(row.trigger) as Trigger,
    source: row.source as RunSource,
    status: row.status as RunStatus,
    rung: row.rung as Rung,
    ...(row.namespace !== null ? { namespace: row.namespace } : {}),
    ...(row.fingerprint !== null && row.starts_at !== null
      ? {
          alert: {
            fingerprint: row.fingerprint,
            startsAt: row.starts_at,
            repeats: row.repeats,
            ...(row.resolved_at !== null ? { resolvedAt: row.resolved_at } : {}),
          },
        }
      : {}),
    createdAt: row.created_at,
    ...(row.started_at !== null ? { startedAt: row.started_at } : {}),
    ...(row.finished_at !== null ? { finishedAt: row.finished_at } : {}),
    ...(row.diagnosis !== null ? { diagnosis: JSON.parse(row.diagnosis) as Diagnosis } : {}),
    ...(row.reason !== null ? { reason: row.reason } : {}),
    ...(row.usage !== null ? { usage: JSON.parse(row.usage) as TokenUsage } : {}),
    ...(row.steps !== null ? { steps: row.steps } : {}),
    actions: JSON.parse(row.actions) as Action[],
    attempts: row.attempts,
    ...(row.not_before ? { notBefore: row.not_before } : {}),
    ...(row.parked ? { parked: true } : {}),
    ...(row.cluster ? { cluster: JSON.parse(row.cluster) as ClusterIdentity } : {}),
  };
}

export function toMatch(row: MatchRow | undefined): AlertRunMatch | undefined {
  if (!row) return undefined;
  return {
    id: row.id,
    status: row.status as RunStatus,
    createdAt: row.created_at,
    ...(row.finished_at !== null ? { finishedAt: row.finished_at } : {}),
    earlierFailures: row.earlier_failures,
    cancelled: isCancelled(row),
  };
}

export function toRunAlert(row: RunAlertRow): RunAlert {
  return {
    fingerprint: row.fingerprint,
    ...(row.alertname !== null ? { alertname: row.alertname } : {}),
    status: row.status === 'resolved' ? 'resolved' : 'firing',
    startsAt: row.starts_at,
    ...(row.ends_at !== null ? { endsAt: row.ends_at } : {}),
    labels: JSON.parse(row.labels) as Record<string, string>,
    receivedAt: row.received_at,
    repeats: row.repeats,
  };
}

/** A run just created, built from what was written rather than read back: ingestion is the hot path. */
export function createdRecord(input: {
  id: string;
  sequence: number;
  trigger: Trigger;
  source: RunSource;
  rung: Rung;
  alert?: AlertKey;
  createdAt: string;
  notBefore?: Date;
}): RunRecord {
  const namespace = triggerNamespace(input.trigger);
  return {
    id: input.id,
    sequence: input.sequence,
    trigger: input.trigger,
    source: input.source,
    status: 'queued',
    rung: input.rung,
    ...(namespace !== undefined ? { namespace } : {}),
    ...(input.alert ? { alert: { ...input.alert, repeats: 0 } } : {}),
    createdAt: input.createdAt,
    actions: [],
    attempts: 0,
    ...(input.notBefore ? { notBefore: input.notBefore.toISOString() } : {}),
  };
}
