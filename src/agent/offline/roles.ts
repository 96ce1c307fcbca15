/**
 * What a report's symptom says about which component to suspect, when the words name
 * where the person looked (Grafana, Loki) rather than what broke: logs that stop arriving
 * point at the node agent that ships them, metrics that stop at the one that scrapes them.
 * Each row: the symptom, the workloads that play the role, and examples of both.
 */
export interface Role {
  id: string;
  /** What the person reports. */
  symptom: RegExp;
  /** Names of the workloads that play the role. */
  players: RegExp;
  examples: { reports: string[]; doesNotReport: string[]; players: string[]; notPlayers: string[] };
}

export const ROLES: readonly Role[] = [
  {
    id: 'log-shipping',
    symptom: /\b(no|missing|lost|stopped|gaps? in)\b[^.]*\blogs?\b|\blogs?\b[^.]*\b(missing|not (arriving|showing|shipped|coming)|stopped|gone|empty)\b/i,
    players: /fluent-?bit|fluentd|\balloy\b|promtail|\bvector\b|filebeat|logstash|otel-?collector|opentelemetry-collector|datadog-agent|grafana-agent/i,
    examples: {
      reports: ['no logs in grafana from any node since about 12:50', 'logs from the new ingest nodes are missing in Loki since this morning'],
      doesNotReport: ['the worker logs are full of timeouts', 'checkout keeps restarting'],
      players: ['fluent-bit', 'alloy', 'promtail', 'vector-agent'],
      notPlayers: ['grafana', 'loki', 'vectorizer-api'],
    },
  },
  {
    id: 'metrics-scraping',
    symptom: /\b(no|missing|stale|stopped)\b[^.]*\b(metrics|data points?|series)\b|\b(metrics|dashboards?)\b[^.]*\b(missing|empty|no data|stale|flat ?lined?|gaps?)\b/i,
    players: /prometheus(?!-operator)|node-exporter|kube-state-metrics|\balloy\b|otel-?collector|grafana-agent|vmagent|datadog-agent/i,
    examples: {
      reports: ['dashboards show no data for the payments service since noon', 'metrics from the new nodes are missing'],
      doesNotReport: ['payments is slow', 'no logs in grafana'],
      players: ['prometheus-kube-prometheus-stack-prometheus', 'node-exporter'],
      notPlayers: ['grafana', 'prometheus-operator'],
    },
  },
];

/** The roles a report's symptom points at. */
export function rolesReported(text: string): Role[] {
  return ROLES.filter((role) => role.symptom.test(text));
}
