/**
 * The diagnosis: the structured answer every run ends with (DESIGN.md, "Runs and the
 * diagnosis"). `submit_diagnosis` takes `diagnosisInputSchema`; actions are added by the
 * gate, never written by the model.
 */
import { z } from 'zod';

export const CATEGORIES = [
  'oom-killed',
  'app-crash',
  'bad-credentials',
  'dependency-unreachable',
  'image-pull',
  'missing-secret',
  'missing-configmap',
  'probe-failure',
  'unschedulable-resources',
  'unschedulable-placement',
  'pvc-unbound',
  'quota-exceeded',
  'service-no-endpoints',
  'node-failure',
  'init-failure',
  'no-issue',
] as const;

export type Category = (typeof CATEGORIES)[number];

export const culpritSchema = z.object({
  kind: z.string().min(1).describe('Deployment, StatefulSet, DaemonSet, Job, CronJob, Pod, Service or Node'),
  namespace: z.string().min(1).optional().describe('Omitted for cluster-scoped kinds (Node)'),
  name: z.string().min(1).describe('The object name'),
});

export type Culprit = z.infer<typeof culpritSchema>;

/** Something the alert or the person named that the cluster does not have. */
export const notFoundSchema = z.object({
  kind: z
    .string()
    .min(1)
    .describe(
      'The kind the alert or words gave it (Namespace, Node, Deployment, Pod...), or Workload when they gave none',
    ),
  namespace: z.string().min(1).optional().describe('Where it was looked for; omitted for cluster-scoped kinds'),
  name: z.string().min(1).describe('The name as it was given'),
});

export type NotFound = z.infer<typeof notFoundSchema>;

export const ACTION_STATUSES = [
  'proposed',
  'awaiting_approval',
  'approved',
  'executed',
  'rejected',
  'expired',
  'failed',
] as const;
export type ActionStatus = (typeof ACTION_STATUSES)[number];

export const actionSchema = z.object({
  id: z.string(),
  tool: z.string(),
  args: z.record(z.string(), z.unknown()),
  risk: z.enum(['read', 'write', 'destructive']),
  status: z.enum(ACTION_STATUSES),
  reason: z.string().optional(),
  result: z.string().optional(),
  /** A held action: when it expires without a decision (ISO 8601). */
  expiresAt: z.string().optional(),
  /** A decided action: who decided (the token's identity, and the name they gave) and when. */
  decidedBy: z.string().optional(),
  decidedAt: z.string().optional(),
  /** A decided action: the reason the person gave, or why it expired (`reason` keeps why it was asked for). */
  decisionReason: z.string().optional().describe('The reason the person who decided gave, or why the action expired'),
  /** A held action: what the server-side dry run says it would change, one readable line each. */
  diff: z
    .array(z.string())
    .optional()
    .describe(
      "What the server-side dry run says the action would change, one line each (old → new); a secret's value never appears",
    ),
});

export type Action = z.infer<typeof actionSchema>;

/** What the model submits. */
export const diagnosisInputSchema = z.object({
  category: z.enum(CATEGORIES).describe('The root-cause category'),
  culprit: culpritSchema
    .optional()
    .describe(
      'The top-level failing workload (or the Service for service-no-endpoints, the Node for node-failure); for no-issue, what the alert or person asked about. ' +
        'When what they named does not exist, the object as they named it (and list it in notFound). Omit it only when nothing was found to name, or what was named cannot be named in full (a workload in no namespace).',
    ),
  summary: z
    .string()
    .min(1)
    .max(4000)
    .describe('One paragraph a person on call can act on: what is wrong, since when, why'),
  evidence: z
    .array(z.string().min(1).max(1000))
    .min(1)
    .max(20)
    .describe('Facts quoted from tool output that prove the diagnosis'),
  confidence: z.enum(['high', 'medium', 'low']).describe('How sure the evidence makes you'),
  notFound: z
    .array(notFoundSchema)
    .max(10)
    .optional()
    .describe(
      'What the alert or person named that the cluster does not have (a namespace, node, workload or pod): say so instead of diagnosing something else',
    ),
});

export type DiagnosisInput = z.infer<typeof diagnosisInputSchema>;

export interface Diagnosis extends DiagnosisInput {
  actions: Action[];
}

/** What `formatCulprit` writes for a diagnosis that names no culprit. */
export const NO_CULPRIT = 'none';

/** `Kind/namespace/name`, or `Kind/name` for cluster-scoped objects: the form scenarios use; `none` when there is no culprit. */
export function formatCulprit(culprit: Culprit | undefined): string {
  if (!culprit) return NO_CULPRIT;
  return culprit.namespace ? `${culprit.kind}/${culprit.namespace}/${culprit.name}` : `${culprit.kind}/${culprit.name}`;
}
