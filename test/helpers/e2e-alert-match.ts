/**
 * Which fired alert is a scenario's trigger. A scenario's alert was captured from one
 * Prometheus setup and the rules fire it from another, so label sets differ (`job`,
 * `instance`, `uid`, `cluster`, the exporter's own `pod` on workload alerts): an alert
 * matches when it has the trigger's name and agrees on every label that names a
 * Kubernetes object (or a condition) which both carry, at least one of them besides the
 * namespace.
 */
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';

/** The labels that say what an alert is about: those the diagnosis engine reads, and the condition of condition alerts. */
export const IDENTIFYING_LABELS = [
  'namespace',
  'pod',
  'container',
  'deployment',
  'statefulset',
  'daemonset',
  'job_name',
  'cronjob',
  'horizontalpodautoscaler',
  'node',
  'persistentvolumeclaim',
  'service',
  'resourcequota',
  'condition',
] as const;

/** The kubernetes-mixin's alert names: a scenario alert among these must have a rule in deploy/prometheus. */
export const MIXIN_ALERT_NAMES = new Set([
  'KubePodCrashLooping',
  'KubePodNotReady',
  'KubeDeploymentGenerationMismatch',
  'KubeDeploymentReplicasMismatch',
  'KubeDeploymentRolloutStuck',
  'KubeStatefulSetReplicasMismatch',
  'KubeStatefulSetGenerationMismatch',
  'KubeStatefulSetUpdateNotRolledOut',
  'KubeDaemonSetRolloutStuck',
  'KubeContainerWaiting',
  'KubeDaemonSetNotScheduled',
  'KubeDaemonSetMisScheduled',
  'KubeJobNotCompleted',
  'KubeJobFailed',
  'KubeHpaReplicasMismatch',
  'KubeHpaMaxedOut',
  'KubePdbNotEnoughHealthyPods',
  'KubeNodeNotReady',
  'KubeNodePressure',
  'KubeNodeUnreachable',
  'KubeletTooManyPods',
  'KubeNodeReadinessFlapping',
  'KubeNodeEviction',
  'KubePersistentVolumeFillingUp',
  'KubePersistentVolumeInodesFillingUp',
  'KubePersistentVolumeErrors',
  'KubeCPUOvercommit',
  'KubeMemoryOvercommit',
  'KubeCPUQuotaOvercommit',
  'KubeMemoryQuotaOvercommit',
  'KubeQuotaAlmostFull',
  'KubeQuotaFullyUsed',
  'KubeQuotaExceeded',
  'CPUThrottlingHigh',
]);

export function matchesTrigger(alert: Record<string, string>, trigger: Record<string, string>): boolean {
  if (alert['alertname'] !== trigger['alertname']) return false;
  const shared = IDENTIFYING_LABELS.filter((label) => alert[label] !== undefined && trigger[label] !== undefined);
  return shared.some((label) => label !== 'namespace') && shared.every((label) => alert[label] === trigger[label]);
}

/** A label set's identity, whatever the order of its keys. */
export function labelKey(labels: Record<string, string>): string {
  return JSON.stringify(Object.entries(labels).sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0)));
}

/** `Name{label="value", ...}` with the object labels only, for messages. */
export function describeAlert(labels: Record<string, string>): string {
  const shown = IDENTIFYING_LABELS.filter((label) => labels[label] !== undefined).map(
    (label) => `${label}="${labels[label]}"`,
  );
  return `${labels['alertname'] ?? '?'}{${shown.join(', ')}}`;
}

/** The alert names a Prometheus rule file defines. */
export async function readAlertNames(file: string): Promise<string[]> {
  const document = parse(await readFile(file, 'utf8')) as { groups?: { rules?: { alert?: string }[] }[] };
  return (document.groups ?? []).flatMap((group) =>
    (group.rules ?? []).flatMap((rule) => (rule.alert ? [rule.alert] : [])),
  );
}
