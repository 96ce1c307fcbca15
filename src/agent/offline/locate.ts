/**
 * From the trigger to the thing to investigate. An alert names it in its labels (pod,
 * deployment, statefulset, job_name, node, persistentvolumeclaim, service, namespace);
 * a person's sentence names it loosely, so its words are matched against what the
 * inventory tools list: workloads, services, nodes and namespaces.
 */
import type { PodSummaryData } from '../../tools/format/pod-status.ts';
import type { Missing } from './absent.ts';

export type WorkloadKind = 'Deployment' | 'StatefulSet' | 'DaemonSet' | 'Job' | 'CronJob';

export type Focus =
  | { kind: 'pod'; namespace: string; name: string }
  | { kind: 'workload'; workloadKind: WorkloadKind; namespace: string; name: string }
  | { kind: 'node'; name: string }
  | { kind: 'service'; namespace: string; name: string }
  | { kind: 'pvc'; namespace: string; name: string }
  | { kind: 'quota'; namespace: string; name: string }
  | { kind: 'autoscaler'; namespace: string; name: string }
  /** Something the report names that the cluster does not have. */
  | { kind: 'absent'; missing: Missing }
  /**
   * `hint`: the words that pointed here, to pick a pod by when nothing is visibly failing.
   * `unmatched`: a person's words that named nothing the cluster has (the namespace came from elsewhere).
   */
  | { kind: 'namespace'; namespace: string; hint?: string; unmatched?: string }
  /** `unmatched`: a person's words that named nothing the cluster has. */
  | { kind: 'cluster'; unmatched?: string };

/**
 * The labels of the object an alert is about. When Prometheus keeps the scrape target's
 * labels, the object's own come as exported_*; and labels that name the exporter itself
 * (kube-state-metrics' pod, container and Service) say nothing about the incident.
 */
/** Alerts whose subject is the scrape target itself. */
const SCRAPE_ALERTS = /^(TargetDown|PrometheusTargetMissing|ScrapeTargetDown)$/;

export function subjectLabels(labels: Record<string, string>): Record<string, string> {
  const subject: Record<string, string> = { ...labels };
  for (const key of ['namespace', 'pod', 'container', 'service', 'node']) {
    const exported = labels[`exported_${key}`];
    if (exported) subject[key] = exported;
  }
  // An alert about scraping itself (TargetDown) is about the target: its labels are the subject.
  if (SCRAPE_ALERTS.test(labels.alertname ?? '')) return subject;
  // The scrape target's own labels: kube-state-metrics, any *-exporter, the operator.
  const exporter = /kube-state-metrics|exporter|prometheus-operator/;
  // A pod label that came from exported_pod is the object's own, whatever the container label says.
  if (exporter.test(subject.pod ?? '') || (exporter.test(subject.container ?? '') && !labels.exported_pod)) {
    delete subject.pod;
    delete subject.container;
  }
  if (exporter.test(subject.service ?? '')) delete subject.service;
  return subject;
}

/**
 * What an alert's labels point at. The alert's name says which label is its subject
 * (KubeDeploymentReplicasMismatch is about `deployment`, whatever `pod` says: scraped
 * metrics often carry the exporter's own pod); otherwise the most specific label wins.
 */
export function focusFromAlert(rawLabels: Record<string, string>): Focus {
  const labels = subjectLabels(rawLabels);
  const alertname = labels.alertname ?? '';
  const namespace = labels.namespace;
  const subjects: { pattern: RegExp; label: string; focus: (value: string, namespace: string) => Focus; namespaced: boolean }[] = [
    { pattern: /Hpa|HorizontalPodAutoscaler/, label: 'horizontalpodautoscaler', namespaced: true, focus: (value, ns) => ({ kind: 'autoscaler', namespace: ns, name: value }) },
    { pattern: /Node/, label: 'node', namespaced: false, focus: (value) => ({ kind: 'node', name: value }) },
    { pattern: /Deployment/, label: 'deployment', namespaced: true, focus: (value, ns) => ({ kind: 'workload', workloadKind: 'Deployment', namespace: ns, name: value }) },
    { pattern: /StatefulSet/, label: 'statefulset', namespaced: true, focus: (value, ns) => ({ kind: 'workload', workloadKind: 'StatefulSet', namespace: ns, name: value }) },
    { pattern: /DaemonSet/, label: 'daemonset', namespaced: true, focus: (value, ns) => ({ kind: 'workload', workloadKind: 'DaemonSet', namespace: ns, name: value }) },
    { pattern: /CronJob/, label: 'cronjob', namespaced: true, focus: (value, ns) => ({ kind: 'workload', workloadKind: 'CronJob', namespace: ns, name: value }) },
    // `job` is Prometheus's scrape job; a Kubernetes Job comes as `job_name`.
    { pattern: /Job/, label: 'job_name', namespaced: true, focus: (value, ns) => ({ kind: 'workload', workloadKind: 'Job', namespace: ns, name: value }) },
    { pattern: /PersistentVolume|PVC|Volume/, label: 'persistentvolumeclaim', namespaced: true, focus: (value, ns) => ({ kind: 'pvc', namespace: ns, name: value }) },
    { pattern: /Service|Endpoint/, label: 'service', namespaced: true, focus: (value, ns) => ({ kind: 'service', namespace: ns, name: value }) },
    { pattern: /Quota/, label: 'resourcequota', namespaced: true, focus: (value, ns) => ({ kind: 'quota', namespace: ns, name: value }) },
    { pattern: /Pod|Container|OOM|Restart|Crash/, label: 'pod', namespaced: true, focus: (value, ns) => ({ kind: 'pod', namespace: ns, name: value }) },
  ];
  const usable = (subject: (typeof subjects)[number]): boolean => Boolean(labels[subject.label]) && (!subject.namespaced || Boolean(namespace));
  const named = subjects.find((subject) => subject.pattern.test(alertname) && usable(subject));
  if (named) return named.focus(labels[named.label]!, namespace ?? '');
  // No telling name: the most specific label, pod first.
  const order = ['pod', 'deployment', 'statefulset', 'daemonset', 'cronjob', 'job_name', 'persistentvolumeclaim', 'service', 'node'];
  for (const label of order) {
    const subject = subjects.find((candidate) => candidate.label === label)!;
    if (usable(subject)) return subject.focus(labels[label]!, namespace ?? '');
  }
  return namespace ? { kind: 'namespace', namespace } : { kind: 'cluster' };
}

/** Labels that say where a series was scraped or how loud an alert is, never what it is about. */
const ROUTING_LABELS = new Set(['alertname', 'severity', 'prometheus', 'instance', 'endpoint', 'job', 'namespace', 'uid', 'receiver', 'cluster', 'team', 'priority']);

/**
 * An alert's words, for an alert that names no Kubernetes object ("CeleryTaskFailureRateHigh"
 * with queue and task labels): the values of the labels that describe the subject, and its
 * summary and description.
 */
export function alertWords(alert: { labels: Record<string, string>; annotations: Record<string, string> }): string {
  // The alert's own name is the rule's vocabulary (Kube, Pod, Crash), not the subject's.
  const labels = subjectLabels(alert.labels);
  const values = Object.entries(labels).filter(([key]) => !ROUTING_LABELS.has(key)).map(([, value]) => value.replace(/[._]/g, ' '));
  return [...values, alert.annotations.summary ?? '', alert.annotations.description ?? ''].join(' ');
}

/** Name parts too common to identify anything alone ("default-pool", "prod-cluster"). */
export const GENERIC_PARTS = new Set(['default', 'pool', 'node', 'nodes', 'prod', 'production', 'staging', 'dev', 'main', 'system', 'the', 'app', 'service', 'server']);

/** A named thing the inventory knows, which a sentence may mention. */
export interface Candidate {
  focus: Focus;
  name: string;
  namespace?: string;
  unhealthy: boolean;
}

/**
 * How strongly a sentence names `name`: the whole name ("checkout-api", or "checkout api")
 * beats all of its words ("nightly ... report" for nightly-report), which beats some of them.
 */
export function mentionScore(name: string, text: string): number {
  const lower = text.toLowerCase();
  const words = new Set(lower.split(/[^a-z0-9]+/).filter((word) => word.length > 0));
  const escaped = name.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  if (new RegExp(`(^|[^a-z0-9-])${escaped}([^a-z0-9-]|$)`).test(lower)) return 100 + name.length;
  const spaced = escaped.replace(/-/g, '[ _-]');
  if (new RegExp(`(^|[^a-z0-9])${spaced}([^a-z0-9]|$)`).test(lower)) return 90 + name.length;
  const parts = name.toLowerCase().split('-').filter((part) => part.length >= 3 && !/^\d+$/.test(part) && !GENERIC_PARTS.has(part));
  if (parts.length === 0) return 0;
  // Words match by their stem: "prices" names pricing-api, "payments" names payment-gateway.
  const stems = new Set([...words].map(stem));
  const matched = parts.filter((part) => words.has(part) || stems.has(stem(part))).length;
  if (matched === parts.length) return 50 + matched * 5;
  return matched > 0 ? (20 * matched) / parts.length : 0;
}

/** A word's stem for matching: the common English endings removed (pricing, prices, price -> pric). */
export function stem(word: string): string {
  for (const ending of ['ing', 'ers', 'er', 'ed', 'es', 's', 'e']) {
    if (word.length - ending.length >= 4 && word.endsWith(ending)) return word.slice(0, -ending.length);
  }
  return word;
}

/** The candidate the sentence names best; unhealthy ones and those in a named namespace win ties. */
export function pickMentioned(candidates: readonly Candidate[], text: string, namespaces: readonly string[]): Candidate | undefined {
  const namedNamespaces = namespaces.filter((namespace) => mentionScore(namespace, text) >= 90);
  // Words that name a namespace say where, not what: "in the shop namespace" names no node called shop-pool.
  const withoutNamespaces = namedNamespaces.reduce((remaining, namespace) => remaining.replace(new RegExp(`\\b${escapeRegExp(namespace)}\\b`, 'gi'), ' '), text);
  let best: { candidate: Candidate; score: number } | undefined;
  let bestUnhealthy: { candidate: Candidate; score: number } | undefined;
  for (const candidate of candidates) {
    const whole = mentionScore(candidate.name, text);
    // A partial match (some words of the name) counts only outside the namespace words.
    let score = whole >= 90 ? whole : mentionScore(candidate.name, withoutNamespaces);
    if (score === 0) continue;
    // A namespace named outright narrows the search: a healthy partial namesake elsewhere is not what was meant.
    if (score < 50 && !candidate.unhealthy && namedNamespaces.length > 0 && candidate.namespace && !namedNamespaces.includes(candidate.namespace)) continue;
    if (candidate.namespace && namedNamespaces.includes(candidate.namespace)) score += 15;
    if (candidate.unhealthy) score += 8;
    if (!best || score > best.score) best = { candidate, score };
    if (candidate.unhealthy && (!bestUnhealthy || score > bestUnhealthy.score)) bestUnhealthy = { candidate, score };
  }
  // Words of a report name what fails: a failing namesake outranks a healthy partial match (not one named in full).
  if (best && !best.candidate.unhealthy && best.score < 90 && bestUnhealthy) return bestUnhealthy.candidate;
  return best?.candidate;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Namespaces the sentence names outright. */
export function mentionedNamespaces(namespaces: readonly string[], text: string): string[] {
  return namespaces.filter((namespace) => mentionScore(namespace, text) >= 90);
}

/**
 * The workload behind a controller, read from its name the way controllers name things:
 * a ReplicaSet `<deployment>-<hash>` is its Deployment's; a Job stays a Job (a CronJob
 * above it is read from the Job itself); the others are their own workload.
 */
export function workloadOfController(controller: { kind: string; name: string }): { workloadKind: WorkloadKind; name: string } | undefined {
  if (controller.kind === 'ReplicaSet') {
    const match = /^(.+)-[a-z0-9]{5,10}$/.exec(controller.name);
    return match ? { workloadKind: 'Deployment', name: match[1]! } : undefined;
  }
  if (['Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob'].includes(controller.kind)) return { workloadKind: controller.kind as WorkloadKind, name: controller.name };
  return undefined;
}

/** The workload a pod summary points at; a Job named `<cronjob>-<schedule time>` is taken for its CronJob's. */
export function workloadOfPod(pod: PodSummaryData): { workloadKind: WorkloadKind; name: string } | undefined {
  if (!pod.owner) return undefined;
  const cronJob = pod.owner.kind === 'Job' ? /^(.+)-\d{6,}$/.exec(pod.owner.name) : null;
  return cronJob ? { workloadKind: 'CronJob', name: cronJob[1]! } : workloadOfController(pod.owner);
}

/** The pod most worth a look: unhealthy first, then with a named problem, more restarts, younger. */
export function pickWorstPod(pods: readonly PodSummaryData[]): PodSummaryData | undefined {
  const rank = (pod: PodSummaryData): number[] => [
    pod.healthy ? 1 : 0,
    pod.problem ? 0 : 1,
    pod.status === 'Terminating' ? 1 : 0,
    -pod.restarts,
    pod.ageSeconds ?? Number.MAX_SAFE_INTEGER,
  ];
  return [...pods].sort((left, right) => compareRanks(rank(left), rank(right)))[0];
}

function compareRanks(left: number[], right: number[]): number {
  for (let index = 0; index < left.length; index++) {
    const difference = (left[index] ?? 0) - (right[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}
