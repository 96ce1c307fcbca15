/**
 * Reads an alert for `kubewhy diagnose --alert FILE`: JSON or YAML, either one alert
 * (`labels`, `annotations`) or an Alertmanager webhook payload (its first firing alert).
 */
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { z } from 'zod';
import type { AlertTrigger } from '../agent/trigger.ts';

const alertSchema = z.object({
  status: z.string().optional(),
  labels: z.record(z.string(), z.string()),
  annotations: z.record(z.string(), z.string()).default({}),
  startsAt: z.string().optional(),
  fingerprint: z.string().optional(),
});

const webhookSchema = z.object({ alerts: z.array(alertSchema).min(1) });

export async function readAlertFile(path: string): Promise<AlertTrigger> {
  const document: unknown = parse(await readFile(path, 'utf8'));
  const asWebhook = webhookSchema.safeParse(document);
  if (asWebhook.success) {
    const alert = asWebhook.data.alerts.find((candidate) => candidate.status !== 'resolved') ?? asWebhook.data.alerts[0]!;
    return toTrigger(alert);
  }
  const asAlert = alertSchema.safeParse(document);
  if (asAlert.success) return toTrigger(asAlert.data);
  throw new Error(`${path}: not an alert (labels, annotations) nor an Alertmanager webhook payload (alerts[]): ${asAlert.error.issues[0]?.message ?? 'unknown shape'}`);
}

function toTrigger(alert: z.infer<typeof alertSchema>): AlertTrigger {
  return {
    kind: 'alert',
    alert: {
      labels: alert.labels,
      annotations: alert.annotations,
      ...(alert.startsAt ? { startsAt: alert.startsAt } : {}),
      ...(alert.fingerprint ? { fingerprint: alert.fingerprint } : {}),
    },
  };
}
