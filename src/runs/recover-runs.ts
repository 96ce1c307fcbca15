/**
 * What a start does with the runs the last process left unfinished (a crash, `kill -9`,
 * or a shutdown that outlived its grace period):
 * - `queued`: queued again, in their original order (a decided parked run resumes then).
 * - `awaiting_approval` with a checkpoint (parked): left parked; its held actions wait
 *   for a decision as before, and the service expires those whose time ran out.
 * - `running` (or `awaiting_approval` without a checkpoint, as 0.1.0 left them) with no
 *   write that may have reached the cluster: started again, from its checkpoint when it
 *   was resuming from one, else from the beginning. Every read tool is idempotent, so
 *   the only cost is the work redone; an `error` event "resumed after restart" marks the
 *   seam in the audit log.
 * - the same, once an action was approved (so a write may have run): failed with a
 *   reason, never re-run, because a rollout undo or a scale must not happen twice.
 * - interrupted `maxAttempts` times already: failed, so a run that crashes the process
 *   cannot crash it forever.
 * - ended in its audit chain (its `run-finished` event is the chain's last) but not in
 *   the runs table (the process died between the two writes): ended as its chain says,
 *   with the diagnosis the chain holds, never run again.
 * An interrupted run whose `run-created` event is missing (the process died between
 * the claim and the append) gets it now, so every chain starts with it.
 */
import type { AuditStore } from '../audit/audit-store.ts';
import type { AuditEvent } from '../audit/events.ts';
import type { RunRecord, RunStore } from '../store/ports.ts';
import { createRunLifecycle, type EndRunInput, type RunLifecycle } from './lifecycle.ts';
import { ensureRunCreated } from './run-created.ts';

export interface RecoveryReport {
  /** Run ids to queue, oldest first. */
  queue: string[];
  resumed: string[];
  failed: { id: string; reason: string }[];
  /** Runs whose chain had ended: stored as ended, as the chain says. */
  ended: { id: string; status: 'completed' | 'failed' }[];
}

const WRITE_STARTED_STATUSES = new Set(['approved', 'executed', 'failed']);

export interface RecoveryInput {
  store: RunStore;
  audit: AuditStore;
  maxAttempts: number;
  /** Ends the runs recovery ends (default: one that stores and audits the end, without counting or telling it). */
  lifecycle?: RunLifecycle;
}

export async function recoverRuns(input: RecoveryInput): Promise<RecoveryReport> {
  const { store } = input;
  const report: RecoveryReport = { queue: [], resumed: [], failed: [], ended: [] };
  for (const run of await store.listUnfinished()) {
    if (run.status === 'queued') {
      report.queue.push(run.id);
      continue;
    }
    if (run.status === 'awaiting_approval' && run.parked) continue;
    const outcome = await recoverInterrupted(run, { ...input, cause: 'restart' });
    if (outcome.ended) report.ended.push({ id: run.id, status: outcome.ended });
    if (outcome.failed) report.failed.push({ id: run.id, reason: outcome.failed });
    if (outcome.requeued) {
      report.resumed.push(run.id);
      report.queue.push(run.id);
    }
  }
  return report;
}

/**
 * One interrupted run (running, or awaiting approval without a checkpoint): failed when a
 * write may have run or it was interrupted too often, else queued again. `cause` says
 * what interrupted it: this process's restart, or (several replicas) the replica that
 * held it stopped renewing its lease.
 */
export async function recoverInterrupted(
  run: RunRecord,
  input: RecoveryInput & { cause: 'restart' | 'lease' },
): Promise<{ failed?: string; requeued?: boolean; ended?: 'completed' | 'failed' }> {
  const { store, audit } = input;
  const lifecycle = input.lifecycle ?? createRunLifecycle({ store, audit });
  await ensureRunCreated(audit, run);
  const events = await audit.list(run.id);
  const ended = endedInChain(events);
  if (ended)
    return (await lifecycle.endRun({ run, cause: 'recovered', endedInChain: true, ...ended }))
      ? { ended: ended.status }
      : {};
  const reason = refusalToResume(run, events, input.maxAttempts, input.cause);
  if (reason) {
    await audit.append({ runId: run.id, type: 'error', payload: { message: reason } });
    return (await lifecycle.endRun({ run, cause: 'recovered', status: 'failed', reason, steps: run.steps ?? 0 }))
      ? { failed: reason }
      : {};
  }
  const seam =
    input.cause === 'restart'
      ? 'resumed after restart'
      : 'resumed on another replica: the replica that ran it stopped renewing its lease';
  await audit.append({
    runId: run.id,
    type: 'error',
    payload: {
      message: `${seam}: the interrupted attempt changed nothing in the cluster, so the run starts again ${run.parked ? 'from its checkpoint' : 'from the beginning'}`,
      attempt: run.attempts + 1,
    },
  });
  return { requeued: await store.requeue(run.id) };
}

function refusalToResume(
  run: RunRecord,
  events: readonly AuditEvent[],
  maxAttempts: number,
  cause: 'restart' | 'lease',
): string | undefined {
  const by = cause === 'restart' ? 'a restart' : 'the loss of its replica';
  const approved =
    events.some((event) => event.type === 'approval' && event.payload.decision === 'approved') ||
    run.actions.some((action) => WRITE_STARTED_STATUSES.has(action.status));
  if (approved) {
    return `interrupted by ${by} after a write action was approved; not started again, so that write cannot run twice (check its effect in the cluster)`;
  }
  if (run.attempts >= maxAttempts) {
    return `interrupted by a crash or restart ${run.attempts} times; not started again`;
  }
  return undefined;
}

/** The outcome a chain ends with, when its last event is `run-finished`: the attempt ended, and only storing it was lost. */
function endedInChain(
  events: readonly AuditEvent[],
): Pick<EndRunInput, 'status' | 'reason' | 'steps' | 'usage' | 'diagnosis'> | undefined {
  const last = events.at(-1);
  if (last?.type !== 'run-finished') return undefined;
  const { status, reason, steps, usage } = last.payload;
  const diagnosis = events.findLast((event) => event.type === 'diagnosis')?.payload.diagnosis;
  return {
    status: status === 'completed' ? 'completed' : 'failed',
    ...(typeof reason === 'string' ? { reason } : {}),
    ...(typeof steps === 'number' ? { steps } : {}),
    ...(usage && typeof usage === 'object' ? { usage: usage as NonNullable<RunRecord['usage']> } : {}),
    ...(diagnosis && typeof diagnosis === 'object'
      ? { diagnosis: diagnosis as NonNullable<RunRecord['diagnosis']> }
      : {}),
  };
}
