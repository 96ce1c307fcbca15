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
  /** With no player failing, the node agent that plays it is still the lead (a DaemonSet ships the logs even when it looks well). */
  agentFallback?: boolean;
  examples: { reports: string[]; doesNotReport: string[]; players: string[]; notPlayers: string[] };
}

export const ROLES: readonly Role[] = [
  {
    id: 'log-shipping',
    symptom:
      /\b(no|missing|lost|stopped|gaps? in)\b[^.]*\blogs?\b|\blogs?\b[^.]*\b(missing|not (arriving|showing|shipped|coming)|stopped|gone|empty)\b/i,
    agentFallback: true,
    players:
      /fluent-?bit|fluentd|\balloy\b|promtail|\bvector\b|filebeat|logstash|otel-?collector|opentelemetry-collector|datadog-agent|grafana-agent|\blogs?-?(shipper|forwarder|collector|agent|router)\b/i,
    examples: {
      reports: [
        'no logs in grafana from any node since about 12:50',
        'logs from the new ingest nodes are missing in Loki since this morning',
      ],
      doesNotReport: ['the worker logs are full of timeouts', 'checkout keeps restarting'],
      players: ['fluent-bit', 'alloy', 'promtail', 'vector-agent', 'log-shipper', 'logs-forwarder'],
      notPlayers: ['grafana', 'loki', 'vectorizer-api', 'catalog-api'],
    },
  },
  {
    id: 'metrics-scraping',
    symptom:
      /\b(no|missing|stale|stopped)\b[^.]*\b(metrics|data points?|series)\b|\b(metrics|dashboards?)\b[^.]*\b(missing|empty|no data|stale|flat ?lined?|gaps?)\b/i,
    agentFallback: true,
    players:
      /prometheus(?!-operator)|node-exporter|kube-state-metrics|\balloy\b|otel-?collector|grafana-agent|vmagent|datadog-agent/i,
    examples: {
      reports: [
        'dashboards show no data for the payments service since noon',
        'metrics from the new nodes are missing',
      ],
      doesNotReport: ['payments is slow', 'no logs in grafana'],
      players: ['prometheus-kube-prometheus-stack-prometheus', 'node-exporter'],
      notPlayers: ['grafana', 'prometheus-operator'],
    },
  },
  {
    id: 'trace-shipping',
    symptom:
      /\b(no|missing|lost|stopped|gaps? in|dropp\w*)\b[^.]*\b(traces?|spans?|tracing)\b|\b(traces?|spans?)\b[^.]*\b(missing|not (arriving|showing|exported|coming)|stopped|gone|empty|dropp\w*)\b/i,
    agentFallback: true,
    players:
      /(?<![a-z])otel\b|opentelemetry|jaeger|\btempo\b|zipkin|datadog-agent|grafana-agent|\balloy\b|\btrac(e|ing)-?(agent|collector|shipper)\b/i,
    examples: {
      reports: [
        'missing traces from a bunch of checkout pods since the collector bump',
        'spans stopped arriving in tempo around 10:20',
        'no traces in jaeger for the new nodes',
      ],
      doesNotReport: ['the trace id in the error is abc123', 'checkout is slow', 'no logs in grafana'],
      players: ['otel-agent', 'opentelemetry-collector', 'jaeger-agent', 'tempo-distributor', 'tracing-collector'],
      notPlayers: ['checkout-api', 'hotel-booking', 'grafana'],
    },
  },
  {
    id: 'mail-delivery',
    symptom:
      /\b(e-?mails?|mails?|notifications?)\b[^.]*\b(never|not|no longer|stopped|missing|delayed|arriv\w*|bounc\w*|stuck)\b|\b(no|never|missing)\b[^.]*\be-?mails?\b/i,
    players: /notif|mail|smtp|postfix/i,
    examples: {
      reports: [
        'users say password reset emails never arrive since ~7am',
        'order confirmation mails stopped going out',
      ],
      doesNotReport: ['the mail relay logs spam rejects', 'checkout is slow'],
      players: ['notification-router', 'email-sender', 'mailer-worker'],
      notPlayers: ['checkout-api', 'billing-sync'],
    },
  },
  {
    id: 'queue-consumers',
    symptom:
      /\bnot (being )?process(ed|ing)\b|\bstopped processing\b|\bno consumers?\b|\b0 consumers\b|\bconsumer (lag|group)\b[^.]*\b(grow\w*|high|behind)\b|\bqueue\b[^.]*\b(piling|backing|backlog|growing|stuck|not (draining|consumed))|\b(piling|backing) up\b/i,
    players: /worker|consumer|processor|listener|subscriber|handler|ingest(er|or)/i,
    examples: {
      reports: [
        'Queue claims.ingest has 17021 ready messages and 0 consumers',
        'the intake queue is piling up',
        'consumer lag keeps growing on orders',
        'settlements not processing since ~6:40',
      ],
      doesNotReport: ['queue service is healthy', 'the worker logs are full of timeouts'],
      players: ['claims-api-worker', 'orders-consumer', 'event-processor'],
      notPlayers: ['claims-rabbitmq', 'claims-api'],
    },
  },
  {
    id: 'address-lookup',
    symptom:
      /\b(address(es)?|postcodes?|zip ?codes?|places?)\b[^.]*\b(lookups?|look ?ups?|search\w*|autocomplete|suggestions?|validation)\b|\b(reverse )?geocod\w*/i,
    players: /geocod|address|places|postcode/i,
    examples: {
      reports: [
        'address lookups on the map page are timing out since the deploy',
        'postcode search returns nothing',
        'geocoding is slow again',
      ],
      doesNotReport: ['the map tiles are blank', 'IP address exhaustion in the subnet'],
      players: ['geocoder-api', 'address-validator', 'places-search'],
      notPlayers: ['tile-server', 'route-planner'],
    },
  },
];

/** The roles a report's symptom points at. */
export function rolesReported(text: string): Role[] {
  return ROLES.filter((role) => role.symptom.test(text));
}
