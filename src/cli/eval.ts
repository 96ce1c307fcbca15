/**
 * `kubewhy eval`: every scenario in a folder, from its alert and from its incident text,
 * diagnosed at OBSERVE and scored as SCENARIOS.md defines. Prints a table and totals
 * (or JSON with each full diagnosis) and exits 1 when any run is wrong.
 */
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { createModel } from '../agent/create-model.ts';
import { formatCulprit } from '../agent/diagnosis.ts';
import { createMemoryRunAudit } from '../agent/run-audit.ts';
import { createInMemoryApprovalBroker } from '../gate/approvals.ts';
import { listScenarioDirs, loadScenario, type LoadedScenario } from '../../mock-cluster/index.ts';
import { DEFAULT_LIMITS, runOnScenario, scenarioTriggers } from '../eval/run-scenario.ts';
import { scoreDiagnosis, type Score } from '../eval/score.ts';
import type { RunOutcome } from '../agent/loop.ts';

const USAGE = `usage: kubewhy eval [--scenarios DIR] [--only NAME]... [--json]

  --scenarios DIR   a folder of scenarios (default mock-cluster/scenarios)
  --only NAME       evaluate only this scenario (repeatable)
  --json            print every result with its full diagnosis as JSON`;

export interface EvalRow {
  scenario: string;
  trigger: 'alert' | 'incident';
  expected: { category: string; culprit: string };
  score: Score;
  outcome: RunOutcome;
  durationMs: number;
}

export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      scenarios: { type: 'string', default: 'mock-cluster/scenarios' },
      only: { type: 'string', multiple: true, default: [] },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const config = loadConfig();
  const model = createModel(config.model);
  const directories = await listScenarioDirs(values.scenarios);
  const rows: EvalRow[] = [];
  const broken: { scenario: string; error: string }[] = [];
  for (const directory of directories) {
    // One scenario that cannot be loaded or served is reported as such; the others still run.
    let scenario: LoadedScenario;
    try {
      scenario = await loadScenario(directory);
    } catch (error) {
      if (values.only.length === 0 || values.only.includes(basename(directory))) broken.push({ scenario: basename(directory), error: error instanceof Error ? error.message : String(error) });
      continue;
    }
    if (values.only.length > 0 && !values.only.includes(scenario.name)) continue;
    for (const { kind, trigger } of scenarioTriggers(scenario)) {
      const ran = await runOnScenario({
        scenario,
        trigger,
        model,
        rung: 'OBSERVE',
        policy: { actNamespaces: [] },
        approvals: createInMemoryApprovalBroker(),
        audit: createMemoryRunAudit(),
        runId: `eval-${scenario.name}-${kind}`,
        limits: { ...DEFAULT_LIMITS, maxSteps: config.limits.maxSteps, toolOutputBytes: config.limits.toolOutputBytes },
      }).catch((error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }));
      if ('error' in ran) {
        broken.push({ scenario: `${scenario.name} (${kind})`, error: ran.error });
        continue;
      }
      const { outcome, durationMs } = ran;
      const expect = scenario.meta.expect;
      rows.push({
        scenario: scenario.name,
        trigger: kind,
        expected: { category: expect.category, culprit: expect.culprit },
        score: scoreDiagnosis(outcome.diagnosis, expect),
        outcome,
        durationMs,
      });
    }
  }
  if (values.json) process.stdout.write(`${JSON.stringify({ model: model.name, totals: { ...totals(rows), broken: broken.length }, rows, broken }, null, 2)}\n`);
  else {
    process.stdout.write(formatTable(rows, model.name));
    for (const failure of broken) process.stdout.write(`BROKEN ${failure.scenario}: ${failure.error}\n`);
  }
  return rows.length > 0 && broken.length === 0 && rows.every((row) => row.score.correct) ? 0 : 1;
}

function totals(rows: EvalRow[]): { runs: number; correct: number; wrong: number } {
  const correct = rows.filter((row) => row.score.correct).length;
  return { runs: rows.length, correct, wrong: rows.length - correct };
}

function formatTable(rows: EvalRow[], modelName: string): string {
  const header = ['scenario', 'trigger', 'ok', 'category', 'culprit', 'missing evidence', 'steps', 'calls', 'bytes', 'ms'];
  const body = rows.map((row) => {
    const diagnosis = row.outcome.diagnosis;
    const category = diagnosis ? (row.score.categoryCorrect ? diagnosis.category : `${diagnosis.category}≠${row.expected.category}`) : `(failed: ${row.outcome.reason ?? '?'})`;
    const culprit = diagnosis ? (row.score.culpritCorrect ? formatCulprit(diagnosis.culprit) : `${formatCulprit(diagnosis.culprit)}≠${row.expected.culprit}`) : '-';
    const missing = [...row.score.missingMentions, ...(row.score.remediationCorrect === false ? ['(remediation)'] : [])].join(', ') || '-';
    const bytes = row.outcome.toolCalls.reduce((sum, call) => sum + call.bytes, 0);
    return [row.scenario, row.trigger, row.score.correct ? 'yes' : 'NO', category, culprit, missing, String(row.outcome.steps), String(row.outcome.toolCalls.length), String(bytes), String(Math.round(row.durationMs))];
  });
  const widths = header.map((title, column) => Math.max(title.length, ...body.map((cells) => cells[column]!.length)));
  const render = (cells: string[]): string => cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd();
  const sum = totals(rows);
  return [
    render(header),
    ...body.map(render),
    '',
    `model ${modelName}: ${sum.correct}/${sum.runs} correct, ${sum.wrong} wrong`,
    '',
  ].join('\n');
}
