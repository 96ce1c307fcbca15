/**
 * A stored run as the API shows it (`runViewSchema`). Internal fields (the queue's
 * sequence number) stay inside.
 */
import type { z } from 'zod';
import type { RunRecord } from '../store/run-store.ts';
import type { runViewSchema } from './schemas.ts';

export type RunView = z.infer<typeof runViewSchema>;

export function toRunView(run: RunRecord): RunView {
  return {
    id: run.id,
    status: run.status,
    source: run.source,
    trigger: run.trigger,
    rung: run.rung,
    ...(run.namespace !== undefined ? { namespace: run.namespace } : {}),
    ...(run.alert ? { alert: run.alert } : {}),
    createdAt: run.createdAt,
    ...(run.startedAt ? { startedAt: run.startedAt } : {}),
    ...(run.finishedAt ? { finishedAt: run.finishedAt } : {}),
    attempts: run.attempts,
    ...(run.diagnosis ? { diagnosis: run.diagnosis } : {}),
    ...(run.reason ? { reason: run.reason } : {}),
    ...(run.usage ? { usage: run.usage } : {}),
    ...(run.steps !== undefined ? { steps: run.steps } : {}),
    actions: run.actions,
  };
}
