/**
 * Monitoring kubewhy itself: the alert rules (deploy/prometheus-rules.yml, the chart's
 * PrometheusRule) are valid and fire when they should (promtool), and the Grafana
 * dashboard queries only kubewhy's metrics with valid PromQL.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parse, stringify } from 'yaml';
import { renderChart, repositoryRoot, runCommand } from './fixtures/helm-support/helm.ts';
import { findSystemTool } from './fixtures/helm-support/system-tools.ts';

const deployDirectory = join(repositoryRoot, 'deploy');

/** The metrics the service exports (DESIGN.md), and the process defaults of prom-client. */
const COUNTERS = [
  'runs_total',
  'model_requests_total',
  'model_tokens_total',
  'tool_calls_total',
  'gate_decisions_total',
  'approvals_total',
  'diagnoses_total',
  'webhook_requests_total',
  'alerts_received_total',
  'alerts_deduplicated_total',
  'notifications_sent_total',
  'notifications_failed_total',
  'runs_taken_over_total',
];
const GAUGES = [
  'runs_in_progress',
  'run_queue_depth',
  'build_info',
  'notifications_pending',
  'notification_oldest_pending_seconds',
];
const HISTOGRAMS = ['run_duration_seconds', 'model_request_duration_seconds', 'tool_call_duration_seconds'];
const KNOWN_METRICS = new Set([
  ...[...COUNTERS, ...GAUGES].map((name) => `kubewhy_${name}`),
  ...HISTOGRAMS.flatMap((name) => ['_bucket', '_sum', '_count'].map((suffix) => `kubewhy_${name}${suffix}`)),
  'process_resident_memory_bytes',
  'process_cpu_seconds_total',
  'up',
]);

/** Metric names a PromQL expression selects: identifiers followed by { or [ or standing alone, minus functions and keywords. */
function findMetricNames(expression: string): string[] {
  const withoutStrings = expression.replace(/"[^"]*"/g, '""');
  const withoutGroupings = withoutStrings.replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
  const withoutMatchers = withoutGroupings.replace(/\{[^}]*\}/g, '{}');
  const candidates = withoutMatchers.match(/[a-zA-Z_:][a-zA-Z0-9_:]*(?=\s*(\{|\[|\)|$|\s*[<>=!*/+-]))/g) ?? [];
  const functions = new Set([
    'sum',
    'max',
    'min',
    'avg',
    'count',
    'rate',
    'increase',
    'histogram_quantile',
    'sort_desc',
    'absent',
    'and',
    'or',
    'unless',
    'le',
    'bool',
  ]);
  return [...new Set(candidates.filter((name) => !functions.has(name) && !/^\d/.test(name)))];
}

async function withTemporaryDirectory<T>(work: (directory: string) => Promise<T>): Promise<T> {
  const directory = await mkdtemp(join(tmpdir(), 'kubewhy-monitoring-'));
  try {
    return await work(directory);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

describe('alert rules', () => {
  test('promtool accepts deploy/prometheus-rules.yml', async () => {
    const result = await runCommand(findSystemTool('promtool'), [
      'check',
      'rules',
      join(deployDirectory, 'prometheus-rules.yml'),
    ]);
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
  });

  test('the rules fire on failing runs, a nearly full queue, model errors, stuck notifications and a down target, and stay quiet otherwise (promtool test rules)', async () => {
    const result = await runCommand(findSystemTool('promtool'), [
      'test',
      'rules',
      join(deployDirectory, 'prometheus-rules.test.yml'),
    ]);
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    assert.match(result.stdout, /SUCCESS/);
  });

  test("the chart's PrometheusRule holds the same rules as deploy/prometheus-rules.yml", async () => {
    const notifications = {
      enabled: true,
      destinations: [
        { name: 'tickets', type: 'webhook', url: 'https://tickets.example.com/hook', secret: { env: 'HOOK_SECRET' } },
      ],
      routes: [{ to: ['tickets'] }],
    };
    const objects = await renderChart({
      values: { prometheusRule: { enabled: true }, serviceMonitor: { enabled: true }, notifications },
    });
    const rule = objects.find((object) => object.kind === 'PrometheusRule');
    assert.ok(rule);
    const plain = parse(await readFile(join(deployDirectory, 'prometheus-rules.yml'), 'utf8')) as unknown;
    assert.deepEqual(rule['spec'], plain);
  });

  test("the chart's rules follow its values and pass promtool", async () => {
    const objects = await renderChart({
      releaseName: 'why',
      namespace: 'ops',
      values: {
        config: { queueSize: 200 },
        prometheusRule: { enabled: true, queueFull: { ratio: 0.5, for: '2m', severity: 'page' } },
      },
    });
    const spec = objects.find((object) => object.kind === 'PrometheusRule')?.['spec'] as {
      groups: { rules: { alert: string; expr: string; for: string; labels: Record<string, string> }[] }[];
    };
    const rules = spec.groups.flatMap((group) => group.rules);
    assert.deepEqual(
      rules.map((rule) => rule.alert),
      ['KubewhyRunsFailing', 'KubewhyQueueFull', 'KubewhyModelErrors'],
      'KubewhyDown needs the ServiceMonitor, KubewhyNotificationsStuck notifications',
    );
    const queueFull = rules.find((rule) => rule.alert === 'KubewhyQueueFull');
    assert.match(
      queueFull?.expr ?? '',
      /kubewhy_run_queue_depth\{job="why-kubewhy", namespace="ops"\}\) > 200 \* 0\.5/,
    );
    assert.equal(queueFull?.for, '2m');
    assert.deepEqual(queueFull?.labels, { severity: 'page' });
    await withTemporaryDirectory(async (directory) => {
      const path = join(directory, 'rules.yml');
      await writeFile(path, stringify(spec));
      const result = await runCommand(findSystemTool('promtool'), ['check', 'rules', path]);
      assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    });
  });

  test('every rule selects only metrics kubewhy exports', async () => {
    const plain = parse(await readFile(join(deployDirectory, 'prometheus-rules.yml'), 'utf8')) as {
      groups: { rules: { expr: string }[] }[];
    };
    for (const rule of plain.groups.flatMap((group) => group.rules)) {
      for (const name of findMetricNames(rule.expr)) assert.ok(KNOWN_METRICS.has(name), `${name} in ${rule.expr}`);
    }
  });
});

describe('the Grafana dashboard', () => {
  interface Panel {
    id: number;
    type: string;
    title: string;
    gridPos: { x: number; y: number; w: number; h: number };
    targets?: { expr: string; datasource?: { uid: string } }[];
  }

  async function readDashboard(): Promise<{
    uid: string;
    title: string;
    panels: Panel[];
    templating: { list: { name: string }[] };
  }> {
    return JSON.parse(await readFile(join(deployDirectory, 'grafana-dashboard.json'), 'utf8')) as never;
  }

  test('has unique panel ids, titles, and panels inside the 24-column grid', async () => {
    const dashboard = await readDashboard();
    assert.equal(dashboard.uid, 'kubewhy-overview');
    const ids = dashboard.panels.map((panel) => panel.id);
    assert.equal(new Set(ids).size, ids.length);
    for (const panel of dashboard.panels) {
      assert.ok(panel.title, `panel ${panel.id} has no title`);
      assert.ok(panel.gridPos.x >= 0 && panel.gridPos.x + panel.gridPos.w <= 24, `${panel.title} leaves the grid`);
    }
  });

  test('every query selects only metrics kubewhy exports, through the datasource, namespace and job variables', async () => {
    const dashboard = await readDashboard();
    assert.deepEqual(
      dashboard.templating.list.map((variable) => variable.name),
      ['datasource', 'namespace', 'job'],
    );
    const targets = dashboard.panels.flatMap((panel) => panel.targets ?? []);
    assert.ok(targets.length >= 15, `${targets.length} queries`);
    const used = new Set<string>();
    for (const target of targets) {
      assert.equal(target.datasource?.uid, '${datasource}');
      assert.match(target.expr, /namespace=~"\$namespace", job=~"\$job"/, target.expr);
      for (const name of findMetricNames(target.expr)) {
        assert.ok(KNOWN_METRICS.has(name), `unknown metric ${name} in ${target.expr}`);
        used.add(name.replace(/_(bucket|sum|count)$/, ''));
      }
    }
    const unused = [...COUNTERS, ...GAUGES, ...HISTOGRAMS]
      .map((name) => `kubewhy_${name}`)
      .filter((name) => !used.has(name));
    assert.deepEqual(unused, [], 'every kubewhy metric has a panel');
  });

  test('every query is valid PromQL (promtool)', async () => {
    const dashboard = await readDashboard();
    const expressions = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
    const concrete = expressions.map((expression) =>
      expression
        .replaceAll('$__rate_interval', '5m')
        .replaceAll('$__range', '1h')
        .replaceAll('$namespace', '.*')
        .replaceAll('$job', '.*'),
    );
    const rules = {
      groups: [
        { name: 'dashboard', rules: concrete.map((expr, index) => ({ record: `dashboard:query_${index}`, expr })) },
      ],
    };
    await withTemporaryDirectory(async (directory) => {
      const path = join(directory, 'dashboard-queries.yml');
      await writeFile(path, stringify(rules));
      const result = await runCommand(findSystemTool('promtool'), ['check', 'rules', path]);
      assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    });
  });
});
