/**
 * Large alert groups as kube-prometheus-stack fires them: KubePodCrashLooping and
 * KubePodNotReady on the pods of many Deployments, with the labels and annotations its
 * rules and Prometheus add (scrape job, instance, endpoint, service, uid, the Prometheus
 * external labels, a runbook URL, an escaped expression in the generator URL). Used to
 * size the webhook's body limit and to push whole groups through a real Alertmanager.
 */
import { createHash } from 'node:crypto';

/** An alert as Alertmanager's API v2 takes it (`POST /api/v2/alerts`). */
export interface PostableAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  generatorURL: string;
}

const SAFE = 'bcdfghjklmnpqrstvwxz2456789';

/** `length` characters of the Kubernetes "safe" alphabet, fixed by `seed`. */
function safeString(seed: string, length: number): string {
  const digest = createHash('sha256').update(seed).digest();
  return Array.from({ length }, (_, index) => SAFE[digest[index]! % SAFE.length]).join('');
}

const EXPRESSIONS: Record<string, string> = {
  KubePodCrashLooping:
    'max_over_time(kube_pod_container_status_waiting_reason{job="kube-state-metrics",namespace=~".*",reason="CrashLoopBackOff"}[5m]) >= 1',
  KubePodNotReady:
    'sum by (namespace, pod, cluster) (max by (namespace, pod, cluster) (kube_pod_status_phase{job="kube-state-metrics",namespace=~".*",phase=~"Pending|Unknown|Failed"}) * on (namespace, pod, cluster) group_left (owner_kind) topk by (namespace, pod, cluster) (1, max by (namespace, pod, owner_kind, cluster) (kube_pod_owner{owner_kind!="Job"}))) > 0',
};

/**
 * `count` alerts over `workloads` Deployments (pods spread evenly), alternating the two
 * alert names, in namespaces `team-0`, `team-1`... of ten workloads each.
 */
export function kubePrometheusAlerts(input: {
  count: number;
  workloads: number;
  startsAt: string;
  cluster?: string;
}): PostableAlert[] {
  return Array.from({ length: input.count }, (_, index) => {
    const workload = index % input.workloads;
    const namespace = `team-${Math.floor(workload / 10)}`;
    const deployment = `service-${workload}-api`;
    const pod = `${deployment}-${safeString(deployment, 9)}-${safeString(`${deployment}/${index}`, 5)}`;
    const alertname = index % 2 === 0 ? 'KubePodCrashLooping' : 'KubePodNotReady';
    const labels: Record<string, string> = {
      alertname,
      namespace,
      pod,
      job: 'kube-state-metrics',
      instance: `10.42.${index % 250}.${(index * 7) % 250}:8080`,
      endpoint: 'http',
      service: 'kube-prometheus-stack-kube-state-metrics',
      prometheus: 'monitoring/kube-prometheus-stack-prometheus',
      severity: 'warning',
      ...(input.cluster ? { cluster: input.cluster } : {}),
      ...(alertname === 'KubePodCrashLooping'
        ? { container: 'app', reason: 'CrashLoopBackOff', uid: uuidOf(pod) }
        : {}),
    };
    const annotations =
      alertname === 'KubePodCrashLooping'
        ? {
            description: `Pod ${namespace}/${pod} (app) is in waiting state (reason: "CrashLoopBackOff") on cluster ${input.cluster ?? ''}.`,
            runbook_url: 'https://runbooks.prometheus-operator.dev/runbooks/kubernetes/kubepodcrashlooping',
            summary: 'Pod is crash looping.',
          }
        : {
            description: `Pod ${namespace}/${pod} has been in a non-ready state for longer than 15 minutes on cluster ${input.cluster ?? ''}.`,
            runbook_url: 'https://runbooks.prometheus-operator.dev/runbooks/kubernetes/kubepodnotready',
            summary: 'Pod has been in a non-ready state for more than 15 minutes.',
          };
    return {
      labels,
      annotations,
      startsAt: input.startsAt,
      generatorURL: `http://kube-prometheus-stack-prometheus.monitoring:9090/graph?g0.expr=${encodeURIComponent(EXPRESSIONS[alertname]!)}&g0.tab=1`,
    };
  });
}

function uuidOf(seed: string): string {
  const hex = createHash('md5').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The webhook notification (version 4) Alertmanager sends for one group of `alerts`, as
 * its template data renders it: every alert with status, times and fingerprint, and the
 * group's common labels and annotations.
 */
export function webhookNotification(
  alerts: readonly PostableAlert[],
  fingerprint: (labels: Record<string, string>) => string,
): Record<string, unknown> {
  return {
    receiver: 'kubewhy',
    status: 'firing',
    alerts: alerts.map((alert) => ({
      status: 'firing',
      labels: alert.labels,
      annotations: alert.annotations,
      startsAt: alert.startsAt,
      endsAt: '0001-01-01T00:00:00Z',
      generatorURL: alert.generatorURL,
      fingerprint: fingerprint(alert.labels),
    })),
    groupLabels: {},
    commonLabels: {
      job: 'kube-state-metrics',
      prometheus: 'monitoring/kube-prometheus-stack-prometheus',
      severity: 'warning',
    },
    commonAnnotations: {},
    externalURL: 'http://kube-prometheus-stack-alertmanager.monitoring:9093',
    version: '4',
    groupKey: '{}:{}',
    truncatedAlerts: 0,
  };
}
