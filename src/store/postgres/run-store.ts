/**
 * The runs table on PostgreSQL: RunStore's methods (ports.ts), as SQLite's (run-store.ts), with the same
 * semantics (status guards, return values, ordering, alert lists), answering promises.
 * A write that must be whole is one statement (data-modifying CTEs where SQLite uses
 * several: create with its culprit keys, mergeInto), atomic on the pool as in a batch's
 * transaction; decideAction, which reads then writes, locks the row in a transaction.
 * A run that is not running holds no lease: every status change away from running clears
 * it (the leases themselves are the shared queue's, shared-queue.ts).
 *
 * Unlike SQLite, a second unfinished run for one alert firing is refused (unique_violation,
 * 23505), by create and by retargetQueued alike: the schema's backstop under deduplication.
 */
import type { Action } from '../../agent/diagnosis.ts';
import { triggerNamespace } from '../../agent/trigger.ts';
import { planDecision } from '../action-decision.ts';
import {
  createdRecord,
  toMatch,
  toRecord,
  toRunAlert,
  type MatchRow,
  type RunAlertRow,
  type RunRow,
} from '../run-rows.ts';
import type { RunAlert, RunListFilters, RunRecord, RunStore } from '../ports.ts';
import { atomically, prepared, type Queryable } from './queryable.ts';

export { toRecord, type RunRow } from '../run-rows.ts';

/** Every column a RunRecord is read from; a parked run's checkpoint (it can be large) is read only when resuming. */
export const RUN_COLUMNS =
  'seq, id, trigger, source, fingerprint, starts_at, status, rung, namespace, created_at, started_at, finished_at, diagnosis, reason, usage, steps, actions, ' +
  'resolved_at, repeats, attempts, not_before, checkpoint IS NOT NULL AS parked, cluster';

const ACTIVE = "('running', 'awaiting_approval')";
const UNFINISHED = "('queued', 'running', 'awaiting_approval')";
/** A run leaves running: it holds no lease any more. */
const NO_LEASE = 'lease_owner = NULL, lease_until = NULL';

/** Alerts a run shows: all of them on its own page, the first few in a list of runs. */
export const ALERTS_SHOWN_BY_GET = 10_000;
const ALERTS_SHOWN_BY_LIST = 20;

const MATCH_COLUMNS = 'runs.id, runs.status, runs.created_at, runs.finished_at, runs.earlier_failures, runs.reason';

/**
 * `inTransaction`: `db` is a client inside a transaction (a batch's), whose owner commits;
 * otherwise `db` is the pool, and the one read-then-write method (decideAction) takes a
 * client for a transaction of its own.
 */
export function createPgRunStore(connection: Queryable, options: { inTransaction?: boolean } = {}): RunStore {
  const inTransaction = options.inTransaction ?? false;
  const db = prepared(connection);
  const changed = async (sql: string, values: unknown[]): Promise<boolean> =>
    (await db.query(sql, values)).rowCount === 1;

  const get = async (id: string): Promise<RunRecord | undefined> => {
    const { rows } = await db.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = $1`, [id]);
    return (await withAlerts(db, rows.map(toRecord), ALERTS_SHOWN_BY_GET))[0];
  };

  return {
    async create({
      id,
      trigger,
      source,
      rung,
      alert,
      culpritKeys = [],
      earlierFailures = 0,
      notBefore,
      now = new Date(),
    }) {
      const namespace = triggerNamespace(trigger);
      const createdAt = now.toISOString();
      // The run and its keys in one statement: atomic without a transaction of its own.
      const { rows } = await db.query<{ seq: string }>(
        `WITH run AS (
           INSERT INTO runs (id, trigger_kind, trigger, source, fingerprint, starts_at, status, rung, namespace, created_at, earlier_failures, not_before)
           VALUES ($1, $2, $3, $4, $5, $6, 'queued', $7, $8, $9, $10, $11) RETURNING seq
         ), keys AS (
           INSERT INTO run_culprits (key, run_id) SELECT key, $1 FROM unnest($12::text[]) WITH ORDINALITY AS listed (key, position) ORDER BY position
         )
         SELECT seq FROM run`,
        [
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
          [...new Set(culpritKeys)],
        ],
      );
      return createdRecord({
        id,
        sequence: Number(rows[0]?.seq),
        trigger,
        source,
        rung,
        ...(alert ? { alert } : {}),
        createdAt,
        ...(notBefore ? { notBefore } : {}),
      });
    },
    get,
    async list({ limit, before, ...filters }) {
      const values: unknown[] = [before ?? Number.MAX_SAFE_INTEGER];
      const conditions = listConditions(filters, values);
      values.push(limit + 1);
      const { rows } = await db.query<RunRow>(
        `SELECT ${RUN_COLUMNS} FROM runs WHERE seq < $1 ${conditions}ORDER BY seq DESC LIMIT $${values.length}`,
        values,
      );
      const page = await withAlerts(db, rows.slice(0, limit).map(toRecord), ALERTS_SHOWN_BY_LIST);
      const last = page.at(-1);
      return rows.length > limit && last ? { runs: page, nextCursor: last.sequence } : { runs: page };
    },
    async findByAlert({ fingerprint, startsAt }) {
      // The run that holds this alert firing last: through run_alerts, which lists every alert of every run.
      const { rows } = await db.query<MatchRow>(
        `SELECT ${MATCH_COLUMNS} FROM run_alerts JOIN runs ON runs.id = run_alerts.run_id
         WHERE run_alerts.fingerprint = $1 AND run_alerts.starts_at = $2 ORDER BY run_alerts.seq DESC LIMIT 1`,
        [fingerprint, startsAt],
      );
      return toMatch(rows[0]);
    },
    async findByCulprit(culpritKeys) {
      // One index lookup per key; the run registered last wins.
      const { rows } = await db.query<MatchRow>(
        `SELECT ${MATCH_COLUMNS} FROM unnest($1::text[]) AS wanted (key)
         CROSS JOIN LATERAL (SELECT seq, run_id FROM run_culprits WHERE run_culprits.key = wanted.key ORDER BY seq DESC LIMIT 1) AS latest
         JOIN runs ON runs.id = latest.run_id ORDER BY latest.seq DESC LIMIT 1`,
        [[...culpritKeys]],
      );
      return toMatch(rows[0]);
    },
    async hasNodeIncidentSince(since) {
      // A range of the key index (byte order): node keys only.
      const { rows } = await db.query(
        `SELECT 1 FROM run_culprits JOIN runs ON runs.id = run_culprits.run_id
         WHERE run_culprits.key >= 'node:' AND run_culprits.key < 'node;' AND runs.status != 'failed' AND (runs.finished_at IS NULL OR runs.finished_at >= $1) LIMIT 1`,
        [since.toISOString()],
      );
      return rows.length > 0;
    },
    async attachAlert({ runId, alert, labels, now = new Date() }) {
      await db.query(
        "INSERT INTO run_alerts (run_id, fingerprint, starts_at, alertname, labels, status, received_at) VALUES ($1, $2, $3, $4, $5, 'firing', $6) ON CONFLICT (run_id, fingerprint, starts_at) DO NOTHING",
        [runId, alert.fingerprint, alert.startsAt, labels.alertname ?? null, JSON.stringify(labels), now.toISOString()],
      );
    },
    async addCulpritKeys(runId, keys) {
      await db.query(
        `INSERT INTO run_culprits (key, run_id) SELECT key, $2 FROM unnest($1::text[]) WITH ORDINALITY AS listed (key, position)
         WHERE NOT EXISTS (SELECT 1 FROM run_culprits WHERE run_culprits.key = listed.key AND run_id = $2) ORDER BY position`,
        [[...new Set(keys)], runId],
      );
    },
    async mergeInto({ id, into, reason, now = new Date() }) {
      // The merged run's alerts and keys, in their order, become the joined run's newest: lookups find the joined run.
      const { rows } = await db.query<{ merged: number }>(
        `WITH merged AS (
           UPDATE runs SET status = 'completed', reason = $3, finished_at = $4, checkpoint = NULL, not_before = NULL, ${NO_LEASE} WHERE id = $1 AND status = 'running' RETURNING id
         ), alerts AS (
           INSERT INTO run_alerts (run_id, fingerprint, starts_at, alertname, labels, status, ends_at, received_at, repeats)
           SELECT $2, fingerprint, starts_at, alertname, labels, status, ends_at, received_at, repeats FROM run_alerts WHERE run_id IN (SELECT id FROM merged) ORDER BY seq
           ON CONFLICT (run_id, fingerprint, starts_at) DO NOTHING
         ), keys AS (
           INSERT INTO run_culprits (key, run_id) SELECT key, $2 FROM run_culprits WHERE run_id IN (SELECT id FROM merged) ORDER BY seq
         )
         SELECT count(*)::int AS merged FROM merged`,
        [id, into, reason, now.toISOString()],
      );
      return rows[0]?.merged === 1;
    },
    retargetQueued(id, { trigger, alert }) {
      return changed(
        "UPDATE runs SET trigger = $1, fingerprint = $2, starts_at = $3, namespace = $4 WHERE id = $5 AND status = 'queued'",
        [JSON.stringify(trigger), alert.fingerprint, alert.startsAt, triggerNamespace(trigger) ?? null, id],
      );
    },
    async recordAlertRepeat(runId, alert) {
      await db.query(
        'UPDATE run_alerts SET repeats = repeats + 1 WHERE run_id = $1 AND fingerprint = $2 AND starts_at = $3',
        [runId, alert.fingerprint, alert.startsAt],
      );
    },
    async recordAlertResolved(runId, alert, endsAt) {
      await db.query(
        "UPDATE run_alerts SET status = 'resolved', ends_at = $1 WHERE run_id = $2 AND fingerprint = $3 AND starts_at = $4",
        [endsAt, runId, alert.fingerprint, alert.startsAt],
      );
      // Counted after the update, in a statement of its own: it sees what other replicas resolved meanwhile.
      const { rows } = await db.query<{ firing: number }>(
        "SELECT count(*)::int AS firing FROM run_alerts WHERE run_id = $1 AND status = 'firing'",
        [runId],
      );
      return rows[0]?.firing ?? 0;
    },
    async claim(id, { now = new Date(), cluster, lease } = {}) {
      // Without a lease the run is anyone's to take over at once: a claim outside the shared queue names its holder.
      const { rows } = await db.query<RunRow>(
        `UPDATE runs SET status = 'running', started_at = $1, cluster = COALESCE($2, cluster), attempts = attempts + 1, not_before = NULL, lease_owner = $4, lease_until = $5
         WHERE id = $3 AND status = 'queued' RETURNING ${RUN_COLUMNS}`,
        [now.toISOString(), cluster ? JSON.stringify(cluster) : null, id, lease?.owner ?? null, lease?.until ?? null],
      );
      return (await withAlerts(db, rows.map(toRecord), ALERTS_SHOWN_BY_GET))[0];
    },
    async updateProgress(id, { status, actions }) {
      await db.query(`UPDATE runs SET status = $1, actions = $2 WHERE id = $3 AND status IN ${ACTIVE}`, [
        status,
        JSON.stringify(actions),
        id,
      ]);
    },
    finish(id, { status, diagnosis, reason, usage, steps, actions, now = new Date() }) {
      return changed(
        `UPDATE runs SET status = $1, diagnosis = $2, reason = $3, usage = $4, steps = $5, actions = COALESCE($6, actions), finished_at = $7, checkpoint = NULL, not_before = NULL, ${NO_LEASE}
         WHERE id = $8 AND status IN ${UNFINISHED}`,
        [
          status,
          diagnosis ? JSON.stringify(diagnosis) : null,
          reason ?? null,
          usage ? JSON.stringify(usage) : null,
          steps ?? null,
          actions ? JSON.stringify(actions) : null,
          now.toISOString(),
          id,
        ],
      );
    },
    cancelQueued(id, reason, now = new Date()) {
      return changed(
        `UPDATE runs SET status = 'failed', reason = $1, finished_at = $2, ${NO_LEASE} WHERE id = $3 AND status = 'queued'`,
        [reason, now.toISOString(), id],
      );
    },
    requeue(id) {
      return changed(`UPDATE runs SET status = 'queued', ${NO_LEASE} WHERE id = $1 AND status IN ${ACTIVE}`, [id]);
    },
    async recordResolved(id, resolvedAt) {
      await db.query('UPDATE runs SET resolved_at = $1 WHERE id = $2', [resolvedAt, id]);
    },
    async recordRepeat(id) {
      await db.query('UPDATE runs SET repeats = repeats + 1 WHERE id = $1', [id]);
    },
    park(id, { checkpoint, actions, diagnosis }) {
      return changed(
        `UPDATE runs SET status = 'awaiting_approval', checkpoint = $1, actions = $2, diagnosis = COALESCE($3, diagnosis), ${NO_LEASE} WHERE id = $4 AND status = 'running'`,
        [checkpoint, JSON.stringify(actions), diagnosis ? JSON.stringify(diagnosis) : null, id],
      );
    },
    async checkpointOf(id) {
      const { rows } = await db.query<{ checkpoint: string | null }>('SELECT checkpoint FROM runs WHERE id = $1', [id]);
      return rows[0]?.checkpoint ?? undefined;
    },
    decideAction({ runId, actionId, decision, by, reason, now = new Date() }) {
      // The row is locked from read to write: a decision on another replica waits, then finds this one made.
      return atomically(connection, inTransaction, async (client) => {
        const { rows } = await client.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = $1 FOR UPDATE`, [
          runId,
        ]);
        const row = rows[0];
        const [run] = row ? await withAlerts(client, [toRecord(row)], ALERTS_SHOWN_BY_GET) : [];
        const planned = planDecision(run, {
          actionId,
          decision,
          ...(by ? { by } : {}),
          ...(reason ? { reason } : {}),
          now,
        });
        if (planned.outcome !== 'decided' || !row || !run)
          return planned.outcome === 'decided' ? { outcome: 'not-found' as const } : planned;
        // Guarded by the actions as read too, as in SQLite: a decision made meanwhile makes this one a no-op, reported as not pending.
        const result = await client.query(
          "UPDATE runs SET actions = $1, status = $2 WHERE id = $3 AND status = 'awaiting_approval' AND checkpoint IS NOT NULL AND actions = $4",
          [JSON.stringify(planned.actions), planned.status, runId, row.actions],
        );
        if (result.rowCount !== 1) {
          const latest = (await client.query<{ actions: string }>('SELECT actions FROM runs WHERE id = $1', [runId]))
            .rows[0];
          const current = latest
            ? (JSON.parse(latest.actions) as Action[]).find((candidate) => candidate.id === actionId)?.status
            : undefined;
          return { outcome: 'not-pending' as const, status: current ?? 'unknown' };
        }
        return {
          outcome: 'decided' as const,
          run: { ...run, actions: planned.actions, status: planned.status },
          action: planned.action,
          resumable: planned.resumable,
        };
      });
    },
    async listParked() {
      const { rows } = await db.query<RunRow>(
        `SELECT ${RUN_COLUMNS} FROM runs WHERE status = 'awaiting_approval' AND checkpoint IS NOT NULL ORDER BY seq`,
      );
      return rows.map(toRecord);
    },
    retryLater(id, notBefore) {
      return changed(
        `UPDATE runs SET status = 'queued', not_before = $1, ${NO_LEASE} WHERE id = $2 AND status = 'running'`,
        [notBefore.toISOString(), id],
      );
    },
    async listUnfinished() {
      const { rows } = await db.query<RunRow>(
        `SELECT ${RUN_COLUMNS} FROM runs WHERE status IN ${UNFINISHED} ORDER BY seq`,
      );
      return rows.map(toRecord);
    },
    async ping() {
      await db.query('SELECT 1');
    },
  };
}

/**
 * The WHERE conditions of `list` for the filters given, their values appended to
 * `values` (bound, never written into the SQL). Category and cluster are read from the
 * stored JSON text.
 */
function listConditions(filters: RunListFilters, values: unknown[]): string {
  const conditions: [keyof RunListFilters, (placeholder: string) => string][] = [
    ['status', (placeholder) => `status = ${placeholder}`],
    ['namespace', (placeholder) => `namespace = ${placeholder}`],
    ['category', (placeholder) => `(diagnosis::jsonb ->> 'category') = ${placeholder}`],
    [
      'cluster',
      (placeholder) =>
        `${placeholder} IN (cluster::jsonb ->> 'context', cluster::jsonb ->> 'server', cluster::jsonb ->> 'scenario')`,
    ],
  ];
  let sql = '';
  for (const [name, condition] of conditions) {
    const value = filters[name];
    if (value === undefined) continue;
    values.push(value);
    sql += `AND ${condition(`$${values.length}`)} `;
  }
  return sql;
}

interface PagedAlertRow extends RunAlertRow {
  run_id: string;
  total: number;
}

/** The runs with their first `limit` alerts (oldest first) and how many they have: one query for all of them. */
export async function withAlerts(db: Queryable, runs: RunRecord[], limit: number): Promise<RunRecord[]> {
  if (runs.length === 0) return runs;
  const { rows } = await db.query<PagedAlertRow>(
    `SELECT run_id, fingerprint, alertname, status, starts_at, ends_at, labels, received_at, repeats, total::int AS total FROM (
       SELECT *, row_number() OVER (PARTITION BY run_id ORDER BY seq) AS position, count(*) OVER (PARTITION BY run_id) AS total
       FROM run_alerts WHERE run_id = ANY($1::text[])
     ) AS numbered WHERE position <= $2 ORDER BY run_id, seq`,
    [runs.map((run) => run.id), limit],
  );
  const byRun = new Map<string, { alerts: RunAlert[]; count: number }>();
  for (const row of rows) {
    const entry = byRun.get(row.run_id) ?? { alerts: [], count: row.total };
    entry.alerts.push(toRunAlert(row));
    byRun.set(row.run_id, entry);
  }
  return runs.map((run) => {
    const entry = byRun.get(run.id);
    return { ...run, alerts: entry?.alerts ?? [], alertCount: entry?.count ?? 0 };
  });
}
