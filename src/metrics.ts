/**
 * Every metric the service exports (DESIGN.md, "Metrics"), on a Registry of its own per
 * app instance: two apps in one process (tests, bench) never share a series. Labels are
 * bounded: route templates, statuses, tool names of the registry, categories; never run
 * ids, pod names or fingerprints.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AgentObserver } from './agent/observer.ts';

export interface Metrics {
  registry: Registry;
  webhookRequests: Counter<'route' | 'outcome'>;
  alertsReceived: Counter<'status'>;
  alertsDeduplicated: Counter;
  alertOutcomes: Counter<'outcome'>;
  runs: Counter<'trigger' | 'outcome'>;
  runsInProgress: Gauge;
  runQueueDepth: Gauge;
  runDuration: Histogram;
  modelRequests: Counter<'model' | 'outcome'>;
  modelRequestDuration: Histogram<'model'>;
  modelTokens: Counter<'model' | 'type'>;
  toolCalls: Counter<'tool' | 'risk' | 'outcome'>;
  toolCallDuration: Histogram<'tool'>;
  gateDecisions: Counter<'risk' | 'decision'>;
  approvals: Counter<'decision'>;
  diagnoses: Counter<'category'>;
  runsRetired: Counter;
  runsTakenOver: Counter<'outcome'>;
  modelConsecutiveFailures: Gauge;
  notificationsSent: Counter<'destination' | 'channel' | 'event'>;
  notificationsFailed: Counter<'destination' | 'channel' | 'outcome'>;
  notificationsPending: Gauge<'destination'>;
  notificationOldestPending: Gauge<'destination'>;
}

/** Pending notifications per destination, read at scrape time from the outbox. */
export type PendingNotifications = () => Promise<
  readonly { destination: string; count: number; oldestCreatedAt: number }[]
>;

/**
 * Gauges `run_queue_depth` and `runs_in_progress` are read at scrape time from `gauges`,
 * so they can never drift from the queue they describe.
 */
export function createMetrics(input: {
  version: string;
  gauges?: {
    queueDepth(): number;
    inProgress(): number;
    modelFailures?(): number;
    notificationsPending?: PendingNotifications;
  };
}): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // These three are gauges named like counters; `promtool check metrics` rejects the name.
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'])
    registry.removeSingleMetric(name);
  const registers = [registry];
  const gauges = input.gauges;

  const buildInfo = new Gauge({
    name: 'kubewhy_build_info',
    help: 'Always 1; the version label says which kubewhy runs.',
    labelNames: ['version'],
    registers,
  });
  buildInfo.set({ version: input.version }, 1);

  return {
    registry,
    webhookRequests: new Counter({
      name: 'kubewhy_webhook_requests_total',
      help: 'Requests to the ingest routes, by route and outcome.',
      labelNames: ['route', 'outcome'],
      registers,
    }),
    alertsReceived: new Counter({
      name: 'kubewhy_alerts_received_total',
      help: 'Alerts received from Alertmanager, by status (firing, resolved).',
      labelNames: ['status'],
      registers,
    }),
    alertsDeduplicated: new Counter({
      name: 'kubewhy_alerts_deduplicated_total',
      help: 'Firing alerts that matched a run already running or diagnosed, and started none.',
      registers,
    }),
    alertOutcomes: new Counter({
      name: 'kubewhy_alert_outcomes_total',
      help: "Alerts received, by what they did: created (a run), attached (to the open run of their incident), duplicate, backoff (held back after the incident's run failed), resolved, cancelled, unmatched, refused (queue full). Alerts per run: (created + attached) / created.",
      labelNames: ['outcome'],
      registers,
    }),
    runs: new Counter({
      name: 'kubewhy_runs_total',
      help: 'Runs that ended, by trigger (alert, incident) and outcome (completed, failed, cancelled, merged: joined the incident of its node without running).',
      labelNames: ['trigger', 'outcome'],
      registers,
    }),
    runsInProgress: new Gauge({
      name: 'kubewhy_runs_in_progress',
      help: 'Runs being diagnosed now (running or awaiting approval).',
      registers,
      collect() {
        if (gauges) this.set(gauges.inProgress());
      },
    }),
    runQueueDepth: new Gauge({
      name: 'kubewhy_run_queue_depth',
      help: 'Runs waiting for a free slot.',
      registers,
      collect() {
        if (gauges) this.set(gauges.queueDepth());
      },
    }),
    runDuration: new Histogram({
      name: 'kubewhy_run_duration_seconds',
      help: 'Wall-clock time of a run attempt, from start to end.',
      buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
      registers,
    }),
    modelRequests: new Counter({
      name: 'kubewhy_model_requests_total',
      help: 'Model turns requested, by model and outcome (ok, error).',
      labelNames: ['model', 'outcome'],
      registers,
    }),
    modelRequestDuration: new Histogram({
      name: 'kubewhy_model_request_duration_seconds',
      help: 'Time of one model turn.',
      labelNames: ['model'],
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers,
    }),
    modelTokens: new Counter({
      name: 'kubewhy_model_tokens_total',
      help: 'Tokens used, by model and type (input, output, cache_read, cache_write).',
      labelNames: ['model', 'type'],
      registers,
    }),
    toolCalls: new Counter({
      name: 'kubewhy_tool_calls_total',
      help: 'Tool calls, by tool, risk and outcome (ok or the error kind).',
      labelNames: ['tool', 'risk', 'outcome'],
      registers,
    }),
    toolCallDuration: new Histogram({
      name: 'kubewhy_tool_call_duration_seconds',
      help: 'Time of one tool call, approval waits included.',
      labelNames: ['tool'],
      buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15],
      registers,
    }),
    gateDecisions: new Counter({
      name: 'kubewhy_gate_decisions_total',
      help: 'Risk gate decisions, by risk and decision (execute, propose, hold, refuse).',
      labelNames: ['risk', 'decision'],
      registers,
    }),
    approvals: new Counter({
      name: 'kubewhy_approvals_total',
      help: 'Held actions decided, by decision (approved, rejected, expired).',
      labelNames: ['decision'],
      registers,
    }),
    diagnoses: new Counter({
      name: 'kubewhy_diagnoses_total',
      help: 'Diagnoses made, by category.',
      labelNames: ['category'],
      registers,
    }),
    runsRetired: new Counter({
      name: 'kubewhy_runs_retired_total',
      help: 'Finished runs removed by retention (KUBEWHY_RETENTION_DAYS), with their audit events.',
      registers,
    }),
    runsTakenOver: new Counter({
      name: 'kubewhy_runs_taken_over_total',
      help: 'Runs this replica took over after their replica stopped renewing its lease (several replicas on PostgreSQL), by outcome (requeued; failed, a write having been approved; ended, its chain having ended).',
      labelNames: ['outcome'],
      registers,
    }),
    modelConsecutiveFailures: new Gauge({
      name: 'kubewhy_model_consecutive_failures',
      help: 'Model calls that failed in a row since the last one that succeeded (retries by the SDK included in one call); /readyz says degraded from 3.',
      registers,
      collect() {
        if (gauges?.modelFailures) this.set(gauges.modelFailures());
      },
    }),
    notificationsSent: new Counter({
      name: 'kubewhy_notifications_sent_total',
      help: 'Notifications a receiver took, by destination (its name in the notifications file), channel (slack-webhook, slack-bot, teams, webhook) and event (finished, approval, resolved).',
      labelNames: ['destination', 'channel', 'event'],
      registers,
    }),
    notificationsFailed: new Counter({
      name: 'kubewhy_notifications_failed_total',
      help: 'Notification attempts that failed, by destination, channel and outcome: retrying (it is tried again) or gave-up (refused for good, or past its maximum age; kept in the outbox as failed).',
      labelNames: ['destination', 'channel', 'outcome'],
      registers,
    }),
    notificationsPending: new Gauge({
      name: 'kubewhy_notifications_pending',
      help: 'Notifications in the outbox not yet delivered, by destination.',
      labelNames: ['destination'],
      registers,
      async collect() {
        if (!gauges?.notificationsPending) return;
        const rows = await gauges.notificationsPending();
        this.reset();
        for (const row of rows) this.set({ destination: row.destination }, row.count);
      },
    }),
    notificationOldestPending: new Gauge({
      name: 'kubewhy_notification_oldest_pending_seconds',
      help: 'Age of the oldest notification not yet delivered, by destination: a receiver that is down shows here first.',
      labelNames: ['destination'],
      registers,
      async collect() {
        if (!gauges?.notificationsPending) return;
        const rows = await gauges.notificationsPending();
        this.reset();
        const now = Date.now();
        for (const row of rows)
          this.set({ destination: row.destination }, Math.max(0, (now - row.oldestCreatedAt) / 1000));
      },
    }),
  };
}

/**
 * The loop's hooks, counted. Tool names outside `knownTools` (a model may invent any
 * name) are counted as `unknown`, which keeps the label set bounded.
 */
export function createMetricsObserver(metrics: Metrics, knownTools: ReadonlySet<string>): AgentObserver {
  return {
    modelCall({ model, outcome, durationSeconds, usage }) {
      metrics.modelRequests.inc({ model, outcome });
      metrics.modelRequestDuration.observe({ model }, durationSeconds);
      if (usage) {
        metrics.modelTokens.inc({ model, type: 'input' }, usage.input);
        metrics.modelTokens.inc({ model, type: 'output' }, usage.output);
        metrics.modelTokens.inc({ model, type: 'cache_read' }, usage.cacheRead);
        metrics.modelTokens.inc({ model, type: 'cache_write' }, usage.cacheWrite);
      }
    },
    toolCall({ tool, risk, outcome, durationSeconds }) {
      const name = knownTools.has(tool) ? tool : 'unknown';
      metrics.toolCalls.inc({ tool: name, risk, outcome });
      metrics.toolCallDuration.observe({ tool: name }, durationSeconds);
    },
    gateDecision({ risk, decision }) {
      metrics.gateDecisions.inc({ risk, decision });
    },
  };
}
