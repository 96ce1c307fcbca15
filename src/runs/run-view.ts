/**
 * A stored run as the API and the notifications show it (`runViewSchema`, published in
 * `/openapi.json`). Internal fields (the queue's sequence number) stay inside. What people
 * or the cluster wrote (the trigger, the diagnosis, the reason, the alerts' labels, actions'
 * arguments and results) passes the redactor on the way out.
 */
import { z } from 'zod';
import { actionSchema, diagnosisInputSchema } from '../agent/diagnosis.ts';
import { RUNGS } from '../gate/rung.ts';
import { redactText, redactValue } from '../redact/redactor.ts';
import { RUN_STATUSES, type RunRecord } from '../store/ports.ts';

const usageSchema = z.object({ input: z.number(), output: z.number(), cacheRead: z.number(), cacheWrite: z.number() });

const triggerSchema = z.union([
  z.object({
    kind: z.literal('alert'),
    alert: z.object({
      labels: z.record(z.string(), z.string()),
      annotations: z.record(z.string(), z.string()),
      startsAt: z.string().optional(),
      fingerprint: z.string().optional(),
      generatorURL: z.string().optional(),
    }),
  }),
  z.object({ kind: z.literal('incident'), text: z.string(), namespace: z.string().optional() }),
]);

export const runViewSchema = z.object({
  id: z.string(),
  status: z.enum(RUN_STATUSES),
  source: z.enum(['alertmanager', 'api']),
  trigger: triggerSchema,
  rung: z.enum(RUNGS),
  namespace: z.string().optional(),
  alert: z
    .object({
      fingerprint: z.string(),
      startsAt: z.string(),
      resolvedAt: z.string().optional(),
      repeats: z.number().int(),
    })
    .optional(),
  alerts: z
    .array(
      z.object({
        fingerprint: z.string(),
        alertname: z.string().optional(),
        status: z.enum(['firing', 'resolved']),
        startsAt: z.string(),
        endsAt: z.string().optional(),
        labels: z.record(z.string(), z.string()),
        receivedAt: z.string(),
        repeats: z.number().int(),
      }),
    )
    .optional()
    .describe(
      'The alerts of this incident, oldest first: the one that started the run and those correlated with it (all on GET /v1/runs/:id, the first 20 in a list)',
    ),
  alertCount: z.number().int().optional().describe('How many alerts the run has, listed or not'),
  createdAt: z.string(),
  startedAt: z.string().optional(),
  finishedAt: z.string().optional(),
  attempts: z.number().int(),
  cluster: z
    .object({
      source: z.enum(['kubeconfig', 'in-cluster', 'mock']),
      context: z.string().optional(),
      server: z.string(),
      files: z.array(z.string()).optional(),
      scenario: z.string().optional(),
    })
    .optional()
    .describe(
      'The cluster the run read: its kubeconfig context (or in-cluster, or the mock and its scenario) and API server',
    ),
  diagnosis: diagnosisInputSchema.extend({ actions: z.array(actionSchema) }).optional(),
  reason: z.string().optional(),
  usage: usageSchema.optional(),
  steps: z.number().int().optional(),
  actions: z
    .array(actionSchema)
    .describe('Actions the run proposed or holds; approve or reject the awaiting_approval ones'),
});

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
