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
 * An interrupted run whose `run-created` event is missing (the process died between
 * the claim and the append) gets it now, so every chain starts with it.
 */
import type { AuditStore } from '../audit/audit-store.ts';
import type { RunRecord, RunStore } from '../store/run-store.ts';
import { ensureRunCreated } from './run-created.ts';

export interface RecoveryReport {
  /** Run ids to queue, oldest first. */
  queue: string[];
  resumed: string[];
  failed: { id: string; reason: string }[];
}

const WRITE_STARTED_STATUSES = new Set(['approved', 'executed', 'failed']);

export function recoverRuns(input: { store: RunStore; audit: AuditStore; maxAttempts: number }): RecoveryReport {
  const { store, audit } = input;
  const report: RecoveryReport = { queue: [], resumed: [], failed: [] };
  for (const run of store.listUnfinished()) {
    if (run.status === 'queued') {
      report.queue.push(run.id);
      continue;
    }
    if (run.status === 'awaiting_approval' && run.parked) continue;
    ensureRunCreated(audit, run);
    const events = audit.list(run.id);
    const reason = refusalToResume(run, events, input.maxAttempts);
    if (reason) {
      audit.append({ runId: run.id, type: 'error', payload: { message: reason } });
      audit.append({ runId: run.id, type: 'run-finished', payload: { status: 'failed', reason, steps: run.steps ?? 0 } });
      if (store.finish(run.id, { status: 'failed', reason })) report.failed.push({ id: run.id, reason });
      continue;
    }
    audit.append({
      runId: run.id,
      type: 'error',
      payload: {
        message: `resumed after restart: the interrupted attempt changed nothing in the cluster, so the run starts again ${run.parked ? 'from its checkpoint' : 'from the beginning'}`,
        attempt: run.attempts + 1,
      },
    });
    if (store.requeue(run.id)) {
      report.resumed.push(run.id);
      report.queue.push(run.id);
    }
  }
  return report;
}

function refusalToResume(run: RunRecord, events: ReturnType<AuditStore['list']>, maxAttempts: number): string | undefined {
  const approved = events.some((event) => event.type === 'approval' && event.payload.decision === 'approved') || run.actions.some((action) => WRITE_STARTED_STATUSES.has(action.status));
  if (approved) {
    return 'interrupted by a restart after a write action was approved; not started again, so that write cannot run twice (check its effect in the cluster)';
  }
  if (run.attempts >= maxAttempts) {
    return `interrupted by a crash or restart ${run.attempts} times; not started again`;
  }
  return undefined;
}
