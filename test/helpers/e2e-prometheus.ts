/**
 * A real Prometheus (Debian's `prometheus`) for end-to-end tests: loopback only, a
 * temporary TSDB, scraping and evaluating every second (or as often as asked), the given
 * rule files, one Alertmanager, and one scrape job `kube-state-metrics` whose static
 * targets carry their own labels (a `cluster` label tells the alerts of one target from
 * another's). Its HTTP API is read to learn what it scraped, evaluated and fired.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { stringify } from 'yaml';
import { findFreePort } from './ports.ts';
import { pollUntil, spawnDaemon } from './service-process.ts';

export const PROMETHEUS_BINARY = '/usr/bin/prometheus';

export function hasPrometheus(): boolean {
  return spawnSync(PROMETHEUS_BINARY, ['--version']).status === 0;
}

/**
 * The rule file with every `for:` duration replaced by `duration`, so an alert fires
 * seconds after its condition holds instead of minutes. Only the `for:` keys of rules
 * change; expressions (including their range windows) stay as written.
 */
export function shortenForDurations(rulesText: string, duration: string): string {
  return rulesText.replace(/^(\s+)for:\s*\S+\s*$/gm, `$1for: ${duration}`);
}

export interface ScrapeTarget {
  /** host:port */
  address: string;
  labels: Record<string, string>;
}

export interface PrometheusAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: 'pending' | 'firing' | 'inactive';
  activeAt?: string;
}

export interface RuleGroup {
  name: string;
  /** When its last evaluation started (set once that evaluation has ended). */
  lastEvaluation: string;
  /** Its rules; an alerting rule lists its pending and firing alerts. */
  rules: { alerts?: PrometheusAlert[] }[];
}

/** One series of an instant query's answer: its labels and its [unix seconds, value]. */
export interface QuerySample {
  metric: Record<string, string>;
  value: [number, string];
}

export interface Prometheus {
  url: string;
  ruleGroups(): Promise<RuleGroup[]>;
  /** An instant PromQL query, now. */
  query(promql: string): Promise<QuerySample[]>;
  /**
   * Each rule group's last evaluation timestamp (unix milliseconds), by group name: the
   * time its queries were evaluated at, from Prometheus's own metrics.
   */
  ruleGroupEvaluationTimes(): Promise<Map<string, number>>;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts Prometheus with copies of `ruleFiles` whose `for:` durations are `forDuration`.
 * Resolves once it is ready and has loaded every rule group.
 */
export async function startPrometheus(input: {
  directory: string;
  ruleFiles: string[];
  forDuration: string;
  alertmanagerUrl: string;
  targets: ScrapeTarget[];
  /** How often it scrapes, in milliseconds (default 1000); a scrape may take as long. */
  scrapeIntervalMs?: number;
  /** How often it evaluates its rules, in milliseconds (default 1000). */
  evaluationIntervalMs?: number;
}): Promise<Prometheus> {
  const scrapeInterval = `${input.scrapeIntervalMs ?? 1000}ms`;
  const rulesDirectory = join(input.directory, 'prometheus-rules');
  await mkdir(rulesDirectory, { recursive: true });
  const copies: string[] = [];
  for (const file of input.ruleFiles) {
    const copy = join(rulesDirectory, basename(file));
    await writeFile(copy, shortenForDurations(await readFile(file, 'utf8'), input.forDuration));
    copies.push(copy);
  }
  const configPath = join(input.directory, 'prometheus.yml');
  await writeFile(
    configPath,
    stringify({
      global: {
        scrape_interval: scrapeInterval,
        scrape_timeout: scrapeInterval,
        evaluation_interval: `${input.evaluationIntervalMs ?? 1000}ms`,
      },
      rule_files: copies,
      alerting: { alertmanagers: [{ static_configs: [{ targets: [new URL(input.alertmanagerUrl).host] }] }] },
      // honor_labels: the exporter's namespace/pod/container labels win over target labels, as kube-prometheus scrapes kube-state-metrics.
      scrape_configs: [
        {
          job_name: 'kube-state-metrics',
          honor_labels: true,
          static_configs: input.targets.map((target) => ({ targets: [target.address], labels: target.labels })),
        },
      ],
    }),
  );
  const port = await findFreePort();
  const { child, output, stop } = spawnDaemon(PROMETHEUS_BINARY, [
    `--config.file=${configPath}`,
    `--storage.tsdb.path=${join(input.directory, 'prometheus-data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--log.level=warn',
  ]);
  const url = `http://127.0.0.1:${port}`;

  const api = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${url}${path}`);
    const body = (await response.json()) as { status: string; data: T; error?: string };
    if (!response.ok || body.status !== 'success')
      throw new Error(`prometheus ${path}: ${response.status} ${body.error ?? ''}`);
    return body.data;
  };
  const prometheus: Prometheus = {
    url,
    ruleGroups: async () => (await api<{ groups: RuleGroup[] }>('/api/v1/rules')).groups,
    query: async (promql) =>
      (await api<{ result: QuerySample[] }>(`/api/v1/query?query=${encodeURIComponent(promql)}`)).result,
    async ruleGroupEvaluationTimes() {
      const text = await (await fetch(`${url}/metrics`)).text();
      const times = new Map<string, number>();
      for (const match of text.matchAll(
        /^prometheus_rule_group_last_evaluation_timestamp_seconds\{rule_group="[^"]*;([^"]*)"\} (\S+)$/gm,
      )) {
        times.set(match[1] ?? '', Number(match[2]) * 1000);
      }
      return times;
    },
    output,
    stop,
  };
  try {
    await pollUntil(
      async () => {
        if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}:\n${output()}`);
        const ready = await fetch(`${url}/-/ready`).catch(() => undefined);
        if (!ready?.ok) return undefined;
        const groups = await prometheus.ruleGroups();
        return groups.length > 0 ? true : undefined;
      },
      { timeoutMs: 30_000, what: 'prometheus to be ready with its rules', intervalMs: 100 },
    );
  } catch (error) {
    await prometheus.stop();
    throw error;
  }
  return prometheus;
}
