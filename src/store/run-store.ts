/**
 * The runs table: every run the service accepted, its trigger, status, diagnosis and
 * alert identity. Each write is one SQLite statement, committed before it returns unless
 * the caller groups it into a transaction (write-batch.ts does, and answers only after
 * COMMIT), so a run that a caller was told about survives a crash. Status
 * changes are guarded by the status they expect, which is what keeps a run from being
 * started twice or finished twice.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { triggerNamespace } from '../agent/trigger.ts';
import { planDecision } from './action-decision.ts';
import {
  createdRecord,
  toMatch,
  toRecord,
  toRunAlert,
  type MatchRow,
  type RunAlertRow,
  type RunRow,
} from './run-rows.ts';
import type { RunListFilters, RunRecord, RunStatus, RunStore, Sync } from './ports.ts';

/** The runs table as SQLite answers: each method returns its result at once. */
export type SyncRunStore = Sync<RunStore>;

/**
 * A run that ended unstarted because its alerts resolved first: failed with the run
 * service's cancellation reason (alert-intake.ts `CANCELLED_REASON`), which starts so.
 */
export function isCancelled(run: { status: string; reason?: string | null }): boolean {
  return run.status === 'failed' && (run.reason ?? '').startsWith('cancelled:');
}

/** Every column a RunRecord is read from: a parked run's checkpoint (it can be large) is read only when resuming. */
const RUN_COLUMNS =
  'seq, id, trigger_kind, trigger, source, fingerprint, starts_at, status, rung, namespace, created_at, started_at, finished_at, diagnosis, reason, usage, steps, actions, ' +
  'resolved_at, repeats, attempts, not_before, earlier_failures, checkpoint IS NOT NULL AS parked, cluster';

const ACTIVE = "('running', 'awaiting_approval')";
const UNFINISHED = "('queued', 'running', 'awaiting_approval')";

export function createRunStore(database: DatabaseSync): SyncRunStore {
  const statements = prepareStatements(database);
  const filteredLists = new Map<string, StatementSync>();

  const get = (id: string): RunRecord | undefined => {
    const row = statements.selectById.get(id) as RunRow | undefined;
    return row ? withAlerts(statements, toRecord(row), ALERTS_SHOWN_BY_GET) : undefined;
  };

  return {
    create({ id, trigger, source, rung, alert, culpritKeys = [], earlierFailures = 0, notBefore, now = new Date() }) {
      const namespace = triggerNamespace(trigger);
      const createdAt = now.toISOString();
      const result = statements.insert.run(
        id,
        trigger.kind,
        JSON.stringify(trigger),
        source,
        alert?.fingerprint ?? null,
        alert?.startsAt ?? null,
        rung,
        namespace ?? null,
        createdAt,
        earlierFailures,
        notBefore?.toISOString() ?? null,
      );
      for (const key of new Set(culpritKeys)) statements.insertCulprit.run(key, id);
      return createdRecord({
        id,
        sequence: Number(result.lastInsertRowid),
        trigger,
        source,
        rung,
        ...(alert ? { alert } : {}),
        createdAt,
        ...(notBefore ? { notBefore } : {}),
      });
    },
    get,
    list({ limit, before, status, namespace, category, cluster }) {
      const rows = (namespace !== undefined || category !== undefined || cluster !== undefined
        ? filteredList(database, filteredLists, { status, namespace, category, cluster }).all(
            before ?? Number.MAX_SAFE_INTEGER,
            limit + 1,
          )
        : status
          ? statements.listByStatus.all(before ?? Number.MAX_SAFE_INTEGER, status, limit + 1)
          : statements.list.all(before ?? Number.MAX_SAFE_INTEGER, limit + 1)) as unknown as RunRow[];
      const page = rows.slice(0, limit).map((row) => withAlerts(statements, toRecord(row), ALERTS_SHOWN_BY_LIST));
      const last = page.at(-1);
      return rows.length > limit && last ? { runs: page, nextCursor: last.sequence } : { runs: page };
    },
    findByAlert({ fingerprint, startsAt }) {
      return toMatch(statements.selectByAlert.get(fingerprint, startsAt) as MatchRow | undefined);
    },
    hasNodeIncidentSince(since) {
      return statements.nodeIncidentSince.get(since.toISOString()) !== undefined;
    },
    findByCulprit(culpritKeys) {
      // One index lookup per key; the run registered last wins.
      let latest: (MatchRow & { culprit_seq: number }) | undefined;
      for (const key of culpritKeys) {
        const row = statements.selectByCulprit.get(key) as (MatchRow & { culprit_seq: number }) | undefined;
        if (row && (!latest || row.culprit_seq > latest.culprit_seq)) latest = row;
      }
      return toMatch(latest);
    },
    attachAlert({ runId, alert, labels, now = new Date() }) {
      statements.attachAlert.run(
        runId,
        alert.fingerprint,
        alert.startsAt,
        labels.alertname ?? null,
        JSON.stringify(labels),
        now.toISOString(),
      );
    },
    addCulpritKeys(runId, keys) {
      for (const key of new Set(keys)) statements.addCulprit.run(key, runId, key, runId);
    },
    mergeInto({ id, into, reason, now = new Date() }) {
      if (statements.merge.run(reason, now.toISOString(), id).changes !== 1) return false;
      statements.copyAlerts.run(into, id);
      statements.copyCulprits.run(into, id);
      return true;
    },
    retargetQueued(id, { trigger, alert }) {
      return (
        statements.retarget.run(
          JSON.stringify(trigger),
          alert.fingerprint,
          alert.startsAt,
          triggerNamespace(trigger) ?? null,
          id,
        ).changes === 1
      );
    },
    recordAlertRepeat(runId, alert) {
      statements.alertRepeat.run(runId, alert.fingerprint, alert.startsAt);
    },
    recordAlertResolved(runId, alert, endsAt) {
      statements.alertResolved.run(endsAt, runId, alert.fingerprint, alert.startsAt);
      return (statements.firingAlerts.get(runId) as { firing: number }).firing;
    },
    claim(id, { now = new Date(), cluster } = {}) {
      const result = statements.claim.run(now.toISOString(), cluster ? JSON.stringify(cluster) : null, id);
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
    park(id, { checkpoint, actions, diagnosis }) {
      return (
        statements.park.run(checkpoint, JSON.stringify(actions), diagnosis ? JSON.stringify(diagnosis) : null, id)
          .changes === 1
      );
    },
    checkpointOf(id) {
      const row = statements.selectCheckpoint.get(id) as { checkpoint: string | null } | undefined;
      return row?.checkpoint ?? undefined;
    },
    decideAction({ runId, actionId, decision, by, reason, now = new Date() }) {
      const run = get(runId);
      const planned = planDecision(run, {
        actionId,
        decision,
        ...(by ? { by } : {}),
        ...(reason ? { reason } : {}),
        now,
      });
      if (planned.outcome !== 'decided' || !run)
        return planned.outcome === 'decided' ? { outcome: 'not-found' } : planned;
      // Guarded by the actions as read: a decision made meanwhile makes this one a no-op, reported as not pending.
      const changed =
        statements.decide.run(JSON.stringify(planned.actions), planned.status, runId, JSON.stringify(run.actions))
          .changes === 1;
      if (!changed)
        return {
          outcome: 'not-pending',
          status: get(runId)?.actions.find((candidate) => candidate.id === actionId)?.status ?? 'unknown',
        };
      return {
        outcome: 'decided',
        run: { ...run, actions: planned.actions, status: planned.status },
        action: planned.action,
        resumable: planned.resumable,
      };
    },
    listParked() {
      return (statements.parked.all() as unknown as RunRow[]).map(toRecord);
    },
    retryLater(id, notBefore) {
      return statements.retryLater.run(notBefore.toISOString(), id).changes === 1;
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
      "INSERT INTO runs (id, trigger_kind, trigger, source, fingerprint, starts_at, status, rung, namespace, created_at, earlier_failures, not_before) VALUES (?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?)",
    ),
    selectById: database.prepare(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = ?`),
    list: database.prepare(`SELECT ${RUN_COLUMNS} FROM runs WHERE seq < ? ORDER BY seq DESC LIMIT ?`),
    listByStatus: database.prepare(
      `SELECT ${RUN_COLUMNS} FROM runs WHERE seq < ? AND status = ? ORDER BY seq DESC LIMIT ?`,
    ),
    // The run that holds this alert firing last: through run_alerts, which lists every alert of every run.
    selectByAlert: database.prepare(
      `SELECT runs.id, runs.status, runs.created_at, runs.finished_at, runs.earlier_failures, runs.reason FROM run_alerts JOIN runs ON runs.id = run_alerts.run_id
       WHERE run_alerts.fingerprint = ? AND run_alerts.starts_at = ? ORDER BY run_alerts.seq DESC LIMIT 1`,
    ),
    // A range of the key index: node keys only.
    nodeIncidentSince: database.prepare(
      `SELECT 1 FROM run_culprits JOIN runs ON runs.id = run_culprits.run_id
       WHERE run_culprits.key >= 'node:' AND run_culprits.key < 'node;' AND runs.status != 'failed' AND (runs.finished_at IS NULL OR runs.finished_at >= ?) LIMIT 1`,
    ),
    selectByCulprit: database.prepare(
      `SELECT runs.id, runs.status, runs.created_at, runs.finished_at, runs.earlier_failures, runs.reason, run_culprits.seq AS culprit_seq
       FROM run_culprits JOIN runs ON runs.id = run_culprits.run_id WHERE run_culprits.key = ? ORDER BY run_culprits.seq DESC LIMIT 1`,
    ),
    retarget: database.prepare(
      "UPDATE runs SET trigger = ?, fingerprint = ?, starts_at = ?, namespace = ? WHERE id = ? AND status = 'queued'",
    ),
    insertCulprit: database.prepare('INSERT INTO run_culprits (key, run_id) VALUES (?, ?)'),
    addCulprit: database.prepare(
      'INSERT INTO run_culprits (key, run_id) SELECT ?, ? WHERE NOT EXISTS (SELECT 1 FROM run_culprits WHERE key = ? AND run_id = ?)',
    ),
    merge: database.prepare(
      "UPDATE runs SET status = 'completed', reason = ?, finished_at = ?, checkpoint = NULL, not_before = NULL WHERE id = ? AND status = 'running'",
    ),
    // The merged run's alerts and keys, in their order, become the joined run's newest: lookups find the joined run.
    copyAlerts: database.prepare(
      `INSERT INTO run_alerts (run_id, fingerprint, starts_at, alertname, labels, status, ends_at, received_at, repeats)
       SELECT ?, fingerprint, starts_at, alertname, labels, status, ends_at, received_at, repeats FROM run_alerts WHERE run_id = ? ORDER BY seq
       ON CONFLICT (run_id, fingerprint, starts_at) DO NOTHING`,
    ),
    copyCulprits: database.prepare(
      'INSERT INTO run_culprits (key, run_id) SELECT key, ? FROM run_culprits WHERE run_id = ? ORDER BY seq',
    ),
    attachAlert: database.prepare(
      "INSERT INTO run_alerts (run_id, fingerprint, starts_at, alertname, labels, status, received_at) VALUES (?, ?, ?, ?, ?, 'firing', ?) ON CONFLICT (run_id, fingerprint, starts_at) DO NOTHING",
    ),
    alertRepeat: database.prepare(
      'UPDATE run_alerts SET repeats = repeats + 1 WHERE run_id = ? AND fingerprint = ? AND starts_at = ?',
    ),
    alertResolved: database.prepare(
      "UPDATE run_alerts SET status = 'resolved', ends_at = ? WHERE run_id = ? AND fingerprint = ? AND starts_at = ?",
    ),
    firingAlerts: database.prepare("SELECT COUNT(*) AS firing FROM run_alerts WHERE run_id = ? AND status = 'firing'"),
    alertsOfRun: database.prepare(
      'SELECT fingerprint, alertname, status, starts_at, ends_at, labels, received_at, repeats FROM run_alerts WHERE run_id = ? ORDER BY seq LIMIT ?',
    ),
    alertCount: database.prepare('SELECT COUNT(*) AS count FROM run_alerts WHERE run_id = ?'),
    claim: database.prepare(
      "UPDATE runs SET status = 'running', started_at = ?, cluster = COALESCE(?, cluster), attempts = attempts + 1, not_before = NULL WHERE id = ? AND status = 'queued'",
    ),
    park: database.prepare(
      "UPDATE runs SET status = 'awaiting_approval', checkpoint = ?, actions = ?, diagnosis = COALESCE(?, diagnosis) WHERE id = ? AND status = 'running'",
    ),
    selectCheckpoint: database.prepare('SELECT checkpoint FROM runs WHERE id = ?'),
    decide: database.prepare(
      "UPDATE runs SET actions = ?, status = ? WHERE id = ? AND status = 'awaiting_approval' AND checkpoint IS NOT NULL AND actions = ?",
    ),
    parked: database.prepare(
      `SELECT ${RUN_COLUMNS} FROM runs WHERE status = 'awaiting_approval' AND checkpoint IS NOT NULL ORDER BY seq`,
    ),
    retryLater: database.prepare(
      "UPDATE runs SET status = 'queued', not_before = ? WHERE id = ? AND status = 'running'",
    ),
    updateProgress: database.prepare(`UPDATE runs SET status = ?, actions = ? WHERE id = ? AND status IN ${ACTIVE}`),
    finish: database.prepare(
      `UPDATE runs SET status = ?, diagnosis = ?, reason = ?, usage = ?, steps = ?, actions = COALESCE(?, actions), finished_at = ?, checkpoint = NULL, not_before = NULL WHERE id = ? AND status IN ${UNFINISHED}`,
    ),
    cancel: database.prepare(
      "UPDATE runs SET status = 'failed', reason = ?, finished_at = ? WHERE id = ? AND status = 'queued'",
    ),
    requeue: database.prepare(`UPDATE runs SET status = 'queued' WHERE id = ? AND status IN ${ACTIVE}`),
    resolve: database.prepare('UPDATE runs SET resolved_at = ? WHERE id = ?'),
    repeat: database.prepare('UPDATE runs SET repeats = repeats + 1 WHERE id = ?'),
    unfinished: database.prepare(`SELECT ${RUN_COLUMNS} FROM runs WHERE status IN ${UNFINISHED} ORDER BY seq`),
    ping: database.prepare('SELECT 1'),
  };
}

interface FilteredList {
  all(before: number, limit: number): unknown[];
}

/**
 * The list statement for one combination of filters, prepared once per combination; the
 * filter values are bound, never written into the SQL. A run's category and cluster are
 * read from its stored JSON (json_extract).
 */
function filteredList(
  database: DatabaseSync,
  cache: Map<string, StatementSync>,
  filters: RunListFilters,
): FilteredList {
  const conditions: [keyof RunListFilters, string][] = [
    ['status', 'status = ?'],
    ['namespace', 'namespace = ?'],
    ['category', "json_extract(diagnosis, '$.category') = ?"],
    [
      'cluster',
      "? IN (json_extract(cluster, '$.context'), json_extract(cluster, '$.server'), json_extract(cluster, '$.scenario'))",
    ],
  ];
  const used = conditions.filter(([name]) => filters[name] !== undefined);
  const key = used.map(([name]) => name).join(',');
  let prepared = cache.get(key);
  if (!prepared) {
    prepared = database.prepare(
      `SELECT ${RUN_COLUMNS} FROM runs WHERE seq < ? ${used.map(([, sql]) => `AND ${sql} `).join('')}ORDER BY seq DESC LIMIT ?`,
    );
    cache.set(key, prepared);
  }
  const statement = prepared;
  return { all: (before, limit) => statement.all(before, ...used.map(([name]) => filters[name] as string), limit) };
}

/** Alerts a run shows: all of them on its own page, the first few in a list of runs. */
const ALERTS_SHOWN_BY_GET = 10_000;
const ALERTS_SHOWN_BY_LIST = 20;

function withAlerts(statements: ReturnType<typeof prepareStatements>, run: RunRecord, limit: number): RunRecord {
  const rows = statements.alertsOfRun.all(run.id, limit) as unknown as RunAlertRow[];
  const count = rows.length < limit ? rows.length : (statements.alertCount.get(run.id) as { count: number }).count;
  return { ...run, alerts: rows.map(toRunAlert), alertCount: count };
}

export function isFinished(status: RunStatus): boolean {
  return status === 'completed' || status === 'failed';
}
