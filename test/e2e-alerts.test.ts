/**
 * Automatic diagnosis on fired alerts, end to end with real components: each public
 * scenario's cluster state is scraped as kube-state-metrics metrics by a real Prometheus
 * running deploy/prometheus's rules, which fires alerts to a real Alertmanager, which
 * delivers them to `kubewhy serve` with a bearer token; kubewhy diagnoses each alert
 * against the same cluster. A scenario's trigger alert must fire from the metrics alone
 * and end in the diagnosis its `expect` describes (scored as `kubewhy eval` scores it); a
 * healthy scenario must fire nothing that kubewhy calls a problem.
 *
 * The rules' `for:` durations are set to 0s in Prometheus's copy of them (see
 * shortenForDurations): the conditions, windows and labels are the real ones. Scenarios
 * run LANES at a time, each lane its own `kubewhy serve` (see startAlertStack), so the
 * whole run takes about half a second per scenario after a few seconds of start-up.
 *
 * One incident is one run: the alerts a scenario fires about one workload (a pod crash
 * looping, not ready, its Deployment's replicas mismatched) are correlated into one run.
 * The suite reports runs per culprit key (src/runs/correlate.ts: the workload, node or
 * other subject the alerts name) and holds it to MAX_RUNS_PER_CULPRIT; it also reports
 * runs per diagnosed culprit and holds it to MAX_RUNS_PER_DIAGNOSED_CULPRIT. Labels alone
 * cannot bring that one to one: pods of several workloads evicted from one node join the
 * node's run only once a run is claimed and their node is read (src/runs/node-incident.ts),
 * and clients failing on one broken dependency (DNS, a database) are still diagnosed with
 * it in runs of their own.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { listScenarioDirs, loadScenario } from '../mock-cluster/index.ts';
import { formatCulprit } from '../src/agent/diagnosis.ts';
import { scoreDiagnosis } from '../src/eval/score.ts';
import { culpritOf } from '../src/runs/correlate.ts';
import {
  describeAlert,
  labelKey,
  matchesTrigger,
  MIXIN_ALERT_NAMES,
  readAlertNames,
} from './helpers/e2e-alert-match.ts';
import { startAlertStack, type AlertStack, type FiredAlert } from './helpers/e2e-alert-stack.ts';
import { hasPrometheus } from './helpers/e2e-prometheus.ts';
import { hasAlertmanager } from './helpers/service-alertmanager.ts';
import { scenarioExpect } from '../mock-cluster/loader.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SCENARIOS = join(ROOT, 'mock-cluster', 'scenarios');
const RULES = join(ROOT, 'deploy', 'prometheus');

const scenarioDirs = await listScenarioDirs(SCENARIOS);
const ruleFiles = (await readdir(RULES))
  .filter((name) => name.endsWith('.yml') && !name.endsWith('.test.yml'))
  .map((name) => join(RULES, name));
const alertNames = new Set((await Promise.all(ruleFiles.map(readAlertNames))).flat());

/**
 * Scenarios served at once. Most of a scenario's time is spent waiting for Prometheus to
 * scrape and evaluate it; on two cores four lanes fill that time (66 scenarios took 37s),
 * and six took longer than four.
 */
const LANES = 4;
/**
 * Prometheus scrapes every second (a scrape may take that long on a busy machine) and
 * evaluates twice as often: a scenario's alerts settle at the first evaluation after its
 * first scrape.
 */
const SCRAPE_INTERVAL_MS = 1000;
const EVALUATION_INTERVAL_MS = 500;
/** Starting the chain (Prometheus, Alertmanager, one kubewhy per lane), and a margin for a slow machine. */
const STARTUP_ALLOWANCE_MS = 60_000;
/** What one scenario may add to the whole run: about two seconds on its lane, so half a second here. */
const PER_SCENARIO_ALLOWANCE_MS = 3_000;
/** How long one scenario may take once a lane has it. */
const SCENARIO_TIMEOUT_MS = 45_000;

/**
 * Alerts whose rules read the kubelet's or node-exporter's own metrics, which the mock cluster does not serve
 * (it exports kube-state-metrics' families only): a scenario they trigger cannot fire them.
 */
const KUBELET_ALERTS = new Set([
  'KubePersistentVolumeFillingUp',
  'KubePersistentVolumeInodesFillingUp',
  'NodeFilesystemAlmostOutOfSpace',
  'NodeFilesystemSpaceFillingUp',
  'CPUThrottlingHigh',
]);

const MAX_RUNS_PER_CULPRIT = 1.2;
const MAX_RUNS_PER_DIAGNOSED_CULPRIT = 1.2;

/** Run ids by culprit key and by diagnosed culprit (each per scenario), over every scenario that fired alerts. */
const runsByCulpritKey = new Map<string, Set<string>>();
const runsByDiagnosedCulprit = new Map<string, Set<string>>();

function addRun(map: Map<string, Set<string>>, culprit: string, runId: string): void {
  const runs = map.get(culprit) ?? new Set<string>();
  runs.add(runId);
  map.set(culprit, runs);
}

function recordRuns(scenario: string, fired: FiredAlert[]): void {
  for (const { labels, run } of fired) {
    // An alert that names nothing to correlate on is an incident of its own.
    addRun(runsByCulpritKey, `${scenario} ${culpritOf(labels)?.key ?? `alert ${labelKey(labels)}`}`, run.id);
    addRun(
      runsByDiagnosedCulprit,
      `${scenario} ${run.diagnosis ? formatCulprit(run.diagnosis.culprit) : `run ${run.id}`}`,
      run.id,
    );
  }
}

/** Runs per culprit over the whole suite, and the culprits that had more than one run. */
function runsPerCulprit(map: Map<string, Set<string>>): {
  ratio: number;
  runs: number;
  culprits: number;
  split: string[];
} {
  const culprits = map.size;
  const runs = new Set([...map.values()].flatMap((ids) => [...ids])).size;
  const split = [...map].filter(([, ids]) => ids.size > 1).map(([culprit, ids]) => `${culprit}: ${ids.size} runs`);
  return { ratio: culprits === 0 ? 0 : runs / culprits, runs, culprits, split };
}

const missing = [!hasPrometheus() && 'prometheus', !hasAlertmanager() && 'prometheus-alertmanager'].filter(Boolean);
const skip =
  missing.length > 0
    ? `not installed: ${missing.join(', ')} (apt-get install ${missing.join(' ')}; .ci/run installs them)`
    : false;

function describeRun(alert: FiredAlert): string {
  const { run } = alert;
  if (!run.diagnosis)
    return `${describeAlert(alert.labels)} → run ${run.id} ${run.status}${run.reason ? ` (${run.reason})` : ''}`;
  return `${describeAlert(alert.labels)} → ${run.diagnosis.category} ${formatCulprit(run.diagnosis.culprit)}: ${run.diagnosis.summary}`;
}

const suiteTimeoutMs = STARTUP_ALLOWANCE_MS + scenarioDirs.length * PER_SCENARIO_ALLOWANCE_MS;

describe(
  'alerts fired by Prometheus from the mock cluster, delivered by Alertmanager, diagnosed by kubewhy',
  { skip, timeout: suiteTimeoutMs, concurrency: LANES },
  () => {
    let directory = '';
    let stack: AlertStack | undefined;

    before(
      async () => {
        directory = await mkdtemp(join(tmpdir(), 'kubewhy-e2e-alerts-'));
        stack = await startAlertStack({
          directory,
          scenarios: scenarioDirs.length,
          lanes: LANES,
          ruleFiles,
          forDuration: '0s',
          scrapeIntervalMs: SCRAPE_INTERVAL_MS,
          evaluationIntervalMs: EVALUATION_INTERVAL_MS,
        });
      },
      { timeout: STARTUP_ALLOWANCE_MS },
    );

    after(async () => {
      await stack?.stop();
      if (directory) await rm(directory, { recursive: true, force: true });
      const diagnosed = runsPerCulprit(runsByDiagnosedCulprit);
      process.stdout.write(
        `# runs per diagnosed culprit: ${diagnosed.ratio.toFixed(2)} (${diagnosed.runs} runs for ${diagnosed.culprits} culprits); split: ${diagnosed.split.join('; ')}\n`,
      );
      const { ratio, runs, culprits, split } = runsPerCulprit(runsByCulpritKey);
      process.stdout.write(
        `# runs per culprit key: ${ratio.toFixed(2)} (${runs} runs for ${culprits} culprits)${split.length > 0 ? `; split: ${split.join('; ')}` : ''}\n`,
      );
      if (culprits > 0)
        assert.ok(
          ratio <= MAX_RUNS_PER_CULPRIT,
          `runs per culprit ${ratio.toFixed(2)} is above ${MAX_RUNS_PER_CULPRIT}: ${split.join('; ')}`,
        );
      if (diagnosed.culprits > 0) {
        assert.ok(
          diagnosed.ratio <= MAX_RUNS_PER_DIAGNOSED_CULPRIT,
          `runs per diagnosed culprit ${diagnosed.ratio.toFixed(2)} is above ${MAX_RUNS_PER_DIAGNOSED_CULPRIT}: ${diagnosed.split.join('; ')}`,
        );
      }
    });

    for (const scenarioDir of scenarioDirs) {
      it(
        `${basename(scenarioDir)}: the alerts its metrics fire end in the diagnosis it expects`,
        { timeout: SCENARIO_TIMEOUT_MS + 15_000 },
        async (t) => {
          assert.ok(stack, 'the alerting chain started');
          const scenario = await loadScenario(scenarioDir);
          const trigger = scenario.meta.trigger.alert?.labels;
          if (!trigger) return t.skip('no alert trigger: an incident only');
          const alertname = trigger['alertname'] ?? '';
          if (!alertNames.has(alertname)) {
            assert.ok(
              !MIXIN_ALERT_NAMES.has(alertname),
              `${alertname} is a kubernetes-mixin alert without a rule in deploy/prometheus`,
            );
            return t.skip(`${alertname} is a custom alert with no rule in deploy/prometheus`);
          }
          if (KUBELET_ALERTS.has(alertname))
            return t.skip(`${alertname} reads the kubelet's metrics, which the mock cluster does not serve`);

          // A scenario with a problem must fire its trigger: its alerts are not read before it does (or the time is up).
          const expectsTrigger = scenarioExpect(scenario).category !== 'no-issue';
          const waitFor = expectsTrigger
            ? {
                matches: (labels: Record<string, string>) => matchesTrigger(labels, trigger),
                description: describeAlert(trigger),
              }
            : undefined;
          const fired = await stack.fireScenario({
            scenario,
            timeoutMs: SCENARIO_TIMEOUT_MS,
            ...(waitFor ? { waitFor } : {}),
          });
          for (const alert of fired) t.diagnostic(describeRun(alert));
          recordRuns(scenario.name, fired);
          const firedList = fired.map((alert) => describeAlert(alert.labels)).join(', ') || 'nothing';

          if (scenarioExpect(scenario).category === 'no-issue') {
            const problems = fired.filter((alert) => alert.run.diagnosis?.category !== 'no-issue');
            assert.deepEqual(
              problems.map(describeRun),
              [],
              `a healthy cluster fired alerts kubewhy diagnosed as problems`,
            );
            return;
          }

          const triggered = fired.filter((alert) => matchesTrigger(alert.labels, trigger));
          assert.ok(triggered.length > 0, `${describeAlert(trigger)} did not fire; fired: ${firedList}`);
          for (const alert of triggered) {
            assert.equal(alert.run.status, 'completed', `${describeRun(alert)}\n${JSON.stringify(alert.labels)}`);
            const score = scoreDiagnosis(alert.run.diagnosis, scenarioExpect(scenario), {
              clockShiftMs: alert.clockShiftMs,
            });
            assert.ok(
              score.correct,
              [
                `wrong diagnosis for ${scenario.name}`,
                `alert labels: ${JSON.stringify(alert.labels)}`,
                `diagnosis: ${JSON.stringify(alert.run.diagnosis)}`,
                `expected: ${JSON.stringify(scenarioExpect(scenario))}`,
                `score: ${JSON.stringify(score)}`,
              ].join('\n'),
            );
          }
        },
      );
    }
  },
);
