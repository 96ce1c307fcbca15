/**
 * `npm run bench`: runs every `bench/*.bench.ts` module in turn, in one process, and prints
 * what each reports. A bench module exports `name` and `runBench(): Promise<void>`.
 * `npm run bench -- tools` runs only the modules whose file name contains `tools`.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

interface BenchModule {
  name: string;
  runBench(): Promise<void>;
}

const directory = import.meta.dirname;
const only = process.argv.slice(2);
const files = (await readdir(directory)).filter((file) => file.endsWith('.bench.ts')).sort();
for (const file of files) {
  if (only.length && !only.some((filter) => file.includes(filter))) continue;
  const module = (await import(pathToFileURL(join(directory, file)).href)) as BenchModule;
  process.stdout.write(`\n## ${module.name} (${file})\n\n`);
  await module.runBench();
}
