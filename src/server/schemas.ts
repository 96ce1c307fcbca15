/**
 * The HTTP API's shapes, as zod schemas: request bodies, params and queries (validated
 * by the zod type provider) and responses (serialised through them, and published in
 * `/openapi.json`).
 */
import { z } from 'zod';
import { CATEGORIES } from '../agent/diagnosis.ts';
import { RUNGS } from '../gate/rung.ts';
import { runViewSchema } from '../runs/run-view.ts';
import { RUN_STATUSES } from '../store/ports.ts';

const timeText = z
  .string()
  .max(64)
  .refine((text) => !Number.isNaN(Date.parse(text)), { message: 'expected an RFC 3339 time' });

const labelMap = z.record(z.string().max(1024), z.string().max(16_384));

/** One alert of an Alertmanager notification (webhook version 4). Unknown fields are accepted and ignored. */
export const alertmanagerAlertSchema = z.looseObject({
  status: z.enum(['firing', 'resolved']),
  labels: labelMap,
  annotations: labelMap.default({}),
  startsAt: timeText,
  endsAt: timeText.optional(),
  generatorURL: z.string().max(8192).optional(),
  fingerprint: z.string().max(256).optional(),
});

export const alertmanagerPayloadSchema = z
  .looseObject({
    version: z.literal('4').optional().describe('The webhook payload version; only 4 exists'),
    groupKey: z.string().optional(),
    truncatedAlerts: z.number().int().min(0).optional(),
    status: z.enum(['firing', 'resolved']).optional(),
    receiver: z.string().optional(),
    groupLabels: labelMap.optional(),
    commonLabels: labelMap.optional(),
    commonAnnotations: labelMap.optional(),
    externalURL: z.string().optional(),
    alerts: z.array(alertmanagerAlertSchema).max(10_000),
  })
  .describe('An Alertmanager webhook notification (version 4)');

export const alertResultSchema = z.object({
  fingerprint: z.string(),
  status: z.enum(['firing', 'resolved']),
  outcome: z
    .enum(['created', 'attached', 'duplicate', 'resolved', 'cancelled', 'unmatched', 'queue-full'])
    .describe(
      'created: a new run; attached: added to the open run of the same incident (workload, node...); duplicate: a repeat, or held back after its run failed; queue-full: the whole notification was refused',
    ),
  runId: z.string().optional(),
});

export const alertsAcceptedSchema = z.object({
  runs: z.array(alertResultSchema).describe('What each alert did, in the order sent'),
});

const namespaceName = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'expected a Kubernetes namespace name');

export const incidentBodySchema = z.strictObject({
  text: z
    .string()
    .trim()
    .min(1)
    .max(4000)
    .describe('What is wrong, in a sentence: "checkout-api in staging keeps restarting"'),
  namespace: namespaceName.optional().describe('The namespace the incident is about'),
  rung: z
    .enum(RUNGS)
    .default('OBSERVE')
    .describe(
      'OBSERVE: writes are only proposed. ACT: writes wait for approval where policy allows ACT; asking for it needs a token that also has the act scope',
    ),
});

export const incidentQuerySchema = z.object({
  wait: z.coerce
    .number()
    .int()
    .min(0)
    .max(600)
    .optional()
    .describe('Seconds to wait for the run to end; answered 200 with the run when it ends in time'),
});

export const runIdParamsSchema = z.object({ id: z.string().min(1).max(128) });

export const actionParamsSchema = z.object({ id: z.string().min(1).max(128), actionId: z.string().min(1).max(128) });

/** The name a person deciding gives (the API's `by`, the console's "Your name"). */
export const deciderNameSchema = z
  .string()
  .max(100)
  .regex(/^[\w .@+-]+$/, 'letters, digits, spaces and . @ + - _ only');

export const decisionBodySchema = z
  .strictObject({
    by: deciderNameSchema
      .optional()
      .describe('Who decides, as recorded in the audit log beside the token that was used'),
    reason: z.string().max(1000).optional(),
  })
  // A POST without a body arrives as null.
  .nullish();

export const runListQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.coerce.number().int().positive().optional().describe('The nextCursor of the previous page'),
  status: z.enum(RUN_STATUSES).optional(),
  namespace: z.string().min(1).max(253).optional().describe("Only runs about this namespace (the trigger's)"),
  category: z.enum(CATEGORIES).optional().describe('Only runs whose diagnosis has this category'),
  cluster: z
    .string()
    .min(1)
    .max(2048)
    .optional()
    .describe(
      "Only runs that read this cluster: its kubeconfig context, API server URL, or the mock cluster's scenario",
    ),
});

export const auditQuerySchema = z.object({
  format: z
    .enum(['json', 'ndjson'])
    .optional()
    .describe('ndjson: one event per line (also chosen by Accept: application/x-ndjson)'),
});

export { runViewSchema };

export const runListSchema = z.object({
  runs: z.array(runViewSchema),
  nextCursor: z.number().int().optional().describe('Pass as ?cursor= for the next page; absent on the last page'),
});

export const auditEventSchema = z.object({
  runId: z.string(),
  seq: z.number().int(),
  time: z.string(),
  type: z.string(),
  payload: z.record(z.string(), z.unknown()),
  prevHash: z.string(),
  hash: z.string(),
});

export const decisionResultSchema = z.object({
  runId: z.string(),
  actionId: z.string(),
  decision: z.enum(['approved', 'rejected']),
  by: z.string(),
  decidedAt: z.string(),
});

export const errorBodySchema = z.object({
  error: z.string().describe('A short machine-readable code'),
  message: z.string().describe('What is wrong, for a person'),
  details: z.unknown().optional(),
});

/** The error answers a route documents, all in the `{error, message, details?}` shape. */
export function errorResponses<const Codes extends readonly number[]>(
  codes: Codes,
): { [Code in Codes[number]]: typeof errorBodySchema } {
  return Object.fromEntries(codes.map((code) => [code, errorBodySchema])) as {
    [Code in Codes[number]]: typeof errorBodySchema;
  };
}
