/**
 * The one table `npm run bench` ends with: each bench module returns the figures it
 * measured as rows, and the runner prints them together once every module has run.
 */

export interface SummaryRow {
  /** What is measured, e.g. "ingest while diagnosing, 1-alert payloads". */
  figure: string;
  /** kubewhy's number, formatted with its unit ("1,234 req/s", "61 ms", "0.9 MB"). */
  kubewhy: string;
  /** The baseline measured in the same run, formatted with its unit ("-" when the figure is absolute). */
  baseline: string;
  /** kubewhy against the baseline (or the figure itself when there is no baseline). */
  ratio: number;
  /** The target, as written ("≥ 0.5", "≤ 2×", "≤ 350 MiB"). */
  aim: string;
  met: boolean;
}

/** A bench module: `runBench` prints its own detail and returns its rows for the summary. */
export interface BenchModule {
  name: string;
  runBench(): Promise<SummaryRow[] | void>;
}

/** The middle value (the upper one of an even count); NaN for none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Rows as aligned columns, two spaces apart. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_cell, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** The summary table, one line per figure. */
export function formatSummary(rows: readonly SummaryRow[]): string {
  const lines = [['figure', 'kubewhy', 'baseline', 'ratio', 'aim', 'met']];
  for (const row of rows)
    lines.push([
      row.figure,
      row.kubewhy,
      row.baseline,
      Number.isFinite(row.ratio) ? row.ratio.toFixed(2) : '-',
      row.aim,
      row.met ? 'met' : 'NOT met',
    ]);
  return table(lines);
}
