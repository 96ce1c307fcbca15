/**
 * `kubewhy audit verify [--run ID] [--anchors FILE]... [--key-file FILE]`: checks the
 * hash chains in the audit store, the runs table against the chains, and (with
 * --anchors) the chains against the signed audit heads the service logged, which
 * anyone rewriting the database cannot reach. Reports every problem with its run id;
 * exit 0 when all is well, 1 on any problem, 2 on a usage error.
 * `kubewhy audit show --run ID` prints a run's events as NDJSON.
 */
import type { DatabaseSync } from 'node:sqlite';
import { createReadStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { addAnchorLine, emptyAnchorLog, type AnchorLog } from '../audit/anchor-log.ts';
import {
  crossCheckAudit,
  readSqliteAuditTables,
  type AuditTables,
  type CrossCheckReport,
  type Finding,
} from '../audit/anchor-verify.ts';
import { AUDIT_KEY_SETTING, keyIdOf, readAuditKey } from '../audit/anchors.ts';
import { createAuditStore, type AuditStore } from '../audit/audit-store.ts';
import { ConfigError, loadConfig } from '../config.ts';
import { openDatabaseReadOnly } from '../store/database.ts';
import { asAsync } from '../store/sqlite-stores.ts';

const USAGE = `usage: kubewhy audit verify [--run ID] [--data-dir DIR] [--anchors FILE]... [--key-file FILE]
       kubewhy audit show --run ID [--data-dir DIR]

verify checks each run's hash chain, that every finished run has a chain and every
chain a run, and, with --anchors, that each chain still holds the head the service
logged for it when the run ended (the "auditHead" lines of its shipped logs).
It reads the SQLite file in the data directory, or, when KUBEWHY_DATABASE_URL is set
(and --data-dir is not given), that PostgreSQL database, in read-only transactions.
  --anchors FILE   service logs holding auditHead lines (NDJSON, other lines are
                   skipped; "-" reads stdin); repeatable, later lines win
  --key-file FILE  the key the anchors were signed with (default: ${AUDIT_KEY_SETTING})
exit status: 0 all is well, 1 a problem was found, 2 a usage error`;

class UsageError extends Error {
  override name = 'UsageError';
}

export async function run(argv: string[]): Promise<number> {
  const [subcommand, ...rest] = argv;
  if (subcommand === undefined || subcommand === '--help' || subcommand === '-h' || subcommand === 'help') {
    (subcommand === undefined ? process.stderr : process.stdout).write(`${USAGE}\n`);
    return subcommand === undefined ? 2 : 0;
  }
  if (subcommand !== 'verify' && subcommand !== 'show') {
    process.stderr.write(`kubewhy audit: unknown subcommand '${subcommand}' (it has verify and show)\n\n${USAGE}\n`);
    return 2;
  }
  const { values } = parseArgs({
    args: rest,
    options: {
      run: { type: 'string' },
      'data-dir': { type: 'string' },
      anchors: { type: 'string', multiple: true, default: [] },
      'key-file': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  let inputs: {
    databaseUrl: string | undefined;
    path: string;
    anchors: AnchorLog | undefined;
    key: Buffer | undefined;
  };
  try {
    if (subcommand === 'show' && (values.anchors.length > 0 || values['key-file']))
      throw new UsageError('--anchors and --key-file apply to verify only');
    const config = values['data-dir'] === undefined ? loadConfig() : undefined;
    inputs = {
      // --data-dir names a SQLite directory; otherwise the service's own store: its PostgreSQL database when it has one.
      databaseUrl: config?.store.databaseUrl,
      path: join(values['data-dir'] ?? config?.dataDir ?? 'data', 'kubewhy.db'),
      anchors: values.anchors.length > 0 ? await readAnchorFiles(values.anchors) : undefined,
      key: readVerifyKey({ keyFile: values['key-file'], needed: values.anchors.length > 0 }),
    };
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) {
      process.stderr.write(`kubewhy audit ${subcommand}: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  const source = await openSource(inputs);
  if ('problem' in source) {
    process.stderr.write(`kubewhy audit: ${source.problem}\n`);
    return 2;
  }
  try {
    const store = source.audit;
    if (values.run !== undefined && (await store.list(values.run, { limit: 1 })).length === 0) {
      process.stderr.write(
        `kubewhy audit ${subcommand}: no run ${values.run} in ${source.location} (a run id is printed by diagnose and shown by GET /v1/runs; runs past the retention period are removed)\n`,
      );
      return 1;
    }
    if (subcommand === 'show') {
      if (!values.run) {
        process.stderr.write(`kubewhy audit show: --run ID is required\n`);
        return 2;
      }
      for (const event of await store.list(values.run)) process.stdout.write(`${JSON.stringify(event)}\n`);
      return 0;
    }
    const crossCheck = await crossCheckAudit({
      tables: await source.tables(),
      audit: store,
      ...optional({ anchors: inputs.anchors?.anchors, key: inputs.key, runId: values.run }),
    });
    return await printVerdict({
      store,
      runId: values.run,
      path: source.location,
      anchorFiles: values.anchors,
      anchors: inputs.anchors,
      key: inputs.key,
      crossCheck,
    });
  } finally {
    await source.close();
  }
}

/** What verify and show read: the SQLite file, read only, or the PostgreSQL database, in read-only transactions. */
async function openSource(inputs: {
  databaseUrl: string | undefined;
  path: string;
}): Promise<
  { location: string; audit: AuditStore; tables(): Promise<AuditTables>; close(): Promise<void> } | { problem: string }
> {
  if (inputs.databaseUrl) {
    const { openPostgresAuditReader } = await import('../store/postgres/audit-reader.ts');
    const { redactDatabaseUrl } = await import('../store/postgres/stores.ts');
    try {
      return await openPostgresAuditReader(inputs.databaseUrl);
    } catch (error) {
      // The driver's message names the host and the user, never the password.
      return {
        problem: `cannot read ${redactDatabaseUrl(inputs.databaseUrl)}: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
  }
  if (!existsSync(inputs.path)) return { problem: `no audit store at ${inputs.path}` };
  let database: DatabaseSync;
  try {
    // Read only: verifying must not change what it examines (no schema step, no write).
    database = openDatabaseReadOnly(inputs.path);
  } catch (error) {
    return { problem: `cannot open ${inputs.path}: ${error instanceof Error ? error.message : String(error)}` };
  }
  return {
    location: inputs.path,
    audit: asAsync(createAuditStore(database)),
    tables: () => Promise.resolve(readSqliteAuditTables(database)),
    close: () => Promise.resolve(database.close()),
  };
}

async function printVerdict(input: {
  store: AuditStore;
  runId: string | undefined;
  path: string;
  anchorFiles: string[];
  anchors: AnchorLog | undefined;
  key: Buffer | undefined;
  crossCheck: CrossCheckReport;
}): Promise<number> {
  const { crossCheck, anchors } = input;
  const chains = await input.store.verify(input.runId);
  const write = (line: string): boolean => process.stdout.write(`${line}\n`);
  for (const problem of chains.problems) {
    write(`FAIL run ${problem.runId}${problem.seq === undefined ? '' : ` seq ${problem.seq}`}: ${problem.problem}`);
  }
  const malformed = (anchors?.malformed ?? []).filter(
    (entry) => input.runId === undefined || entry.runId === input.runId,
  );
  for (const entry of malformed)
    write(`FAIL ${entry.runId ? `run ${entry.runId} ` : ''}[anchor-malformed]: ${entry.source}: ${entry.problem}`);
  for (const finding of crossCheck.problems) write(`FAIL ${describeFinding(finding)}`);

  const warnings = summariseWarnings(crossCheck);
  for (const warning of warnings) write(`WARN ${warning}`);
  const problems = chains.problems.length + malformed.length + crossCheck.problems.length;
  const verdict = problems === 0 ? 'OK' : `${problems} problem(s)`;
  const warned = warnings.length === 0 ? '' : ` (${warnings.length} warning(s))`;
  write(
    `audit ${verdict}: ${chains.runs} run(s), ${chains.events} event(s) checked in ${input.path}${describeAnchors(input)}${warned}`,
  );
  return problems === 0 ? 0 : 1;
}

function describeFinding(finding: Finding): string {
  return `${finding.runId ? `run ${finding.runId} ` : ''}[${finding.kind}]: ${finding.message}`;
}

/** Unsigned anchors come in bulk when no key was ever configured: one line says it. */
function summariseWarnings(report: CrossCheckReport): string[] {
  const unsigned = report.warnings.filter((warning) => warning.kind === 'anchor-unsigned');
  const lines = report.warnings.filter((warning) => warning.kind !== 'anchor-unsigned').map(describeFinding);
  if (unsigned.length > 0) {
    lines.push(
      `[anchor-unsigned]: ${unsigned.length} anchor(s) are unsigned (${listRuns(unsigned)}): they prove the heads only as far as the shipped logs are trusted; set ${AUDIT_KEY_SETTING} on the service to sign them`,
    );
  }
  if (report.unchecked > 0) {
    lines.push(
      `[anchor-unchecked]: the signatures of ${report.unchecked} anchor(s) were not checked: no key given (--key-file or ${AUDIT_KEY_SETTING})`,
    );
  }
  return lines;
}

function listRuns(findings: readonly Finding[]): string {
  const shown = findings.slice(0, 3).map((finding) => `run ${finding.runId}`);
  return findings.length > 3 ? `${shown.join(', ')}, …` : shown.join(', ');
}

function describeAnchors(input: {
  anchorFiles: string[];
  anchors: AnchorLog | undefined;
  key: Buffer | undefined;
  crossCheck: CrossCheckReport;
}): string {
  if (!input.anchors)
    return '; no anchors given (--anchors FILE checks the chains against the heads the service logged)';
  const retired =
    input.crossCheck.retired > 0 ? `, ${input.crossCheck.retired} matched the heads of runs removed by retention` : '';
  const key = input.key ? `, signatures checked with key id ${keyIdOf(input.key)}` : '';
  return `; ${input.crossCheck.matched} anchor(s) from ${input.anchorFiles.join(', ')} matched their chains${retired}${key}`;
}

/** Reads the anchor files line by line, in order (logs of months need not fit in memory). */
async function readAnchorFiles(paths: readonly string[]): Promise<AnchorLog> {
  const log = emptyAnchorLog();
  for (const path of paths) {
    const name = path === '-' ? 'stdin' : path;
    const input = path === '-' ? process.stdin : createReadStream(path, { encoding: 'utf8' });
    let lineNumber = 0;
    try {
      for await (const line of createInterface({ input, crlfDelay: Infinity }))
        addAnchorLine(log, line, `${name}:${++lineNumber}`);
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
      throw new UsageError(`cannot read the anchors file ${path} (${reason})`);
    }
  }
  if (log.lines === 0)
    throw new UsageError(
      `no audit anchors (log lines with "auditHead") in ${paths.join(', ')}: give the service's logs`,
    );
  return log;
}

/** The key from --key-file, else from the setting when anchors are to be checked. */
function readVerifyKey(input: { keyFile: string | undefined; needed: boolean }): Buffer | undefined {
  if (input.keyFile) return readAuditKey(input.keyFile, '--key-file');
  if (!input.needed) return undefined;
  const configured = loadConfig().audit.keyFile;
  return configured ? readAuditKey(configured) : undefined;
}

/** Drops the members that are undefined (exactOptionalPropertyTypes). */
function optional<T extends Record<string, unknown>>(values: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}
