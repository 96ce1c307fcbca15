/**
 * `kubewhy validate-scenarios [DIR]`: one line per scenario, exit 1 when any has a problem
 * (or when the directory holds no scenario at all).
 */
import { basename, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { validateScenarios } from './validate.ts';

const USAGE = 'usage: kubewhy validate-scenarios [DIR]   (default: mock-cluster/scenarios)\n';

export async function run(argv: string[]): Promise<number> {
  let positionals: string[];
  try {
    ({ positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { help: { type: 'boolean', short: 'h' } },
    }));
  } catch (error) {
    process.stderr.write(`validate-scenarios: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  const root = resolve(positionals[0] ?? 'mock-cluster/scenarios');
  const reports = await validateScenarios(root);
  if (reports.length === 0) {
    process.stderr.write(
      `validate-scenarios: no scenario (a directory with scenario.yaml) under ${root}: pass the folder to check, kubewhy validate-scenarios DIR\n`,
    );
    return 1;
  }
  const width = Math.max(...reports.map((report) => basename(report.dir).length));
  for (const report of reports) {
    const label = basename(report.dir).padEnd(width);
    const unscored = report.scored ? '' : ' (no expect: it replays, eval skips it)';
    if (report.problems.length === 0)
      process.stdout.write(`ok    ${label}  ${report.objects} objects, ${report.logs} logs${unscored}\n`);
    else process.stdout.write(`FAIL  ${label}  ${report.problems.join('; ')}\n`);
  }
  const failing = reports.filter((report) => report.problems.length > 0).length;
  process.stdout.write(
    `validated ${reports.length} scenarios: ${reports.length - failing} ok, ${failing} with problems\n`,
  );
  return failing === 0 ? 0 : 1;
}
