/**
 * The stores the service runs on, as one set handed to the app: runs (and their queue),
 * audit chains, the notification outbox, group-committed writes and retention. Two
 * backends implement them: SQLite, one file that one process owns (sqlite-stores.ts, the
 * embedded default), and PostgreSQL, one database that several replicas share
 * (postgres/stores.ts, chosen by `KUBEWHY_DATABASE_URL`). Every method is asynchronous,
 * because a PostgreSQL answer is a round trip; SQLite's answer before it returns.
 *
 * A shared database adds `shared`: the queue across replicas. Runs are claimed from the
 * database (FOR UPDATE SKIP LOCKED) rather than offered in memory, a claimed run is leased
 * to the replica that runs it and kept by its heartbeats, and a run whose lease ran out
 * (its replica was killed) is taken over by another.
 */
import type { ClusterIdentity } from '../cluster/kubeconfig.ts';
import type { AuditEvent, AuditEventType, ChainProblem } from '../audit/events.ts';
import type { SyncOutbox } from './outbox.ts';
import type { Retention, RetiredRun } from './retention.ts';
import type { RunRecord, SyncRunStore } from './run-store.ts';

/** The asynchronous form of a synchronous store: the same methods, answering promises. */
export type Async<T> = { [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : T[K] };

export type RunStore = Async<SyncRunStore>;
export type Outbox = Async<SyncOutbox>;

export interface AuditStore {
  append(input: { runId: string; type: AuditEventType; payload: Record<string, unknown>; time?: Date }): Promise<AuditEvent>;
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
  retention(input: { days: number; batchSize?: number; now?: () => Date; onRetired?(run: RetiredRun): void }): Retention;
  /** Present when several replicas share the database. */
  shared?: SharedQueue;
  /** A cheap query that fails when the database does (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
