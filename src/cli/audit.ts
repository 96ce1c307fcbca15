/**
 * `kubewhy audit verify [--run ID]`: checks the hash chains in the audit store and
 * reports every changed, missing or inserted event. `kubewhy audit show --run ID` prints
 * a run's events as NDJSON.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { existsSync } from 'node:fs';
import { loadConfig } from '../config.ts';
import { createAuditStore } from '../audit/audit-store.ts';
import { openDatabase } from '../store/database.ts';

const USAGE = `usage: kubewhy audit verify [--run ID] [--data-dir DIR]
       kubewhy audit show --run ID [--data-dir DIR]`;

export async function run(argv: string[]): Promise<number> {
  const [subcommand, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: { run: { type: 'string' }, 'data-dir': { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } },
  });
  if (values.help || (subcommand !== 'verify' && subcommand !== 'show')) {
    process.stdout.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const path = join(values['data-dir'] ?? loadConfig().dataDir, 'kubewhy.db');
  if (!existsSync(path)) {
    process.stderr.write(`kubewhy audit: no audit store at ${path}\n`);
    return 2;
  }
  const database = openDatabase(path);
  try {
    const store = createAuditStore(database);
    if (subcommand === 'show') {
      if (!values.run) {
        process.stderr.write(`kubewhy audit show: --run ID is required\n`);
        return 2;
      }
      for (const event of store.list(values.run)) process.stdout.write(`${JSON.stringify(event)}\n`);
      return 0;
    }
    const report = store.verify(values.run);
    for (const problem of report.problems) {
      process.stdout.write(`FAIL run ${problem.runId}${problem.seq === undefined ? '' : ` seq ${problem.seq}`}: ${problem.problem}\n`);
    }
    const verdict = report.problems.length === 0 ? 'OK' : `${report.problems.length} problem(s)`;
    process.stdout.write(`audit ${verdict}: ${report.runs} run(s), ${report.events} event(s) checked in ${path}\n`);
    return report.problems.length === 0 ? 0 : 1;
  } finally {
    database.close();
  }
}
