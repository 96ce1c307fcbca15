/**
 * The stores' ports, in the service's own terms: what a run, an outbox row, an audit chain
 * and the queue across replicas are, and what the service may ask of them. Two backends
 * implement them: SQLite, one file that one process owns (sqlite-stores.ts, the embedded
 * default), and PostgreSQL, one database that several replicas share (postgres/stores.ts,
 * chosen by `KUBEWHY_DATABASE_URL`). Every method is asynchronous, because a PostgreSQL
 * answer is a round trip; SQLite answers before it returns (its classes implement `Sync<…>`
 * of these ports, and `asAsync` makes them these). Decisions both backends take (an
 * approval, a retry's back-off) are pure functions beside them (action-decision.ts).
 *
 * A shared database adds `shared`: the queue across replicas. Runs are claimed from the
 * database (FOR UPDATE SKIP LOCKED) rather than offered in memory, a claimed run is leased
 * to the replica that runs it and kept by its heartbeats, and a run whose lease ran out
 * (its replica was killed) is taken over by another.
 */
import type { Action, Diagnosis } from '../agent/diagnosis.ts';
import type { TokenUsage } from '../agent/model.ts';
import type { Trigger } from '../agent/trigger.ts';
import type { AuditEvent, AuditEventType, ChainProblem } from '../audit/events.ts';
import type { ClusterIdentity } from '../cluster/kubeconfig.ts';
import type { Rung } from '../gate/rung.ts';
import type { Retention, RetiredRun } from './retention.ts';

/** The asynchronous form of a synchronous store: the same methods, answering promises. */
export type Async<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : T[K];
};

/** The synchronous form of a port, as SQLite implements it: the same methods, answering at once. */
export type Sync<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R : T[K];
};

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
  /** A queued run waiting to be retried: not started before this time (ISO 8601). */
  notBefore?: string;
  /** A parked run: it awaits approval with a checkpoint to resume from (checkpointOf reads it). */
  parked?: boolean;
  /** The alerts attached to the run, oldest first (all of them from `get`, the first few from `list`). */
  alerts?: RunAlert[];
  /** How many alerts are attached, whether listed or not. */
  alertCount?: number;
  /** The cluster the run read (its context and API server), recorded when it starts. */
  cluster?: ClusterIdentity;
}

/** One alert firing (fingerprint and startsAt) attached to a run: the one that started it, or one correlated with it. */
export interface RunAlert {
  fingerprint: string;
  alertname?: string;
  status: 'firing' | 'resolved';
  startsAt: string;
  endsAt?: string;
  labels: Record<string, string>;
  receivedAt: string;
  repeats: number;
}

/** What `list` can narrow the runs to. */
export interface RunListFilters {
  status?: RunStatus;
  /** The run's namespace (its trigger's). */
  namespace?: string;
  /** The diagnosis category. */
  category?: string;
  /** The cluster the run read: its kubeconfig context, its API server, or the mock's scenario. */
  cluster?: string;
}

/** What deciding a held action did. */
export type ActionDecisionResult =
  | { outcome: 'decided'; run: RunRecord; action: Action; resumable: boolean }
  | { outcome: 'not-found' }
  | { outcome: 'not-pending'; status: string };

export interface AlertRunMatch {
  id: string;
  status: RunStatus;
  createdAt: string;
  finishedAt?: string;
  /** Failed runs of the same incident, one after another, just before this one. */
  earlierFailures: number;
  /** Ended because its alerts resolved before it started: neither a diagnosis nor a failure. */
  cancelled: boolean;
}

export interface RunStore {
  /** A new queued run; `notBefore` holds it back until then (a shared queue's hold: one process holds its runs in memory). */
  create(input: {
    id: string;
    trigger: Trigger;
    source: RunSource;
    rung: Rung;
    alert?: AlertKey;
    culpritKeys?: readonly string[];
    earlierFailures?: number;
    notBefore?: Date;
    now?: Date;
  }): Promise<RunRecord>;
  get(id: string): Promise<RunRecord | undefined>;
  /** Newest first; `before` is a previous page's `nextCursor`; each filter given narrows the list. */
  list(
    options: { limit: number; before?: number } & RunListFilters,
  ): Promise<{ runs: RunRecord[]; nextCursor?: number }>;
  /** The latest run started by this alert firing, if any: just what deduplication needs. */
  findByAlert(key: AlertKey): Promise<AlertRunMatch | undefined>;
  /** The latest run that answers for any of these culprit keys (correlate.ts), if any. */
  findByCulprit(culpritKeys: readonly string[]): Promise<AlertRunMatch | undefined>;
  /** Whether any run answers for a node (culprit keys `node:…`) that has not failed and is unfinished or ended at or after `since`. */
  hasNodeIncidentSince(since: Date): Promise<boolean>;
  /** Attaches an alert firing to a run; attaching it twice changes nothing. */
  attachAlert(input: { runId: string; alert: AlertKey; labels: Record<string, string>; now?: Date }): Promise<void>;
  /** The run answers for these culprit keys too (the latest run of each it did not answer for yet); one statement per key. */
  addCulpritKeys(runId: string, keys: readonly string[]): Promise<void>;
  /**
   * Ends a running run as part of another run's incident: completed, with `reason`, its
   * alerts attached to `into` and its culprit keys registered on `into` (so later alerts
   * find that run). False when the run was not running.
   */
  mergeInto(input: { id: string; into: string; reason: string; now?: Date }): Promise<boolean>;
  /** A run still queued gets another of its alerts as its trigger; false when it is no longer queued. */
  retargetQueued(id: string, input: { trigger: Trigger; alert: AlertKey }): Promise<boolean>;
  /** The attached alert was sent again, unchanged. */
  recordAlertRepeat(runId: string, alert: AlertKey): Promise<void>;
  /** The attached alert resolved; answers how many alerts of the run still fire. */
  recordAlertResolved(runId: string, alert: AlertKey, endsAt: string): Promise<number>;
  /** queued → running, counting the attempt and recording the cluster it reads; undefined when the run is not queued (cancelled, or claimed already). */
  /** `lease`: a shared database's lease (its holder and until when, ISO 8601); one process's database has none. */
  claim(
    id: string,
    options?: { now?: Date; cluster?: ClusterIdentity; lease?: { owner: string; until: string } },
  ): Promise<RunRecord | undefined>;
  /** running ⇄ awaiting_approval, with the run's current actions; no effect on a run that is not active. */
  updateProgress(
    id: string,
    input: { status: 'running' | 'awaiting_approval'; actions: readonly Action[] },
  ): Promise<void>;
  /** Ends an unfinished run; false when it had ended already. */
  finish(
    id: string,
    input: {
      status: 'completed' | 'failed';
      diagnosis?: Diagnosis;
      reason?: string;
      usage?: TokenUsage;
      steps?: number;
      actions?: readonly Action[];
      now?: Date;
    },
  ): Promise<boolean>;
  /** Ends a queued run without starting it; false when it is no longer queued. */
  cancelQueued(id: string, reason: string, now?: Date): Promise<boolean>;
  /** running or awaiting_approval → queued, to be started again. */
  requeue(id: string): Promise<boolean>;
  /** running → awaiting_approval with the checkpoint to resume from, and the diagnosis a person decides on; the run holds no worker meanwhile. */
  park(id: string, input: { checkpoint: string; actions: readonly Action[]; diagnosis?: Diagnosis }): Promise<boolean>;
  /** The stored checkpoint of a parked run. */
  checkpointOf(id: string): Promise<string | undefined>;
  /**
   * Records a person's decision (or an expiry) on a held action of a parked run; once no
   * action of the run awaits a decision, the run is queued again to resume.
   */
  decideAction(input: {
    runId: string;
    actionId: string;
    decision: 'approved' | 'rejected' | 'expired';
    by?: string;
    reason?: string;
    now?: Date;
  }): Promise<ActionDecisionResult>;
  /** Parked runs (awaiting approval with a checkpoint), oldest first. */
  listParked(): Promise<RunRecord[]>;
  /** running → queued, not to be started before `notBefore` (a retry after a failure that may pass). */
  retryLater(id: string, notBefore: Date): Promise<boolean>;
  recordResolved(id: string, resolvedAt: string): Promise<void>;
  recordRepeat(id: string): Promise<void>;
  /** Runs not yet ended (queued, running, awaiting approval), oldest first. */
  listUnfinished(): Promise<RunRecord[]>;
  /** A cheap query that fails when the database does. */
  ping(): Promise<void>;
}

export type OutboxStatus = 'pending' | 'sent' | 'failed';

export interface OutboxRow {
  id: number;
  deliveryId: string;
  runId: string;
  event: string;
  destination: string;
  body: unknown;
  status: OutboxStatus;
  attempts: number;
  nextAttemptAt: number;
  lastError?: string;
  createdAt: number;
  sentAt?: number;
}

export interface NewDelivery {
  destination: string;
  body: unknown;
}

export interface Outbox {
  /**
   * Records notice `key` of a run and queues one message per destination, in one
   * transaction; false (and nothing stored) when the run had that notice already.
   */
  enqueue(input: {
    runId: string;
    key: string;
    event: string;
    deliveries: readonly NewDelivery[];
    now: number;
  }): Promise<boolean>;
  /** Whether the run had notice `key` already. */
  hasNotice(runId: string, key: string): Promise<boolean>;
  /** When the first and the latest notices were recorded, if any ever was. */
  notedSpan(): Promise<{ first: number; last: number } | undefined>;
  /**
   * Pending rows due by `now`, oldest first, each leased until `leaseUntil` (its next
   * attempt pushed there) before it is returned. A row whose destination threads waits
   * while an older row of the same run and destination is pending: replies follow their
   * first message.
   */
  claimDue(input: {
    now: number;
    leaseUntil: number;
    limit: number;
    threaded: ReadonlySet<string>;
  }): Promise<OutboxRow[]>;
  /** Makes every leased row due now (at start: the process that leased them is gone); answers how many. */
  releaseLeases(now: number): Promise<number>;
  markSent(id: number, input: { now: number; thread?: string }): Promise<void>;
  /** A failed attempt to be tried again at `nextAttemptAt`. */
  markRetry(id: number, input: { nextAttemptAt: number; error: string }): Promise<void>;
  /** Given up: the receiver refused it for good, or it is past its age. */
  markFailed(id: number, input: { error: string; now: number }): Promise<void>;
  /** The receiver's id of the first message sent for a run to a destination (Slack's ts). */
  threadOf(runId: string, destination: string): Promise<string | undefined>;
  /** Pending rows per destination, and the creation time of the oldest. */
  pending(): Promise<{ destination: string; count: number; oldestCreatedAt: number }[]>;
  /** When the next pending row is due, if any. */
  nextDueAt(): Promise<number | undefined>;
  list(options?: { runId?: string; status?: OutboxStatus }): Promise<OutboxRow[]>;
}

export interface AuditStore {
  append(input: {
    runId: string;
    type: AuditEventType;
    payload: Record<string, unknown>;
    time?: Date;
  }): Promise<AuditEvent>;
  list(runId: string, options?: { afterSeq?: number; limit?: number }): Promise<AuditEvent[]>;
  runIds(): Promise<string[]>;
  /** The run's last event (seq and hash): log it elsewhere and the chain cannot be rewritten unseen. */
  head(runId: string): Promise<{ seq: number; hash: string } | undefined>;
  verify(runId?: string): Promise<{ runs: number; events: number; problems: ChainProblem[] }>;
}

/** What a batched write may touch: the runs, inside the batch's transaction. */
export interface TxStores {
  runs: RunStore;
}

export interface BatchedWork<T> {
  result: T;
  afterCommit?(): void;
  afterRollback?(): void;
}

/**
 * Group commit: the writes of the requests that arrive together share one transaction,
 * each in its own savepoint (a failing one is undone alone). A promise resolves only
 * after COMMIT; `afterCommit` runs once the data is durable, `afterRollback` once it is
 * certain it never will be.
 */
export interface WriteBatcher {
  run<T>(work: (tx: TxStores) => BatchedWork<T> | Promise<BatchedWork<T>>): Promise<T>;
}

/** The queue across replicas sharing one database. */
export interface SharedQueue {
  /** This replica's name: the owner of the leases it takes. */
  readonly owner: string;
  /** How long a claimed run stays this replica's without a heartbeat. */
  readonly leaseMs: number;
  /** The oldest due queued run, claimed (queued → running, attempt counted) and leased to `owner`; undefined when none is due. */
  claimNext(input: { now: Date; cluster?: ClusterIdentity }): Promise<RunRecord | undefined>;
  /** Extends the leases of these runs where `owner` still holds them; answers the ids it still holds. */
  heartbeat(ids: readonly string[], now: Date): Promise<string[]>;
  /** Running runs whose lease ran out, taken over by `owner` (leased to it) so that it alone recovers them. */
  takeExpired(now: Date): Promise<RunRecord[]>;
  /** Queued runs, due or not. */
  depth(): Promise<number>;
  /** Wakes the replicas waiting for work: runs were queued. */
  notifyQueued(): Promise<void>;
  /** Tells the replicas a run ended or parked (their callers waiting for it answer). */
  notifyEnded(runId: string): Promise<void>;
  /** Hears the notifications above, from every replica; resolves once listening, with a stop. */
  listen(handlers: { queued(): void; ended(runId: string): void }): Promise<{ stop(): Promise<void> }>;
}

export interface Stores {
  readonly kind: 'sqlite' | 'postgresql';
  /** Where the data is, for the log: the file, or the database URL without its password. */
  readonly location: string;
  runs: RunStore;
  audit: AuditStore;
  outbox: Outbox;
  writes: WriteBatcher;
  retention(input: {
    days: number;
    batchSize?: number;
    now?: () => Date;
    onRetired?(run: RetiredRun): void;
  }): Retention;
  /** Present when several replicas share the database. */
  shared?: SharedQueue;
  /** A cheap query that fails when the database does (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
