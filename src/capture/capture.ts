/**
 * Takes a snapshot of one namespace through the cluster client: what the tools read (its
 * objects, Secrets as names and keys, events, the logs of pods in trouble, rollout history
 * as ReplicaSets and ControllerRevisions, the nodes, storage classes and volumes), each
 * object and log redacted, with the cluster's clock as `now` and an incident text written
 * from what is failing (or the one given). write-scenario.ts turns it into a folder.
 */
import type { ReadCluster } from '../cluster/cluster.ts';
import { CaptureError } from './capture-error.ts';
import type { CapturedObject } from './captured-object.ts';
import { findFailingPods } from './failing-pods.ts';
import { incidentText } from './incident-text.ts';
import { readLogs, type CapturedLog, type LogLimits } from './read-logs.ts';
import { readObjects } from './read-objects.ts';
import { sanitizeObject } from './sanitize.ts';
import { readSecrets } from './secrets.ts';

export interface CaptureOptions {
  namespace: string;
  /** How far back events reach, in ms. */
  sinceMs: number;
  /** The scenario's name (kebab-case). */
  name: string;
  /** The incident text; written from what is failing when absent. */
  incident?: string;
  /** Which cluster this is, for the description: `context prod (https://…)`. */
  source?: string;
  logLimits?: LogLimits;
}

export interface Snapshot {
  meta: { name: string; description: string; now: string; trigger: { incident: string } };
  objects: CapturedObject[];
  logs: CapturedLog[];
  /** What could not be read (a kind the client may not list, logs cut); said, never fatal. */
  warnings: string[];
}

/** The cluster's clock as scenario.yaml writes it: RFC 3339, whole seconds. */
export function formatNow(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export async function captureNamespace(cluster: ReadCluster, options: CaptureOptions): Promise<Snapshot> {
  const { namespace } = options;
  const found = await cluster.get('Namespace', { name: namespace });
  if (!found.ok && found.error.kind === 'not-found')
    throw new CaptureError(
      `namespace "${namespace}" does not exist in this cluster (kubectl get namespaces lists those that do)`,
    );
  if (!found.ok && found.error.kind !== 'forbidden')
    throw new CaptureError(`cannot read the cluster: ${found.error.message}`);
  const now = cluster.now();
  const read = await readObjects({
    cluster,
    namespace,
    now: now.getTime(),
    sinceMs: options.sinceMs,
    ...(found.ok ? { namespaceObject: found.value } : {}),
  });
  const secrets = await readSecrets(cluster, namespace);
  const troubles = findFailingPods(
    read.objects.filter((object) => object.kind === 'Pod' && object.metadata.namespace === namespace),
    { now: now.getTime(), sinceMs: options.sinceMs },
  );
  const logs = await readLogs(cluster, troubles, options.logLimits);
  // Secrets hold no value to redact (secrets.ts): they are written as read.
  const objects = [...read.objects.map(sanitizeObject), ...secrets.objects];
  const incident = options.incident ?? incidentText({ namespace, troubles, objects });
  const description = `Captured by kubewhy capture from namespace ${namespace}${options.source ? ` of ${options.source}` : ''} at ${formatNow(now)}: ${troubles.length} pod(s) in trouble, ${logs.logs.length} log(s).`;
  return {
    meta: { name: options.name, description, now: formatNow(now), trigger: { incident } },
    objects,
    logs: logs.logs,
    warnings: [...read.warnings, ...secrets.warnings, ...logs.warnings],
  };
}
