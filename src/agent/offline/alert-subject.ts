/**
 * What an alert is about. An alert names its subject in its labels (pod, deployment,
 * statefulset, job_name, node, persistentvolumeclaim, service, namespace), once the labels
 * of the exporter that scraped it are set aside; an alert that names no Kubernetes object
 * is read for its words.
 */
import type { Focus } from './case.ts';

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
  // The series is about another namespace's object (an ingress controller's request metrics name the
  // backend as exported_namespace/exported_service): the pod and Service left unexported are the scraper's.
  if (labels.exported_namespace && labels.namespace && labels.exported_namespace !== labels.namespace) {
    if (!labels.exported_pod) {
      delete subject.pod;
      delete subject.container;
    }
    if (!labels.exported_service) delete subject.service;
  }
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
  const subjects: {
    pattern: RegExp;
    label: string;
    focus: (value: string, namespace: string) => Focus;
    namespaced: boolean;
  }[] = [
    {
      pattern: /Hpa|HorizontalPodAutoscaler/,
      label: 'horizontalpodautoscaler',
      namespaced: true,
      focus: (value, ns) => ({ kind: 'autoscaler', namespace: ns, name: value }),
    },
    { pattern: /Node/, label: 'node', namespaced: false, focus: (value) => ({ kind: 'node', name: value }) },
    {
      pattern: /Deployment/,
      label: 'deployment',
      namespaced: true,
      focus: (value, ns) => ({ kind: 'workload', workloadKind: 'Deployment', namespace: ns, name: value }),
    },
    {
      pattern: /StatefulSet/,
      label: 'statefulset',
      namespaced: true,
      focus: (value, ns) => ({ kind: 'workload', workloadKind: 'StatefulSet', namespace: ns, name: value }),
    },
    {
      pattern: /DaemonSet/,
      label: 'daemonset',
      namespaced: true,
      focus: (value, ns) => ({ kind: 'workload', workloadKind: 'DaemonSet', namespace: ns, name: value }),
    },
    {
      pattern: /CronJob/,
      label: 'cronjob',
      namespaced: true,
      focus: (value, ns) => ({ kind: 'workload', workloadKind: 'CronJob', namespace: ns, name: value }),
    },
    // `job` is Prometheus's scrape job; a Kubernetes Job comes as `job_name`.
    {
      pattern: /Job/,
      label: 'job_name',
      namespaced: true,
      focus: (value, ns) => ({ kind: 'workload', workloadKind: 'Job', namespace: ns, name: value }),
    },
    {
      pattern: /PersistentVolume|PVC|Volume/,
      label: 'persistentvolumeclaim',
      namespaced: true,
      focus: (value, ns) => ({ kind: 'pvc', namespace: ns, name: value }),
    },
    {
      pattern: /Service|Endpoint/,
      label: 'service',
      namespaced: true,
      focus: (value, ns) => ({ kind: 'service', namespace: ns, name: value }),
    },
    {
      pattern: /Quota/,
      label: 'resourcequota',
      namespaced: true,
      focus: (value, ns) => ({ kind: 'quota', namespace: ns, name: value }),
    },
    {
      pattern: /Pod|Container|OOM|Restart|Crash/,
      label: 'pod',
      namespaced: true,
      focus: (value, ns) => ({ kind: 'pod', namespace: ns, name: value }),
    },
  ];
  const usable = (subject: (typeof subjects)[number]): boolean =>
    Boolean(labels[subject.label]) && (!subject.namespaced || Boolean(namespace));
  const named = subjects.find((subject) => subject.pattern.test(alertname) && usable(subject));
  if (named) return named.focus(labels[named.label]!, namespace ?? '');
  // No telling name: the most specific label, pod first.
  const order = [
    'pod',
    'deployment',
    'statefulset',
    'daemonset',
    'cronjob',
    'job_name',
    'persistentvolumeclaim',
    'service',
    'node',
  ];
  for (const label of order) {
    const subject = subjects.find((candidate) => candidate.label === label)!;
    if (usable(subject)) return subject.focus(labels[label]!, namespace ?? '');
  }
  return namespace ? { kind: 'namespace', namespace } : { kind: 'cluster' };
}

/** Labels that say where a series was scraped or how loud an alert is, never what it is about. */
const ROUTING_LABELS = new Set([
  'alertname',
  'severity',
  'prometheus',
  'instance',
  'endpoint',
  'job',
  'namespace',
  'uid',
  'receiver',
  'cluster',
  'team',
  'priority',
]);

/**
 * An alert's words, for an alert that names no Kubernetes object ("CeleryTaskFailureRateHigh"
 * with queue and task labels): the values of the labels that describe the subject, and its
 * summary and description.
 */
export function alertWords(alert: { labels: Record<string, string>; annotations: Record<string, string> }): string {
  // The alert's own name is the rule's vocabulary (Kube, Pod, Crash), not the subject's.
  const labels = subjectLabels(alert.labels);
  const values = Object.entries(labels)
    .filter(([key]) => !ROUTING_LABELS.has(key))
    .map(([, value]) => value.replace(/[._]/g, ' '));
  return [...values, alert.annotations.summary ?? '', alert.annotations.description ?? ''].join(' ');
}
