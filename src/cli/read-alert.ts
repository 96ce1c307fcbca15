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

/** A file given to --alert that cannot be used: the message names it and says why. */
export class AlertFileError extends Error {
  override name = 'AlertFileError';
}

export async function readAlertFile(path: string): Promise<AlertTrigger> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new AlertFileError(
      `--alert ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a folder, not a file' : code === 'EACCES' ? 'permission denied' : error instanceof Error ? error.message : String(error)}`,
    );
  }
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    throw new AlertFileError(
      `--alert ${path}: neither JSON nor YAML: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
    );
  }
  const asWebhook = webhookSchema.safeParse(document);
  if (asWebhook.success) {
    const alert =
      asWebhook.data.alerts.find((candidate) => candidate.status !== 'resolved') ?? asWebhook.data.alerts[0]!;
    return toTrigger(alert);
  }
  const asAlert = alertSchema.safeParse(document);
  if (asAlert.success) return toTrigger(asAlert.data);
  throw new AlertFileError(
    `--alert ${path}: not an alert (labels, annotations) nor an Alertmanager webhook payload (alerts[]): ${asAlert.error.issues[0]?.message ?? 'unknown shape'}`,
  );
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
