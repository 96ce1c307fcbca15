/**
 * Checks the audit store against what lies outside its chains: the runs table, and the
 * anchors read from shipped logs. The hash chains alone cannot show a run deleted
 * whole, or a chain rewritten with its hashes recomputed; these checks can.
 *
 * - Runs table, always: a finished run without a chain, and a chain without a run (a
 *   `kubewhy diagnose` run and an MCP client's calls have no run row by design: their
 *   chains say `source: cli` or `source: mcp`).
 * - Anchors, when given: each anchor's signature, then the chain must still hold the
 *   anchored event with the anchored hash. The chain may have grown past it (a run
 *   anchored when the service stopped goes on at the next start), never shrunk.
 * - Runs removed by retention are kept in `audit_retired` with their last head, when
 *   that table exists: an anchor of such a run is expected to find no chain.
 */
import type { DatabaseSync } from 'node:sqlite';
import type { AuditStore as FullAuditStore } from '../store/ports.ts';
import type { LoggedAnchor } from './anchor-log.ts';
import { checkAnchorSignature } from './anchors.ts';

type AuditStore = Pick<FullAuditStore, 'runIds' | 'list'>;

/** What the database holds beside the chains: each run's status, and the heads of runs retention removed. */
export interface AuditTables {
  runs: ReadonlyMap<string, string>;
  retired: ReadonlyMap<string, RetiredHead>;
}

export type FindingKind =
  | 'chain-truncated'
  | 'chain-rewritten'
  | 'chain-deleted'
  | 'run-deleted'
  | 'anchor-forged'
  | 'anchor-malformed'
  | 'retired-mismatch'
  | 'retired-unlogged'
  | 'chain-without-run'
  | 'run-without-chain'
  | 'anchor-unsigned'
  | 'anchor-unchecked';

export interface Finding {
  runId?: string;
  kind: FindingKind;
  message: string;
}

export interface CrossCheckReport {
  problems: Finding[];
  warnings: Finding[];
  /** Anchors whose run still holds the anchored head. */
  matched: number;
  /** Anchors of runs removed by retention, whose retired head is the anchored one. */
  retired: number;
  /** Signed anchors whose signature was not checked, for want of a key. */
  unchecked: number;
}

export interface CrossCheckInput {
  tables: AuditTables;
  audit: AuditStore;
  /** Anchors by run id; undefined checks the runs table only. */
  anchors?: ReadonlyMap<string, LoggedAnchor>;
  /** The key anchors were signed with; without it signatures are not checked. */
  key?: Buffer;
  /** Only this run. */
  runId?: string;
}

export interface RetiredHead {
  seq: number;
  hash: string;
  retiredAt: string;
}

const FINISHED_STATUSES = new Set(['completed', 'failed']);

export async function crossCheckAudit(input: CrossCheckInput): Promise<CrossCheckReport> {
  const report: CrossCheckReport = { problems: [], warnings: [], matched: 0, retired: 0, unchecked: 0 };
  const { runs, retired } = input.tables;
  const chains = new Set(await input.audit.runIds());
  const inScope = (runId: string): boolean => input.runId === undefined || input.runId === runId;
  const reported = new Set<string>();

  for (const anchor of input.anchors?.values() ?? []) {
    if (!inScope(anchor.runId)) continue;
    const finding = await checkAnchor({ anchor, input, runs, retired, chains, report });
    if (finding) {
      report.problems.push(finding);
      reported.add(anchor.runId);
    }
  }
  for (const runId of chains) {
    if (
      !inScope(runId) ||
      runs.has(runId) ||
      retired.has(runId) ||
      reported.has(runId) ||
      (await isRunlessChain(input.audit, runId))
    )
      continue;
    report.problems.push({
      runId,
      kind: 'chain-without-run',
      message: 'an audit chain whose run is not in the runs table (the run row was deleted, or the chain was made up)',
    });
  }
  for (const [runId, status] of runs) {
    if (!inScope(runId) || !FINISHED_STATUSES.has(status) || chains.has(runId) || reported.has(runId)) continue;
    report.problems.push({
      runId,
      kind: 'run-without-chain',
      message: `a ${status} run without any audit events or head (its chain was deleted)`,
    });
  }
  return report;
}

async function checkAnchor(context: {
  anchor: LoggedAnchor;
  input: CrossCheckInput;
  runs: ReadonlyMap<string, string>;
  retired: ReadonlyMap<string, RetiredHead>;
  chains: ReadonlySet<string>;
  report: CrossCheckReport;
}): Promise<Finding | undefined> {
  const { anchor, input, report } = context;
  const runId = anchor.runId;
  const anchored = `anchored at seq ${anchor.seq} on ${anchor.time} (${anchor.source})`;
  if (!anchor.signature) {
    report.warnings.push({
      runId,
      kind: 'anchor-unsigned',
      message: `the anchor at ${anchor.source} is unsigned: it proves the head only as far as the shipped logs are trusted`,
    });
  } else if (!input.key) {
    report.unchecked++;
  } else {
    const check = checkAnchorSignature(anchor, anchor.signature, input.key);
    if (!check.valid)
      return {
        runId,
        kind: 'anchor-forged',
        message: `the anchor at ${anchor.source} is forged or signed with another key: ${check.problem}`,
      };
  }

  if (!context.chains.has(runId)) {
    const retiredHead = context.retired.get(runId);
    if (retiredHead) return checkRetired({ anchor, retiredHead, report, anchored });
    if (context.runs.has(runId)) {
      return {
        runId,
        kind: 'chain-deleted',
        message: `the run is in the runs table but its audit events and head are gone; it was ${anchored}`,
      };
    }
    return {
      runId,
      kind: 'run-deleted',
      message: `neither the run nor its audit chain is in the database; it was ${anchored} (the run was deleted)`,
    };
  }
  const chain = await input.audit.list(runId);
  const event = chain.find((candidate) => candidate.seq === anchor.seq);
  const lastSeq = chain.at(-1)?.seq ?? 0;
  if (!event && lastSeq < anchor.seq) {
    return {
      runId,
      kind: 'chain-truncated',
      message: `the chain ends at seq ${lastSeq} but it was ${anchored}: events were cut from its end (tail truncation)`,
    };
  }
  if (!event) {
    return {
      runId,
      kind: 'chain-rewritten',
      message: `the chain has no event seq ${anchor.seq}, yet it was ${anchored} (events were removed and renumbered)`,
    };
  }
  if (event.hash !== anchor.hash) {
    return {
      runId,
      kind: 'chain-rewritten',
      message: `event seq ${anchor.seq} has hash ${event.hash.slice(0, 16)}… but it was ${anchored} with hash ${anchor.hash.slice(0, 16)}…: the chain was rewritten and its hashes recomputed`,
    };
  }
  report.matched++;
  return undefined;
}

function checkRetired(input: {
  anchor: LoggedAnchor;
  retiredHead: RetiredHead;
  report: CrossCheckReport;
  anchored: string;
}): Finding | undefined {
  const { anchor, retiredHead, report } = input;
  if (retiredHead.seq === anchor.seq && retiredHead.hash === anchor.hash) {
    // Retention logs a signed "run retired" line as it removes a run; rows removed by hand leave none.
    if (!anchor.retired && anchor.signature) {
      return {
        runId: anchor.runId,
        kind: 'retired-unlogged',
        message: `recorded as removed by retention on ${retiredHead.retiredAt}, but the logs hold no signed "run retired" line for it, only that it was ${input.anchored}: the run may have been removed by hand and its head copied into audit_retired`,
      };
    }
    report.retired++;
    return undefined;
  }
  if (retiredHead.seq > anchor.seq) {
    // The run went on after this anchor; with its chain gone the anchored part cannot be checked.
    report.warnings.push({
      runId: anchor.runId,
      kind: 'anchor-unchecked',
      message: `retired at seq ${retiredHead.seq} on ${retiredHead.retiredAt}, after it was ${input.anchored}: the anchored events cannot be checked any more`,
    });
    return undefined;
  }
  return {
    runId: anchor.runId,
    kind: 'retired-mismatch',
    message: `recorded as retired at seq ${retiredHead.seq} (hash ${retiredHead.hash.slice(0, 16)}…) on ${retiredHead.retiredAt}, but it was ${input.anchored} with hash ${anchor.hash.slice(0, 16)}…: the retired head was altered`,
  };
}

/** Chains that keep no run row by design: `kubewhy diagnose`'s (source cli) and an MCP client's calls (source mcp). */
const RUNLESS_SOURCES = new Set(['cli', 'mcp']);

async function isRunlessChain(audit: AuditStore, runId: string): Promise<boolean> {
  const [first] = await audit.list(runId, { limit: 1 });
  return first?.seq === 1 && first.type === 'run-created' && RUNLESS_SOURCES.has(String(first.payload.source));
}

/** A SQLite database's tables (those it has: an old one may lack audit_retired). */
export function readSqliteAuditTables(database: DatabaseSync): AuditTables {
  return { runs: readRuns(database), retired: readRetired(database) };
}

/** Run id → status. */
function readRuns(database: DatabaseSync): Map<string, string> {
  if (!hasTable(database, 'runs')) return new Map();
  const rows = database.prepare('SELECT id, status FROM runs').all() as { id: string; status: string }[];
  return new Map(rows.map((row) => [row.id, row.status]));
}

function readRetired(database: DatabaseSync): Map<string, RetiredHead> {
  if (!hasTable(database, 'audit_retired')) return new Map();
  const rows = database.prepare('SELECT run_id, seq, hash, retired_at FROM audit_retired').all() as {
    run_id: string;
    seq: number;
    hash: string;
    retired_at: string;
  }[];
  return new Map(rows.map((row) => [row.run_id, { seq: row.seq, hash: row.hash, retiredAt: row.retired_at }]));
}

function hasTable(database: DatabaseSync, name: string): boolean {
  return database.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}
