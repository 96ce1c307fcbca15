/**
 * Tokens and dollars per diagnosis for `kubewhy eval`, and the comparison of several
 * models over the same scenarios: what a team weighs when it picks a model for its own
 * captured incidents. A model without a price says so instead of a guess.
 */
import { addUsage, ZERO_USAGE, type TokenUsage } from '../agent/model.ts';
import { costOf, priceOf, type PriceRow } from './prices.ts';

export interface CostSummary {
  runs: number;
  /** Tokens of all runs together. */
  usage: TokenUsage;
  /** Mean tokens per run (input, output, cache read and write). */
  tokensPerRun: { input: number; output: number; cacheRead: number; cacheWrite: number };
  /** Dollars for all runs, and per run; absent when the model has no price. */
  dollars?: number;
  dollarsPerRun?: number;
  /** Which price row was used (its id and source), or why there is none. */
  price: { id: string; source: string } | { missing: string };
}

interface CostedRow {
  outcome: { usage: TokenUsage };
  score: { correct: boolean };
  durationMs: number;
}

export function summarizeCost(model: string, rows: readonly CostedRow[], overrides: readonly PriceRow[]): CostSummary {
  const usage = rows.reduce((sum, row) => addUsage(sum, row.outcome.usage), ZERO_USAGE);
  const runs = rows.length;
  const mean = (value: number): number => (runs === 0 ? 0 : Math.round(value / runs));
  const row = priceOf(model, overrides);
  const dollars = row ? costOf(usage, row.price) : undefined;
  return {
    runs,
    usage,
    tokensPerRun: {
      input: mean(usage.input),
      output: mean(usage.output),
      cacheRead: mean(usage.cacheRead),
      cacheWrite: mean(usage.cacheWrite),
    },
    ...(dollars !== undefined ? { dollars, dollarsPerRun: runs === 0 ? 0 : dollars / runs } : {}),
    price: row ? { id: row.id, source: row.source } : { missing: `no price for ${model}: give one with --prices FILE` },
  };
}

export function formatCost(cost: CostSummary): string {
  const tokens = `  tokens per diagnosis: ${cost.tokensPerRun.input} input, ${cost.tokensPerRun.output} output, ${cost.tokensPerRun.cacheRead} cache read, ${cost.tokensPerRun.cacheWrite} cache write`;
  const dollars =
    cost.dollarsPerRun !== undefined && 'id' in cost.price
      ? `  cost: ${formatDollars(cost.dollarsPerRun)} per diagnosis, ${formatDollars(cost.dollars ?? 0)} for ${cost.runs} (prices: ${cost.price.id}, ${cost.price.source})`
      : `  cost: unknown (${'missing' in cost.price ? cost.price.missing : ''})`;
  return `${tokens}\n${dollars}\n`;
}

export interface ComparisonRow {
  model: string;
  correct: number;
  runs: number;
  tokensPerRun: number;
  dollarsPerRun?: number;
  dollarsPerCorrect?: number;
  meanMs: number;
}

export function formatComparisonRows(
  evaluations: readonly { model: string; rows: readonly CostedRow[]; cost: CostSummary }[],
): ComparisonRow[] {
  return evaluations.map(({ model, rows, cost }) => {
    const correct = rows.filter((row) => row.score.correct).length;
    const tokens =
      cost.tokensPerRun.input + cost.tokensPerRun.output + cost.tokensPerRun.cacheRead + cost.tokensPerRun.cacheWrite;
    const meanMs = rows.length === 0 ? 0 : Math.round(rows.reduce((sum, row) => sum + row.durationMs, 0) / rows.length);
    return {
      model,
      correct,
      runs: rows.length,
      tokensPerRun: tokens,
      ...(cost.dollarsPerRun !== undefined ? { dollarsPerRun: cost.dollarsPerRun } : {}),
      ...(cost.dollars !== undefined && correct > 0 ? { dollarsPerCorrect: cost.dollars / correct } : {}),
      meanMs,
    };
  });
}

/** One line per model: right answers, tokens and dollars per diagnosis, dollars per right answer, time. */
export function formatComparison(
  evaluations: readonly { model: string; rows: readonly CostedRow[]; cost: CostSummary }[],
): string {
  const header = ['model', 'correct', 'tokens/diagnosis', '$/diagnosis', '$/correct', 'ms/diagnosis'];
  const body = formatComparisonRows(evaluations).map((row) => [
    row.model,
    `${row.correct}/${row.runs}`,
    String(row.tokensPerRun),
    row.dollarsPerRun !== undefined ? formatDollars(row.dollarsPerRun) : 'no price',
    row.dollarsPerCorrect !== undefined ? formatDollars(row.dollarsPerCorrect) : '-',
    String(row.meanMs),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...body.map((cells) => cells[column]!.length)));
  const render = (cells: string[]): string =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  return ['comparison:', render(header), ...body.map(render), ''].join('\n');
}

function formatDollars(value: number): string {
  if (value === 0) return '$0';
  return value < 0.01 ? `$${value.toFixed(5)}` : `$${value.toFixed(4)}`;
}
