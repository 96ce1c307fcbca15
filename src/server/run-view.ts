/**
 * A stored run as the API shows it (`runViewSchema`). Internal fields (the queue's
 * sequence number) stay inside. What people or the cluster wrote (the trigger, the
 * diagnosis, the reason, the alerts' labels, actions' arguments and results) passes the redactor
 * on the way out.
 */
import type { z } from 'zod';
import { redactText, redactValue } from '../redact/redactor.ts';
import type { RunRecord } from '../store/run-store.ts';
import type { runViewSchema } from './schemas.ts';

export type RunView = z.infer<typeof runViewSchema>;

export function toRunView(run: RunRecord): RunView {
  return {
    id: run.id,
    status: run.status,
    source: run.source,
    trigger: redactValue(run.trigger),
    rung: run.rung,
    ...(run.namespace !== undefined ? { namespace: run.namespace } : {}),
    ...(run.alert ? { alert: run.alert } : {}),
    ...(run.alerts ? { alerts: redactValue(run.alerts) } : {}),
    ...(run.alertCount !== undefined ? { alertCount: run.alertCount } : {}),
    createdAt: run.createdAt,
    ...(run.startedAt ? { startedAt: run.startedAt } : {}),
    ...(run.finishedAt ? { finishedAt: run.finishedAt } : {}),
    attempts: run.attempts,
    ...(run.cluster ? { cluster: run.cluster } : {}),
    // The run's actions are the current ones: a decision made while the run is parked shows in its diagnosis too.
    ...(run.diagnosis ? { diagnosis: redactValue({ ...run.diagnosis, actions: run.actions }) } : {}),
    ...(run.reason ? { reason: redactText(run.reason) } : {}),
    ...(run.usage ? { usage: run.usage } : {}),
    ...(run.steps !== undefined ? { steps: run.steps } : {}),
    actions: redactValue(run.actions),
  };
}
