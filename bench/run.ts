/**
 * `npm run bench`: runs every `bench/*.bench.ts` module in turn, in one process, prints
 * what each reports, and ends with one table of every figure against its aim (see
 * summary.ts). `npm run bench -- tools` runs only the modules whose file name contains `tools`.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { formatSummary, type BenchModule, type SummaryRow } from './summary.ts';

const directory = import.meta.dirname;
const only = process.argv.slice(2);
const files = (await readdir(directory)).filter((file) => file.endsWith('.bench.ts')).sort();
const summary: SummaryRow[] = [];
for (const file of files) {
  if (only.length && !only.some((filter) => file.includes(filter))) continue;
  const module = (await import(pathToFileURL(join(directory, file)).href)) as BenchModule;
  process.stdout.write(`\n## ${module.name} (${file})\n\n`);
  summary.push(...((await module.runBench()) ?? []));
}
if (summary.length > 0) process.stdout.write(`\n## summary\n\n${formatSummary(summary)}\n`);
