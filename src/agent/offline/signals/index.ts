/**
 * Every signal table of the offline engine, and the small functions that apply them.
 * Log rows decide a line's verdict; when rows of different verdicts match one line,
 * VERDICT_RANK decides unless a row declares that it outranks the others, and why.
 */
import { ACCESS_LOG_FORMS } from './access-log.ts';
import { CLOUD_CREDENTIAL_SIGNALS } from './cloud-credentials.ts';
import { CLUSTER_DNS_FAILURES } from './cluster-dns.ts';
import { IMAGE_PULL_REASONS, MISSING_REFERENCE_FORMS } from './container.ts';
import { RUNTIME_CRASH_SIGNALS } from './crash-runtimes.ts';
import { CRASH_SIGNALS } from './crash.ts';
import { CREDENTIAL_SIGNALS } from './credentials.ts';
import { DEPENDENCY_CLIENT_SIGNALS } from './dependency-clients.ts';
import { INJECTION_SIGNALS } from './injection.ts';
import { LINE_KINDS } from './line-kinds.ts';
import { MEMORY_SIGNALS } from './memory.ts';
import { NAME_RESOLUTION_SIGNALS } from './name-resolution.ts';
import { QUOTA_REFUSALS } from './quota.ts';
import { REACHABILITY_SIGNALS } from './reachability.ts';
import { SCHEDULING_REASONS } from './scheduling.ts';
import { TARGET_FORMS } from './target-forms.ts';
import { TRANSPORT_CREDENTIAL_SIGNALS } from './transport-credentials.ts';
import type { LogSignal, LogVerdict, Row } from './types.ts';
import { NODE_EXHAUSTION } from './node-exhaustion.ts';

export type { Examples, LogSignal, LogVerdict, Row } from './types.ts';
export { isAccessLogLine } from './access-log.ts';
export { findInjectionLines } from './injection.ts';
export { isQuotaRefusal, QUOTA_REFUSAL, QUOTA_REFUSALS } from './quota.ts';
export { isClusterDnsFailure, readDependencyTarget, type DependencyTarget } from './targets.ts';
export { IMAGE_PULL_REASONS, MISSING_REFERENCE_FORMS, type MissingReference } from './container.ts';
export { SCHEDULING_REASONS, type SchedulingVerdict } from './scheduling.ts';
export { isNodeExhaustion, NODE_EXHAUSTION } from './node-exhaustion.ts';

export const LOG_SIGNALS: readonly LogSignal[] = [
  ...CREDENTIAL_SIGNALS,
  ...CLOUD_CREDENTIAL_SIGNALS,
  ...TRANSPORT_CREDENTIAL_SIGNALS,
  ...REACHABILITY_SIGNALS,
  ...NAME_RESOLUTION_SIGNALS,
  ...DEPENDENCY_CLIENT_SIGNALS,
  ...MEMORY_SIGNALS,
  ...CRASH_SIGNALS,
  ...RUNTIME_CRASH_SIGNALS,
];

/**
 * Which verdict wins when rows of several verdicts match one line. A refused login is
 * often reported inside a failed connection ("connection to server ... failed: FATAL:
 * password authentication failed"), so credentials outrank reachability; a failed
 * connection is reported with an exception class and a FATAL level, and running out of
 * memory is reported as a fatal error, so both outrank a plain crash.
 */
export const VERDICT_RANK: Readonly<Record<LogVerdict, number>> = {
  'bad-credentials': 3,
  'dependency-unreachable': 2,
  oom: 1,
  'app-crash': 0,
};

/** The row that decides the line's verdict, if any row matches. */
export function matchLogSignal(line: string): LogSignal | undefined {
  // Most lines match no row: one test of all patterns at once rules them out.
  if (!ANY_LOG_SIGNAL.test(line)) return undefined;
  return BY_RANK.find((row) => row.pattern.test(line));
}

/** Matches whenever some row does (case-insensitive, so it may match a line no row does). */
const ANY_LOG_SIGNAL = new RegExp(LOG_SIGNALS.map((row) => `(?:${row.pattern.source})`).join('|'), 'i');

function rankOf(row: LogSignal): number {
  // A row that outranks a verdict sits just above it.
  return row.outranks
    ? Math.max(VERDICT_RANK[row.verdict], ...row.outranks.verdicts.map((verdict) => VERDICT_RANK[verdict] + 0.5))
    : VERDICT_RANK[row.verdict];
}

const BY_RANK = [...LOG_SIGNALS].sort((left, right) => rankOf(right) - rankOf(left));

/** Every table, by name, for the test that holds each row to its examples. */
export const SIGNAL_TABLES: Readonly<Record<string, readonly Row[]>> = {
  LOG_SIGNALS,
  ACCESS_LOG_FORMS,
  LINE_KINDS,
  CLUSTER_DNS_FAILURES,
  TARGET_FORMS,
  INJECTION_SIGNALS,
  QUOTA_REFUSALS,
  IMAGE_PULL_REASONS,
  MISSING_REFERENCE_FORMS,
  SCHEDULING_REASONS,
  NODE_EXHAUSTION,
};
