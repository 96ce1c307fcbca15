/**
 * Which incident an alert belongs to, from its labels alone (ingestion is the hot path:
 * the cluster is never asked). Alerts about one workload are one incident: the pods of a
 * Deployment crash-looping, its replicas mismatch and its rollout stuck all point at
 * `Deployment shop/cart`, so they share one run. A pod is traced to the workload that
 * owns it through the owner labels kube-state-metrics exports, or else through the shape
 * of its name; an alert about no workload correlates on its own subject (a node, a
 * volume claim, a Service, a quota), and an alert about nothing in particular (a
 * cluster-wide overcommit, Watchdog) correlates with nothing.
 *
 * The key is `<scope>:<namespace>/<name>`, with ` cluster=<value>` when the alert has a
 * `cluster` label (alerts from two clusters are never one incident). Workloads share one
 * scope whatever their kind, because a pod's name cannot always tell a DaemonSet's pod
 * from a Job's: both key on the name with the generated suffix stripped.
 *
 * Some subjects also answer for the workloads they most likely belong to, by the names
 * Kubernetes and charts give them (a guess, since the cluster is not asked): a volume
 * claim `<template>-<statefulset>-<ordinal>` for the StatefulSet (every dash-suffix of
 * the stripped name is a candidate), and a Service `<workload>` or `<workload>-headless`
 * (-metrics, -management...) for that workload. Such a run is found by those keys too.
 * A claim without an ordinal (a Deployment's, `<workload>-data`) answers for the names
 * its dash-prefixes spell.
 *
 * A quota alert looks further: a full quota stops a workload from creating pods, which
 * its workload-level alerts (replicas mismatched, rollout stuck, a Job failed) show; so a
 * run started by such an alert also answers for `namespace:<namespace>`, and a quota
 * alert of that namespace joins it (`findKeys`). Pod alerts never register that key (a
 * full quota does not crash a running pod), nor an autoscaler's (maxed out, it runs every
 * replica it may).
 */
import { subjectLabels } from '../agent/offline/alert-subject.ts';

export type CulpritScope = 'workload' | 'pod' | 'node' | 'pvc' | 'service' | 'quota';

export interface Culprit {
  /** What alerts are correlated on: equal keys, one incident. */
  key: string;
  /** `key`, then the keys of the workloads the subject likely belongs to: a run started by this alert answers for them all. */
  keys: string[];
  /** The keys this alert finds its incident's run by: `keys`, and for a quota its namespace's workload-level runs. */
  findKeys: string[];
  /** For a workload's alert that says it is short of pods, `namespace:<namespace>`: what a quota alert of its namespace finds its run by. */
  namespaceKey?: string;
  scope: CulpritScope;
  /** The kind as far as the labels tell: `DaemonSet or Job` when a pod name cannot decide. */
  kind: string;
  namespace?: string;
  name: string;
  /** The rule that named it (a row id below), for logs and tests. */
  rule: string;
  /**
   * How broadly the alert sees its incident: 2 when its labels name the workload itself
   * (KubeDeploymentReplicasMismatch), 1 when they name one of its pods, 0 otherwise. The
   * broadest alert of a notification makes the better trigger for the incident's run.
   */
  breadth: number;
  /** For a CronJob's Job or pod: the Job's scheduled minute. Of two alerts as broad, the latest Job's speaks for the CronJob. */
  scheduledMinute?: number;
}

const WORKLOAD_RULES = new Set([
  'deployment',
  'statefulset',
  'daemonset',
  'cronjob',
  'job',
  'replicaset',
  'autoscaler',
]);
/**
 * The workload-level alerts a full quota can cause: a workload short of the pods it asks
 * for. Not an autoscaler's: one maxed out runs every replica it may have.
 */
const SHORT_OF_PODS_RULES = new Set(['deployment', 'statefulset', 'daemonset', 'cronjob', 'job', 'replicaset']);

/**
 * The generated parts of Kubernetes names. ReplicaSet hashes and pod suffixes use the
 * apimachinery "safe" alphabet (no vowels, no 0, 1 or 3), which is what keeps a
 * Deployment's pod from reading as a name that merely has three parts.
 */
const SAFE = '[bcdfghjklmnpqrstvwxz2456789]';
const POD_SUFFIX = `${SAFE}{5}`;
const REPLICASET_HASH = `${SAFE}{6,10}`;
/** A CronJob's Job is named `<cronjob>-<scheduled time in minutes since the epoch>`. */
const CRONJOB_TIME = '\\d{8,}';
/** A StatefulSet's ordinal: no leading zero, and no StatefulSet has 10,000 replicas. */
const ORDINAL = '(?:0|[1-9]\\d{0,3})';

interface NameShape {
  id: string;
  /** What the shape means, and why it sits where it does in the list. */
  meaning: string;
  pattern: RegExp;
  kind: string;
  examples: { matches: string[]; base: string[]; notMatches: string[] };
}

/**
 * Pod name shapes, tried in order; the first match names the workload (capture group 1).
 * A name that matches none is a bare or static pod, and keys on itself.
 */
export const POD_NAME_SHAPES: readonly NameShape[] = [
  {
    id: 'cronjob-pod',
    meaning:
      "a CronJob's pod: <cronjob>-<minutes>-<suffix>; first, because an all-digit time could pass for a ReplicaSet hash",
    pattern: new RegExp(`^(.+)-${CRONJOB_TIME}-${POD_SUFFIX}$`),
    kind: 'CronJob',
    examples: {
      matches: ['nightly-load-29906400-8kq2x'],
      base: ['nightly-load'],
      notMatches: ['nightly-load-8kq2x', 'cart-6f58f6bfb9-mjcbt'],
    },
  },
  {
    id: 'deployment-pod',
    meaning: "a Deployment's pod: <deployment>-<ReplicaSet hash, 6 to 10>-<suffix, 5>",
    pattern: new RegExp(`^(.+)-${REPLICASET_HASH}-${POD_SUFFIX}$`),
    kind: 'Deployment',
    examples: {
      matches: ['checkout-api-7d9f8c6b5-x2k4q', 'accounts-service-8w8nt5jwkf-fm487', 'search-api-5f8b6d7c9-k7x2p'],
      base: ['checkout-api', 'accounts-service', 'search-api'],
      notMatches: ['fluent-bit-b4hlt', 'events-mongo-0', 'node-exporter-abcde-x2k4q'],
    },
  },
  {
    id: 'statefulset-pod',
    meaning: "a StatefulSet's pod: <statefulset>-<ordinal>",
    pattern: new RegExp(`^(.+)-${ORDINAL}$`),
    kind: 'StatefulSet',
    examples: {
      matches: ['events-mongo-0', 'opensearch-12'],
      base: ['events-mongo', 'opensearch'],
      notMatches: ['reindex-manual-0412', 'web-12345'],
    },
  },
  {
    id: 'daemonset-or-job-pod',
    meaning:
      "a DaemonSet's or a Job's pod: <name>-<suffix, 5>; the name alone cannot tell which (ambiguous), so the key is the stripped name",
    pattern: new RegExp(`^(.+)-${POD_SUFFIX}$`),
    kind: 'DaemonSet or Job',
    examples: {
      matches: ['fluent-bit-b4hlt', 'db-migrate-x7k2p'],
      base: ['fluent-bit', 'db-migrate'],
      notMatches: ['opensearch-1', 'kube-apiserver-control-plane'],
    },
  },
];

interface OwnerShape {
  kind: string;
  pattern: RegExp;
}

/** An owner of a pod that is itself owned: a ReplicaSet by its Deployment, a Job by its CronJob. */
const OWNED_OWNERS: Record<string, OwnerShape> = {
  ReplicaSet: { kind: 'Deployment', pattern: new RegExp(`^(.+)-${REPLICASET_HASH}$`) },
  Job: { kind: 'CronJob', pattern: new RegExp(`^(.+)-${CRONJOB_TIME}$`) },
};

/** The workload an owner reference points at: a ReplicaSet's Deployment, a CronJob's Job, or the owner itself. */
export function workloadOfOwner(kind: string, name: string): { kind: string; name: string } {
  const owned = OWNED_OWNERS[kind];
  const match = owned?.pattern.exec(name);
  return owned && match?.[1] ? { kind: owned.kind, name: match[1] } : { kind, name };
}

/** The workload a pod's name points at, or the pod itself when the name has no known shape. */
export function workloadOfPodName(pod: string): { kind: string; name: string; rule: string } {
  for (const shape of POD_NAME_SHAPES) {
    const match = shape.pattern.exec(pod);
    if (match?.[1]) return { kind: shape.kind, name: match[1], rule: shape.id };
  }
  return { kind: 'Pod', name: pod, rule: 'bare-pod' };
}

interface LabelRule {
  id: string;
  /** What the label names; rows are tried in order, the owning workload before the pod, the pod before its node. */
  meaning: string;
  scope: CulpritScope;
  namespaced: boolean;
  /** The kind and name the labels give, or undefined when this row does not apply. */
  read(labels: Readonly<Record<string, string>>): { kind: string; name: string; rule?: string } | undefined;
}

const ownerFrom =
  (kindLabel: string, nameLabel: string) =>
  (labels: Readonly<Record<string, string>>): { kind: string; name: string } | undefined => {
    const kind = labels[kindLabel];
    const name = labels[nameLabel];
    // `<none>` is what kube-state-metrics says for a pod nothing owns.
    if (!kind || !name || kind === '<none>' || name === '<none>' || kind === 'Node') return undefined;
    return workloadOfOwner(kind, name);
  };

const named =
  (label: string, kind: string) =>
  (labels: Readonly<Record<string, string>>): { kind: string; name: string } | undefined =>
    labels[label] ? { kind, name: labels[label] } : undefined;

/** The labels that name what an alert is about, most decisive first. */
export const LABEL_RULES: readonly LabelRule[] = [
  {
    id: 'owner',
    meaning: 'kube_pod_owner: owner_kind and owner_name',
    scope: 'workload',
    namespaced: true,
    read: ownerFrom('owner_kind', 'owner_name'),
  },
  {
    id: 'created-by',
    meaning: 'kube_pod_info: created_by_kind and created_by_name',
    scope: 'workload',
    namespaced: true,
    read: ownerFrom('created_by_kind', 'created_by_name'),
  },
  {
    id: 'deployment',
    meaning: 'kube_deployment_*',
    scope: 'workload',
    namespaced: true,
    read: named('deployment', 'Deployment'),
  },
  {
    id: 'statefulset',
    meaning: 'kube_statefulset_*',
    scope: 'workload',
    namespaced: true,
    read: named('statefulset', 'StatefulSet'),
  },
  {
    id: 'daemonset',
    meaning: 'kube_daemonset_*',
    scope: 'workload',
    namespaced: true,
    read: named('daemonset', 'DaemonSet'),
  },
  { id: 'cronjob', meaning: 'kube_cronjob_*', scope: 'workload', namespaced: true, read: named('cronjob', 'CronJob') },
  {
    id: 'job',
    meaning: "kube_job_*: `job_name` (`job` is the scrape job); a CronJob's Job keys on its CronJob",
    scope: 'workload',
    namespaced: true,
    read: (labels) => (labels.job_name ? workloadOfOwner('Job', labels.job_name) : undefined),
  },
  {
    id: 'replicaset',
    meaning: "kube_replicaset_*: the ReplicaSet's Deployment",
    scope: 'workload',
    namespaced: true,
    read: (labels) => (labels.replicaset ? workloadOfOwner('ReplicaSet', labels.replicaset) : undefined),
  },
  {
    id: 'autoscaler',
    meaning:
      'kube_horizontalpodautoscaler_*: keyed as the workload of the same name, which is what `kubectl autoscale` names it',
    scope: 'workload',
    namespaced: true,
    read: named('horizontalpodautoscaler', 'HorizontalPodAutoscaler'),
  },
  {
    id: 'pod',
    meaning: "a pod: the workload its name's shape points at",
    scope: 'workload',
    namespaced: true,
    read: (labels) => (labels.pod ? workloadOfPodName(labels.pod) : undefined),
  },
  {
    id: 'pvc',
    meaning: 'a PersistentVolumeClaim',
    scope: 'pvc',
    namespaced: true,
    read: named('persistentvolumeclaim', 'PersistentVolumeClaim'),
  },
  {
    id: 'node',
    meaning: 'a node, for alerts that name no workload',
    scope: 'node',
    namespaced: false,
    read: named('node', 'Node'),
  },
  {
    id: 'service',
    meaning: "a Service (not an exporter's own)",
    scope: 'service',
    namespaced: true,
    read: named('service', 'Service'),
  },
  {
    id: 'quota',
    meaning: 'a ResourceQuota',
    scope: 'quota',
    namespaced: true,
    read: named('resourcequota', 'ResourceQuota'),
  },
];

/** The labels read above, which an `exported_` variant overrides (the object's own when Prometheus kept the target's). */
const READ_LABELS = [
  'owner_kind',
  'owner_name',
  'created_by_kind',
  'created_by_name',
  'deployment',
  'statefulset',
  'daemonset',
  'cronjob',
  'job_name',
  'replicaset',
  'horizontalpodautoscaler',
  'persistentvolumeclaim',
  'resourcequota',
];

/** The scheduled minute in the name of a CronJob's Job (`<cronjob>-<minutes>`), from its job_name or its pod. */
function scheduledMinuteOf(kind: string, labels: Readonly<Record<string, string>>): { scheduledMinute?: number } {
  if (kind !== 'CronJob') return {};
  const name = labels.job_name ?? labels.owner_name ?? labels.created_by_name ?? labels.pod ?? '';
  const match = new RegExp(`-(${CRONJOB_TIME})(?:-${POD_SUFFIX})?$`).exec(name);
  return match?.[1] ? { scheduledMinute: Number(match[1]) } : {};
}

/** The suffixes charts give a workload's extra Services. */
const SERVICE_SUFFIXES =
  /-(headless|hl|metrics|management|mgmt|svc|service|internal|external|lb|http|https|grpc|admin|client|peer|cluster|console|ui|dashboard)$/;

interface WellKnownService {
  namespace: string;
  service: string;
  workloads: string[];
  /** Where the name comes from, and why it holds in any cluster. */
  reason: string;
}

/** Services whose name is a convention that does not spell their workload's. */
export const WELL_KNOWN_SERVICES: readonly WellKnownService[] = [
  {
    namespace: 'kube-system',
    service: 'kube-dns',
    workloads: ['coredns', 'kube-dns'],
    reason:
      'the cluster DNS Service keeps the name kube-dns for compatibility whether CoreDNS (kubeadm, EKS, AKS) or kube-dns (GKE) serves it',
  },
];

/** A StatefulSet's claims, `<template>-<statefulset>-<ordinal>`, as one set: the name without its ordinal. */
function claimSetOf(claim: string): string {
  const match = new RegExp(`^(.+)-${ORDINAL}$`).exec(claim);
  return match?.[1] ?? claim;
}

/** The workload names a claim or a Service most likely belongs to. */
export function relatedWorkloads(scope: CulpritScope, name: string, namespace?: string): string[] {
  if (scope === 'service') {
    const known = WELL_KNOWN_SERVICES.find((row) => row.namespace === namespace && row.service === name);
    if (known) return known.workloads;
    const stripped = name.replace(SERVICE_SUFFIXES, '');
    return stripped === name ? [name] : [name, stripped];
  }
  if (scope === 'pvc') {
    const set = claimSetOf(name);
    const parts = set.split('-');
    // A claim of no StatefulSet (no ordinal) is named after its workload, then what it holds: the name and its dash-prefixes.
    if (set === name) return parts.map((_, index) => parts.slice(0, parts.length - index).join('-'));
    // The template name comes first and is not empty: every proper dash-suffix may be the StatefulSet.
    return parts.slice(1).map((_, index) => parts.slice(index + 1).join('-'));
  }
  return [];
}

/**
 * The alert labels correlation reads: the object's own (`exported_*`) over the scrape
 * target's, and without the scrape target's own pod. Unlike the diagnosis engine's
 * reading, a pod is the exporter's only when it is kube-state-metrics' or the operator's,
 * or when the scrape job names it: a DaemonSet named node-exporter, or a container named
 * exporter, is still the subject of the pod alerts kube-state-metrics makes of it.
 */
function correlationSubject(labels: Readonly<Record<string, string>>): Record<string, string> {
  const subject = subjectLabels({ ...labels });
  const pod = labels.exported_pod ?? labels.pod;
  if (pod && !subject.pod && !isScrapeTargetPod(pod, labels)) {
    subject.pod = pod;
    const container = labels.exported_container ?? labels.container;
    if (container) subject.container = container;
  }
  for (const label of READ_LABELS) {
    const exported = labels[`exported_${label}`];
    if (exported) subject[label] = exported;
  }
  return subject;
}

/** The pod an alert is about, as correlation reads it (not the scrape target's own); undefined when it names none. */
export function podOfAlert(labels: Readonly<Record<string, string>>): string | undefined {
  return correlationSubject(labels).pod || undefined;
}

const OBJECT_METRICS_EXPORTERS = /kube-state-metrics|prometheus-operator/;

/** The scrape job names its target: `node-exporter` for a chart's `<release>-prometheus-node-exporter` pods, or their container. */
function isScrapeTargetPod(pod: string, labels: Readonly<Record<string, string>>): boolean {
  if (labels.exported_pod) return false;
  if (OBJECT_METRICS_EXPORTERS.test(pod)) return true;
  const job = labels.job;
  if (!job) return false;
  const workload = workloadOfPodName(pod).name;
  return workload === job || workload.endsWith(`-${job}`) || (labels.container ?? '') === job;
}

/** Scopes whose alerts a notification takes after the others: a quota alert joins the workload-level run its namespace's alerts start. */
export function takeOrderOf(culprit: Culprit | undefined): number {
  return culprit?.scope === 'quota' ? 1 : 0;
}

const clusterSuffix = (labels: Readonly<Record<string, string>>): string =>
  labels.cluster ? ` cluster=${labels.cluster}` : '';

/** The key of a node's incident, in the cluster the alert with these labels came from. */
export function nodeCulpritKey(node: string, labels: Readonly<Record<string, string>>): string {
  return `node:${node}${clusterSuffix(labels)}`;
}

/** The key of a workload's incident (a ReplicaSet's Deployment, a CronJob's Job climbed to the top), in the alert's cluster. */
export function workloadCulpritKey(
  workload: { kind: string; namespace: string; name: string },
  labels: Readonly<Record<string, string>>,
): string {
  return `workload:${workload.namespace}/${workloadOfOwner(workload.kind, workload.name).name}${clusterSuffix(labels)}`;
}

/**
 * The keys of a diagnosed culprit (`Kind`, namespace, name), in the cluster of the run's
 * alert: a node's, a workload's (a pod's by the shape of its name), a Service's. A run
 * that names its culprit answers for it from then on, so that the culprit's own alerts,
 * arriving later, join the run that found it.
 */
export function diagnosedCulpritKeys(
  culprit: { kind: string; namespace?: string; name: string },
  labels: Readonly<Record<string, string>>,
): string[] {
  if (culprit.kind === 'Node') return [nodeCulpritKey(culprit.name, labels)];
  if (!culprit.namespace) return [];
  const { namespace, name } = culprit;
  if (culprit.kind === 'Service') return [`service:${namespace}/${name}${clusterSuffix(labels)}`];
  if (culprit.kind === 'Pod') {
    const workload = workloadOfPodName(name);
    return [`${workload.kind === 'Pod' ? 'pod' : 'workload'}:${namespace}/${workload.name}${clusterSuffix(labels)}`];
  }
  if (['Deployment', 'StatefulSet', 'DaemonSet', 'CronJob', 'Job', 'ReplicaSet'].includes(culprit.kind))
    return [workloadCulpritKey({ kind: culprit.kind, namespace, name }, labels)];
  return [];
}

/** The incident an alert belongs to; undefined when its labels name nothing to correlate on. */
export function culpritOf(labels: Readonly<Record<string, string>>): Culprit | undefined {
  const subject = correlationSubject(labels);
  const namespace = subject.namespace || undefined;
  for (const rule of LABEL_RULES) {
    if (rule.namespaced && !namespace) continue;
    const found = rule.read(subject);
    if (!found) continue;
    const scope: CulpritScope = found.kind === 'Pod' ? 'pod' : rule.scope;
    const cluster = labels.cluster ? ` cluster=${labels.cluster}` : '';
    const keyOf = (keyScope: CulpritScope, name: string): string =>
      `${keyScope}:${rule.namespaced ? `${namespace}/` : ''}${name}${cluster}`;
    const key = keyOf(scope, scope === 'pvc' ? claimSetOf(found.name) : found.name);
    const related = relatedWorkloads(scope, found.name, namespace).map((name) => keyOf('workload', name));
    const keys = [...new Set([key, ...related])];
    const namespaceKey = `namespace:${namespace}${cluster}`;
    const breadth = WORKLOAD_RULES.has(rule.id) ? 2 : rule.scope === 'workload' ? 1 : 0;
    return {
      key,
      keys,
      findKeys: scope === 'quota' ? [...keys, namespaceKey] : keys,
      ...(SHORT_OF_PODS_RULES.has(rule.id) ? { namespaceKey } : {}),
      scope,
      kind: found.kind,
      ...(rule.namespaced && namespace ? { namespace } : {}),
      name: found.name,
      rule: found.rule ?? rule.id,
      breadth,
      ...scheduledMinuteOf(found.kind, subject),
    };
  }
  return undefined;
}
