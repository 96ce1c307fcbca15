/**
 * Late correlation: when a run about a workload or a pod is claimed, the one link its
 * labels cannot show is looked up with one cluster read. Pods evicted from a node under
 * pressure, or stuck on a node that went NotReady, are alerted about one by one, each
 * with its own workload's labels and none with the node's; but they are the node's
 * incident. So the pods of the run (those its alerts name, else its workload's unhealthy
 * ones) are listed in their namespace, and when a node they run on has an open run, or one
 * completed within the dedup window (its key `node:<name>`, registered by the node's own
 * alert or by a run that diagnosed the node), the claimed run joins it instead of running.
 *
 * A pod whose container waits on its own spec (an image that cannot be pulled, a missing
 * Secret or ConfigMap key) is its own incident wherever it runs, and never joins a node's.
 * Runs about a workload or a pod are held a moment before they are started (see
 * `NODE_INCIDENT_HOLD_MS`), so that a node's alert sent in another notification of the
 * same moment has its run by then. Reading the cluster never happens at ingest.
 */
import type { V1Pod } from '@kubernetes/client-node';
import type { Trigger } from '../agent/trigger.ts';
import type { ReadCluster } from '../cluster/cluster.ts';
import type { RunRecord, RunStore } from '../store/ports.ts';
import { isRepeatOf } from './alert-intake.ts';
import { culpritOf, nodeCulpritKey, podOfAlert, workloadOfOwner } from './correlate.ts';

/**
 * How long a run about a workload or a pod waits before it is started: Alertmanager sends
 * a node's alerts in a group of their own (no namespace), flushed at the same moment as
 * its pods' groups but not in the same request.
 */
export const NODE_INCIDENT_HOLD_MS = 2_000;

/** The most pods of one namespace read to find a run's pods. */
const MAX_PODS_READ = 2_000;

/** Container waiting reasons that come from the pod's own spec: no node causes them. */
export const SELF_CAUSED_WAITING_REASONS: ReadonlySet<string> = new Set([
  'ErrImagePull',
  'ImagePullBackOff',
  'InvalidImageName',
  'CreateContainerConfigError',
  'CreateContainerError',
]);

/** True when a run of this trigger is about a workload or a pod: one that may turn out to be a node's incident. */
export function mayJoinNodeIncident(trigger: Trigger): boolean {
  if (trigger.kind !== 'alert') return false;
  const scope = culpritOf(trigger.alert.labels)?.scope;
  return scope === 'workload' || scope === 'pod';
}

export interface NodeIncident {
  /** The run of the node's incident. */
  runId: string;
  node: string;
  /** The run's pods on that node. */
  pods: string[];
}

/**
 * The open or recent run of a node the claimed run's pods are on, if any. One cluster read
 * (the pods of the run's namespace), only when some node has an open or recent run; a
 * failed read finds nothing (the run then runs).
 */
export async function findNodeIncident(
  run: RunRecord,
  input: { store: RunStore; cluster: ReadCluster; now: Date; dedupWindowMs: number; signal?: AbortSignal },
): Promise<NodeIncident | undefined> {
  if (run.trigger.kind !== 'alert') return undefined;
  const labels = run.trigger.alert.labels;
  const culprit = culpritOf(labels);
  if (!culprit?.namespace || (culprit.scope !== 'workload' && culprit.scope !== 'pod')) return undefined;
  // No node has an open or recent incident (the common case, and every alert of a storm about workloads): nothing to read.
  if (!(await input.store.hasNodeIncidentSince(new Date(input.now.getTime() - input.dedupWindowMs)))) return undefined;
  const listed = await input.cluster.list('Pod', {
    namespace: culprit.namespace,
    maxItems: MAX_PODS_READ,
    ...(input.signal ? { signal: input.signal } : {}),
  });
  if (!listed.ok) return undefined;
  const named = new Set(
    [labels, ...(run.alerts ?? []).map((alert) => alert.labels)].flatMap(
      (alertLabels) => podOfAlert(alertLabels) ?? [],
    ),
  );
  const pods = listed.value.items.filter((pod) =>
    named.size > 0 ? named.has(pod.metadata?.name ?? '') : ownedBy(pod, culprit.name) && isUnhealthy(pod),
  );
  const byNode = new Map<string, string[]>();
  for (const pod of pods) {
    const node = pod.spec?.nodeName;
    if (!node || waitsOnItsOwnSpec(pod)) continue;
    byNode.set(node, [...(byNode.get(node) ?? []), pod.metadata?.name ?? '']);
  }
  for (const [node, podsOnNode] of byNode) {
    const incident = await input.store.findByCulprit([nodeCulpritKey(node, labels)]);
    if (!incident || incident.id === run.id || incident.cancelled) continue;
    if (isRepeatOf(incident, { now: input.now, settings: { dedupWindowMs: input.dedupWindowMs } }))
      return { runId: incident.id, node, pods: podsOnNode };
  }
  return undefined;
}

/** The reason a run that joined a node's incident ends with. */
export function mergedReason(incident: NodeIncident): string {
  return `merged: its pods (${incident.pods.join(', ')}) are on node ${incident.node}, whose incident is run ${incident.runId}`;
}

function ownedBy(pod: V1Pod, workload: string): boolean {
  const owner =
    pod.metadata?.ownerReferences?.find((reference) => reference.controller) ?? pod.metadata?.ownerReferences?.[0];
  return owner !== undefined && workloadOfOwner(owner.kind, owner.name).name === workload;
}

/** Not running and ready: pending, failed (evicted), unknown, or running with a container not ready. */
function isUnhealthy(pod: V1Pod): boolean {
  const phase = pod.status?.phase;
  if (phase === 'Succeeded') return false;
  if (phase !== 'Running') return true;
  return (
    pod.status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status !== 'True') ?? false
  );
}

function waitsOnItsOwnSpec(pod: V1Pod): boolean {
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  return statuses.some((status) => SELF_CAUSED_WAITING_REASONS.has(status.state?.waiting?.reason ?? ''));
}
