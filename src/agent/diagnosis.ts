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

export const ACTION_STATUSES = ['proposed', 'awaiting_approval', 'approved', 'executed', 'rejected', 'expired', 'failed'] as const;
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
});

export type Action = z.infer<typeof actionSchema>;

/** What the model submits. */
export const diagnosisInputSchema = z.object({
  category: z.enum(CATEGORIES).describe('The root-cause category'),
  culprit: culpritSchema.describe('The top-level failing workload (or the Service for service-no-endpoints, the Node for node-failure)'),
  summary: z.string().min(1).max(4000).describe('One paragraph a person on call can act on: what is wrong, since when, why'),
  evidence: z.array(z.string().min(1).max(1000)).min(1).max(20).describe('Facts quoted from tool output that prove the diagnosis'),
  confidence: z.enum(['high', 'medium', 'low']).describe('How sure the evidence makes you'),
});

export type DiagnosisInput = z.infer<typeof diagnosisInputSchema>;

export interface Diagnosis extends DiagnosisInput {
  actions: Action[];
}

/** `Kind/namespace/name`, or `Kind/name` for cluster-scoped objects: the form scenarios use. */
export function formatCulprit(culprit: Culprit): string {
  return culprit.namespace ? `${culprit.kind}/${culprit.namespace}/${culprit.name}` : `${culprit.kind}/${culprit.name}`;
}
