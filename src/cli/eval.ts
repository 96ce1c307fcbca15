/**
 * `kubewhy eval`: every scenario in a folder, from its alert and from its incident text,
 * diagnosed at OBSERVE and scored as SCENARIOS.md defines; with `--background`, inside a
 * healthy background cluster (or, with `all`, alone and inside each one). Prints a table and
 * totals (or JSON with each full diagnosis) and exits 1 when any run is wrong. Folders it
 * cannot score (no scenario.yaml, no `expect`) are listed as skipped, with the reason; an
 * `--only` name that matches nothing is an error (exit 2) that names the closest ones.
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import type { Model } from '../agent/model.ts';
import { MODEL_PROVIDERS } from '../model-settings.ts';
import {
  formatComparison,
  formatComparisonRows,
  formatCost,
  summarizeCost,
  type CostSummary,
} from '../eval/cost-report.ts';
import { readPricesFile } from '../eval/prices.ts';
import { createModel } from '../agent/models/create-model.ts';
import { formatCulprit } from '../agent/diagnosis.ts';
import { createMemoryRunAudit } from '../agent/run-audit.ts';
import { createInMemoryApprovalBroker } from '../gate/approvals.ts';
import {
  listBackgrounds,
  loadBackground,
  mergeBackground,
  type Background,
  type LoadedScenario,
} from '../../mock-cluster/index.ts';
import { scenarioExpect } from '../../mock-cluster/loader.ts';
import { DEFAULT_LIMITS, runOnScenario, scenarioTriggers } from '../eval/run-scenario.ts';
import { scoreDiagnosis, type Score } from '../eval/score.ts';
import { selectScenarios } from '../eval/select-scenarios.ts';
import type { RunOutcome } from '../agent/loop.ts';

const USAGE = `usage: kubewhy eval [--scenarios DIR] [--only NAME]... [--background NAME|all] [--model SPEC]... [--prices FILE] [--json]

  --scenarios DIR     a folder of scenarios (default mock-cluster/scenarios)
  --only NAME         evaluate only this scenario, by name or folder (repeatable)
  --background NAME   run every scenario inside this healthy background cluster (eks, aks,
                      kubeadm: mock-cluster/backgrounds/); 'all' runs each scenario alone and
                      once inside every background, and names the background in each row
  --model SPEC        the model to score (repeatable, to compare): offline, anthropic[:NAME],
                      bedrock:NAME, vertex:NAME or openai:NAME, with the provider's other
                      settings from the environment (default: the configured model)
  --prices FILE       dollars per million tokens per model, over the built-in list prices:
                      { "<model or prefix*>": { input, output, cacheRead, cacheWrite } }
  --json              print every result with its full diagnosis as JSON`;

export interface EvalRow {
  scenario: string;
  /** The background cluster the scenario ran inside; absent when it ran alone. */
  background?: string;
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
      background: { type: 'string' },
      json: { type: 'boolean', default: false },
      model: { type: 'string', multiple: true, default: [] },
      prices: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  // An unknown name fails here, before any run (a BackgroundError: one line, exit code 2).
  const backgrounds = await backgroundsFor(values.background);
  const selection = await selectScenarios(values.scenarios, values.only);
  if (selection.unmatched.length > 0) {
    for (const { name, closest } of selection.unmatched) {
      process.stderr.write(
        `kubewhy eval: --only ${name}: no scenario of that name in ${values.scenarios}${closest.length > 0 ? `; did you mean ${closest.join(', ')}?` : ''}\n`,
      );
    }
    return 2;
  }
  const prices = values.prices ? readPricesFile(values.prices) : [];
  const configs =
    values.model.length > 0
      ? values.model.map((spec) => loadConfig(undefined, { overrides: modelOverrides(spec) }))
      : [loadConfig()];
  const evaluations: ModelEvaluation[] = [];
  for (const config of configs) {
    const model = await createModel(config.model);
    const { rows, broken } = await evaluateModel({ model, config, scenarios: selection.scenarios, backgrounds });
    // A scenario folder that cannot be loaded is broken for every model.
    evaluations.push({
      model: model.name,
      rows,
      broken: [...selection.broken, ...broken],
      cost: summarizeCost(model.name, rows, prices),
    });
  }
  const { skipped } = selection;
  const withBackgrounds = backgrounds !== undefined;
  if (values.json) {
    const report = (evaluation: ModelEvaluation): Record<string, unknown> => {
      const { rows, broken } = evaluation;
      const byBackground = withBackgrounds
        ? {
            byBackground: Object.fromEntries(
              groupByBackground(rows).map(({ label, rows: group }) => [label, totals(group)]),
            ),
            wrongOnlyInBackground: wrongOnlyInBackground(rows),
          }
        : {};
      return {
        model: evaluation.model,
        totals: { ...totals(rows), broken: broken.length, skipped: skipped.length },
        cost: evaluation.cost,
        byConfidence: byConfidence(rows),
        ...byBackground,
        rows,
        broken,
        skipped,
      };
    };
    const output =
      evaluations.length === 1
        ? report(evaluations[0]!)
        : { models: evaluations.map(report), comparison: formatComparisonRows(evaluations) };
    process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
  } else {
    for (const evaluation of evaluations) {
      process.stdout.write(formatTable(evaluation.rows, evaluation.model, withBackgrounds));
      process.stdout.write(`${formatCost(evaluation.cost)}\n`);
      for (const failure of evaluation.broken) process.stdout.write(`BROKEN ${failure.scenario}: ${failure.error}\n`);
    }
    if (evaluations.length > 1) process.stdout.write(formatComparison(evaluations));
    for (const folder of skipped) process.stdout.write(`SKIPPED ${folder.folder}: ${folder.reason}\n`);
  }
  return evaluations.every(
    (evaluation) =>
      evaluation.rows.length > 0 && evaluation.broken.length === 0 && evaluation.rows.every((row) => row.score.correct),
  )
    ? 0
    : 1;
}

interface ModelEvaluation {
  model: string;
  rows: EvalRow[];
  broken: { scenario: string; error: string }[];
  cost: CostSummary;
}

/** Every selected scenario, from each trigger, alone or in each background, diagnosed by one model. */
async function evaluateModel(input: {
  model: Model;
  config: Config;
  scenarios: readonly LoadedScenario[];
  backgrounds: { all: boolean; loaded: Background[] } | undefined;
}): Promise<{ rows: EvalRow[]; broken: { scenario: string; error: string }[] }> {
  const { model, config } = input;
  const rows: EvalRow[] = [];
  const broken: { scenario: string; error: string }[] = [];
  for (const scenario of input.scenarios) {
    for (const { background, placed } of placements(scenario, input.backgrounds)) {
      const suffix = background ? ` in ${background}` : '';
      for (const { kind, trigger } of scenarioTriggers(placed)) {
        const ran = await runOnScenario({
          scenario: placed,
          trigger,
          model,
          rung: 'OBSERVE',
          policy: { actNamespaces: [] },
          approvals: createInMemoryApprovalBroker(),
          audit: createMemoryRunAudit(),
          runId: `eval-${scenario.name}-${kind}${background ? `-${background}` : ''}`,
          limits: {
            ...DEFAULT_LIMITS,
            maxSteps: config.limits.maxSteps,
            toolOutputBytes: config.limits.toolOutputBytes,
          },
        }).catch((error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }));
        if ('error' in ran) {
          broken.push({ scenario: `${scenario.name} (${kind})${suffix}`, error: ran.error });
          continue;
        }
        const { outcome, durationMs, clockShiftMs } = ran;
        const expect = scenarioExpect(scenario);
        rows.push({
          scenario: scenario.name,
          ...(background ? { background } : {}),
          trigger: kind,
          expected: { category: expect.category, culprit: expect.culprit },
          score: scoreDiagnosis(outcome.diagnosis, expect, { clockShiftMs }),
          outcome,
          durationMs,
        });
      }
    }
  }
  return { rows, broken };
}

/** `--model offline`, `anthropic`, `openai:gpt-4.1`, `openai:llama3.1:8b` (the name keeps its own colons): the settings it overrides. */
export function modelOverrides(spec: string): Record<string, string> {
  const separator = spec.indexOf(':');
  const provider = separator === -1 ? spec : spec.slice(0, separator);
  const name = separator === -1 ? '' : spec.slice(separator + 1);
  if (!MODEL_PROVIDERS.includes(provider as (typeof MODEL_PROVIDERS)[number]) || provider === 'auto') {
    throw new ConfigError(
      `--model ${spec}: expected offline, anthropic[:NAME], bedrock:NAME, vertex:NAME or openai:NAME`,
    );
  }
  return { KUBEWHY_MODEL: provider, ...(name ? { KUBEWHY_MODEL_NAME: name } : {}) };
}

/** How often the diagnoses said with each confidence were right: what a confidence level is worth. */
export function byConfidence(rows: readonly EvalRow[]): { level: string; correct: number; runs: number }[] {
  return ['high', 'medium', 'low', 'none']
    .map((level) => {
      const group = rows.filter((row) => (row.outcome.diagnosis?.confidence ?? 'none') === level);
      return { level, correct: group.filter((row) => row.score.correct).length, runs: group.length };
    })
    .filter((entry) => entry.runs > 0 || entry.level !== 'none');
}

function totals(rows: EvalRow[]): { runs: number; correct: number; wrong: number } {
  const correct = rows.filter((row) => row.score.correct).length;
  return { runs: rows.length, correct, wrong: rows.length - correct };
}

/** The backgrounds to run in: none (undefined), one, or every one for `all` (alone too). */
async function backgroundsFor(option: string | undefined): Promise<{ all: boolean; loaded: Background[] } | undefined> {
  if (option === undefined) return undefined;
  const names = option === 'all' ? await listBackgrounds() : [option];
  return { all: option === 'all', loaded: await Promise.all(names.map((name) => loadBackground(name))) };
}

function placements(
  scenario: LoadedScenario,
  backgrounds: { all: boolean; loaded: Background[] } | undefined,
): { background?: string; placed: LoadedScenario }[] {
  if (!backgrounds) return [{ placed: scenario }];
  const inside = backgrounds.loaded.map((background) => ({
    background: background.name,
    placed: mergeBackground(scenario, background),
  }));
  return backgrounds.all ? [{ placed: scenario }, ...inside] : inside;
}

const ALONE = 'alone';

function groupByBackground(rows: EvalRow[]): { label: string; rows: EvalRow[] }[] {
  const labels = [...new Set(rows.map((row) => row.background ?? ALONE))];
  return labels.map((label) => ({ label, rows: rows.filter((row) => (row.background ?? ALONE) === label) }));
}

/** `scenario (trigger) in background` for each run that is right alone and wrong inside a background. */
function wrongOnlyInBackground(rows: EvalRow[]): string[] {
  const rightAlone = new Set(
    rows.filter((row) => !row.background && row.score.correct).map((row) => `${row.scenario} (${row.trigger})`),
  );
  return rows
    .filter((row) => row.background && !row.score.correct && rightAlone.has(`${row.scenario} (${row.trigger})`))
    .map((row) => `${row.scenario} (${row.trigger}) in ${row.background}`);
}

function formatTable(rows: EvalRow[], modelName: string, withBackgrounds: boolean): string {
  const header = [
    'scenario',
    ...(withBackgrounds ? ['background'] : []),
    'trigger',
    'ok',
    'category',
    'culprit',
    'missing evidence',
    'steps',
    'calls',
    'bytes',
    'ms',
  ];
  const body = rows.map((row) => {
    const diagnosis = row.outcome.diagnosis;
    const category = diagnosis
      ? row.score.categoryCorrect
        ? diagnosis.category
        : `${diagnosis.category}≠${row.expected.category}`
      : `(failed: ${row.outcome.reason ?? '?'})`;
    const culprit = diagnosis
      ? row.score.culpritCorrect
        ? formatCulprit(diagnosis.culprit)
        : `${formatCulprit(diagnosis.culprit)}≠${row.expected.culprit}`
      : '-';
    const missing =
      [...row.score.missingMentions, ...(row.score.remediationCorrect === false ? ['(remediation)'] : [])].join(', ') ||
      '-';
    const bytes = row.outcome.toolCalls.reduce((sum, call) => sum + call.bytes, 0);
    return [
      row.scenario,
      ...(withBackgrounds ? [row.background ?? '-'] : []),
      row.trigger,
      row.score.correct ? 'yes' : 'NO',
      category,
      culprit,
      missing,
      String(row.outcome.steps),
      String(row.outcome.toolCalls.length),
      String(bytes),
      String(Math.round(row.durationMs)),
    ];
  });
  const widths = header.map((title, column) => Math.max(title.length, ...body.map((cells) => cells[column]!.length)));
  const render = (cells: string[]): string =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  const sum = totals(rows);
  const perBackground = withBackgrounds
    ? [
        ...groupByBackground(rows).map(
          ({ label, rows: group }) =>
            `  ${label === ALONE ? 'alone' : `in background ${label}`}: ${totals(group).correct}/${totals(group).runs} correct`,
        ),
        ...(rows.some((row) => !row.background)
          ? [`  wrong only inside a background: ${wrongOnlyInBackground(rows).join(', ') || 'none'}`]
          : []),
      ]
    : [];
  return [
    render(header),
    ...body.map(render),
    '',
    `model ${modelName}: ${sum.correct}/${sum.runs} correct, ${sum.wrong} wrong`,
    ...perBackground,
    `  by confidence: ${byConfidence(rows)
      .map(
        ({ level, correct, runs }) =>
          `${level} ${correct}/${runs} correct${runs ? ` (${Math.round((100 * correct) / runs)}%)` : ''}`,
      )
      .join(', ')}`,
    '',
  ].join('\n');
}
