/**
 * The `run-created` audit event opens every run's chain. Ingestion leaves it out of the
 * request path (see run-service.ts); it is appended, stamped with the run's creation
 * time, the first time anything else is about to be recorded for the run: when it
 * starts, is cancelled, or is failed at a restart.
 */
import type { AuditStore } from '../audit/audit-store.ts';
import type { RunRecord } from '../store/ports.ts';

export async function ensureRunCreated(audit: AuditStore, run: RunRecord): Promise<void> {
  if ((await audit.list(run.id, { limit: 1 })).length > 0) return;
  await audit.append({
    runId: run.id,
    type: 'run-created',
    payload: {
      trigger: run.trigger,
      rung: run.rung,
      source: run.source,
      ...(run.alert ? { fingerprint: run.alert.fingerprint, startsAt: run.alert.startsAt } : {}),
    },
    time: new Date(run.createdAt),
  });
}
