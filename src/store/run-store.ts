/**
 * The runs table: every run the service accepted, its trigger, status, diagnosis and
 * alert identity. Each write is one SQLite statement, committed before it returns unless
 * the caller groups it into a transaction (write-batch.ts does, and answers only after
 * COMMIT), so a run that a caller was told about survives a crash. Status
 * changes are guarded by the status they expect, which is what keeps a run from being
 * started twice or finished twice.
 */
import type { DatabaseSync } from 'node:sqlite';
import type { Action, Diagnosis } from '../agent/diagnosis.ts';
import type { TokenUsage } from '../agent/model.ts';
import { triggerNamespace, type Trigger } from '../agent/trigger.ts';
import type { Rung } from '../gate/rung.ts';

export const RUN_STATUSES = ['queued', 'running', 'awaiting_approval', 'completed', 'failed'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** Where a run came from: the Alertmanager webhook, or `POST /v1/incidents`. */
export type RunSource = 'alertmanager' | 'api';

export interface AlertKey {
  fingerprint: string;
  /** ISO 8601, normalised, so repeats of one firing compare equal. */
  startsAt: string;
}

export interface RunRecord {
  id: string;
  /** Insertion order: the queue's order and the list's cursor. */
  sequence: number;
  trigger: Trigger;
  source: RunSource;
  status: RunStatus;
  rung: Rung;
  namespace?: string;
  alert?: AlertKey & { resolvedAt?: string; repeats: number };
  createdAt: string;
  startedAt?: string;
  finishedAt?: string;
  diagnosis?: Diagnosis;
  reason?: string;
  usage?: TokenUsage;
  steps?: number;
  actions: Action[];
  /** How many times the run was started (a restart that resumes it starts it again). */
  attempts: number;
}

export interface AlertRunMatch {
  id: string;
  status: RunStatus;
  createdAt: string;
  finishedAt?: string;
}

export interface RunStore {
  create(input: { id: string; trigger: Trigger; source: RunSource; rung: Rung; alert?: AlertKey; now?: Date }): RunRecord;
  get(id: string): RunRecord | undefined;
  /** Newest first; `before` is a previous page's `nextCursor`. */
  list(options: { limit: number; before?: number; status?: RunStatus }): { runs: RunRecord[]; nextCursor?: number };
  /** The latest run started by this alert firing, if any: just what deduplication needs. */
  findByAlert(key: AlertKey): AlertRunMatch | undefined;
  /** queued → running, counting the attempt; undefined when the run is not queued (cancelled, or claimed already). */
  claim(id: string, now?: Date): RunRecord | undefined;
  /** running ⇄ awaiting_approval, with the run's current actions; no effect on a run that is not active. */
  updateProgress(id: string, input: { status: 'running' | 'awaiting_approval'; actions: readonly Action[] }): void;
  /** Ends an unfinished run; false when it had ended already. */
  finish(id: string, input: { status: 'completed' | 'failed'; diagnosis?: Diagnosis; reason?: string; usage?: TokenUsage; steps?: number; actions?: readonly Action[]; now?: Date }): boolean;
  /** Ends a queued run without starting it; false when it is no longer queued. */
  cancelQueued(id: string, reason: string, now?: Date): boolean;
  /** running or awaiting_approval → queued, to be started again. */
  requeue(id: string): boolean;
  recordResolved(id: string, resolvedAt: string): void;
  recordRepeat(id: string): void;
  /** Runs not yet ended (queued, running, awaiting approval), oldest first. */
  listUnfinished(): RunRecord[];
  /** A cheap query that fails when the database does. */
  ping(): void;
}

interface RunRow {
  seq: number;
  id: string;
  trigger_kind: string;
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
}

const ACTIVE = "('running', 'awaiting_approval')";
const UNFINISHED = "('queued', 'running', 'awaiting_approval')";

export function createRunStore(database: DatabaseSync): RunStore {
  const statements = prepareStatements(database);

  const get = (id: string): RunRecord | undefined => {
    const row = statements.selectById.get(id) as RunRow | undefined;
    return row ? toRecord(row) : undefined;
  };

  return {
    create({ id, trigger, source, rung, alert, now = new Date() }) {
      const namespace = triggerNamespace(trigger);
      const createdAt = now.toISOString();
      const result = statements.insert.run(id, trigger.kind, JSON.stringify(trigger), source, alert?.fingerprint ?? null, alert?.startsAt ?? null, rung, namespace ?? null, createdAt);
      // Built from what was written rather than read back: ingestion is the hot path.
      return {
        id,
        sequence: Number(result.lastInsertRowid),
        trigger,
        source,
        status: 'queued',
        rung,
        ...(namespace !== undefined ? { namespace } : {}),
        ...(alert ? { alert: { ...alert, repeats: 0 } } : {}),
        createdAt,
        actions: [],
        attempts: 0,
      };
    },
    get,
    list({ limit, before, status }) {
      const rows = (status
        ? statements.listByStatus.all(before ?? Number.MAX_SAFE_INTEGER, status, limit + 1)
        : statements.list.all(before ?? Number.MAX_SAFE_INTEGER, limit + 1)) as unknown as RunRow[];
      const page = rows.slice(0, limit).map(toRecord);
      const last = page.at(-1);
      return rows.length > limit && last ? { runs: page, nextCursor: last.sequence } : { runs: page };
    },
    findByAlert({ fingerprint, startsAt }) {
      const row = statements.selectByAlert.get(fingerprint, startsAt) as { id: string; status: string; created_at: string; finished_at: string | null } | undefined;
      if (!row) return undefined;
      return { id: row.id, status: row.status as RunStatus, createdAt: row.created_at, ...(row.finished_at !== null ? { finishedAt: row.finished_at } : {}) };
    },
    claim(id, now = new Date()) {
      const result = statements.claim.run(now.toISOString(), id);
      return result.changes === 1 ? get(id) : undefined;
    },
    updateProgress(id, { status, actions }) {
      statements.updateProgress.run(status, JSON.stringify(actions), id);
    },
    finish(id, { status, diagnosis, reason, usage, steps, actions, now = new Date() }) {
      const result = statements.finish.run(
        status,
        diagnosis ? JSON.stringify(diagnosis) : null,
        reason ?? null,
        usage ? JSON.stringify(usage) : null,
        steps ?? null,
        actions ? JSON.stringify(actions) : null,
        now.toISOString(),
        id,
      );
      return result.changes === 1;
    },
    cancelQueued(id, reason, now = new Date()) {
      return statements.cancel.run(reason, now.toISOString(), id).changes === 1;
    },
    requeue(id) {
      return statements.requeue.run(id).changes === 1;
    },
    recordResolved(id, resolvedAt) {
      statements.resolve.run(resolvedAt, id);
    },
    recordRepeat(id) {
      statements.repeat.run(id);
    },
    listUnfinished() {
      return (statements.unfinished.all() as unknown as RunRow[]).map(toRecord);
    },
    ping() {
      statements.ping.get();
    },
  };
}

function prepareStatements(database: DatabaseSync) {
  return {
    insert: database.prepare(
      "INSERT INTO runs (id, trigger_kind, trigger, source, fingerprint, starts_at, status, rung, namespace, created_at) VALUES (?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?)",
    ),
    selectById: database.prepare('SELECT * FROM runs WHERE id = ?'),
    list: database.prepare('SELECT * FROM runs WHERE seq < ? ORDER BY seq DESC LIMIT ?'),
    listByStatus: database.prepare('SELECT * FROM runs WHERE seq < ? AND status = ? ORDER BY seq DESC LIMIT ?'),
    selectByAlert: database.prepare('SELECT id, status, created_at, finished_at FROM runs WHERE fingerprint = ? AND starts_at = ? ORDER BY seq DESC LIMIT 1'),
    claim: database.prepare("UPDATE runs SET status = 'running', started_at = ?, attempts = attempts + 1 WHERE id = ? AND status = 'queued'"),
    updateProgress: database.prepare(`UPDATE runs SET status = ?, actions = ? WHERE id = ? AND status IN ${ACTIVE}`),
    finish: database.prepare(
      `UPDATE runs SET status = ?, diagnosis = ?, reason = ?, usage = ?, steps = ?, actions = COALESCE(?, actions), finished_at = ? WHERE id = ? AND status IN ${UNFINISHED}`,
    ),
    cancel: database.prepare("UPDATE runs SET status = 'failed', reason = ?, finished_at = ? WHERE id = ? AND status = 'queued'"),
    requeue: database.prepare(`UPDATE runs SET status = 'queued' WHERE id = ? AND status IN ${ACTIVE}`),
    resolve: database.prepare('UPDATE runs SET resolved_at = ? WHERE id = ?'),
    repeat: database.prepare('UPDATE runs SET repeats = repeats + 1 WHERE id = ?'),
    unfinished: database.prepare(`SELECT * FROM runs WHERE status IN ${UNFINISHED} ORDER BY seq`),
    ping: database.prepare('SELECT 1'),
  };
}

function toRecord(row: RunRow): RunRecord {
  return {
    id: row.id,
    sequence: row.seq,
    trigger: JSON.parse(row.trigger) as Trigger,
    source: row.source as RunSource,
    status: row.status as RunStatus,
    rung: row.rung as Rung,
    ...(row.namespace !== null ? { namespace: row.namespace } : {}),
    ...(row.fingerprint !== null && row.starts_at !== null
      ? { alert: { fingerprint: row.fingerprint, startsAt: row.starts_at, repeats: row.repeats, ...(row.resolved_at !== null ? { resolvedAt: row.resolved_at } : {}) } }
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
  };
}

export function isFinished(status: RunStatus): boolean {
  return status === 'completed' || status === 'failed';
}
