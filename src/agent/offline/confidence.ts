/**
 * What a confidence level claims, checked against what the finding rests on. A rule states
 * the confidence its signal deserves; these rows then lower it where the first sight of
 * incidents nobody described showed that kind of answer to be wrong more often than its
 * level says: "healthy now" with nothing on record of why the alert fired, a recovery with
 * no failure it can name, a catch-all crash whose log also shows an access refusal it did not
 * read. Each row only lowers, and each has examples of where it applies and where not.
 */
import type { Category } from '../diagnosis.ts';

export type Confidence = 'high' | 'medium' | 'low';

/** What a row reads: the decided finding and the final evidence. */
export interface Claim {
  category: Category;
  confidence: Confidence;
  /** The rule that decided (rules/table.ts ids). */
  rule?: string;
  /** Every evidence line of the diagnosis. */
  evidence: readonly string[];
  /** The kubelet reported the pod failing a probe (an Unhealthy event), whether or not the evidence quotes it. */
  probeFailed?: boolean;
}

export interface CalibrationRow {
  id: string;
  means: string;
  applies(claim: Claim): boolean;
  /** The level it lowers the claim to (never raises it). */
  atMost: Confidence;
  examples: { applies: Claim[]; doesNotApply: Claim[] };
}

/** An access refusal in a log line: a credential or permission problem, not a crash of the app's own. */
const ACCESS_REFUSAL = /(\b(HTTP|status|code)\b\W{0,3}|\()(401|403)\b|\b(forbidden|unauthori[sz]ed|permission denied|access denied|AccessDenied)\b/i;

export const CALIBRATION: readonly CalibrationRow[] = [
  {
    id: 'healthy-now-without-a-reason',
    means: 'every pod is well now, but nothing on record says why the alert fired or what the person saw: the failure may be one the tools cannot see',
    applies: (claim) => claim.category === 'no-issue' && claim.rule === 'workload-healthy',
    atMost: 'low',
    examples: {
      applies: [{ category: 'no-issue', confidence: 'medium', rule: 'workload-healthy', evidence: ['all 3 pod(s) are healthy: nats-0 Running, nats-1 Running, nats-2 Running'] }],
      doesNotApply: [
        { category: 'no-issue', confidence: 'high', rule: 'deliberate-state', evidence: ['Deployment comms/smtp-relay is scaled to 0 replicas on purpose (kubernetes.io/change-cause: scaled down for CHG-20817)'] },
        { category: 'no-issue', confidence: 'medium', rule: 'pod-recovered', evidence: ['before it recovered, its earlier run logged a failure of session-cache:6379: dial tcp 172.20.118.40:6379: connect: connection refused'] },
      ],
    },
  },
  {
    id: 'recovered-from-nothing-named',
    means: 'a pod that restarted and runs again, whose earlier run logged no failure the engine could name: why it crashed, and whether it will again, is unknown',
    applies: (claim) => claim.category === 'no-issue' && claim.rule === 'pod-recovered' && !claim.evidence.some((line) => line.startsWith('before it recovered')),
    atMost: 'low',
    examples: {
      applies: [{ category: 'no-issue', confidence: 'medium', rule: 'pod-recovered', evidence: ['pod web-1 is Running, ready 1/1, restarts 2', 'its last restart ended 300 minutes ago (Error, exit code 1); no warning events since'] }],
      doesNotApply: [{ category: 'no-issue', confidence: 'medium', rule: 'pod-recovered', evidence: ['before it recovered, its earlier run logged a failure of orders-db: connection refused'] }],
    },
  },
  {
    id: 'crash-beside-an-access-refusal',
    means: 'a process that exits on its own error while its log also shows a refusal (403, Forbidden, permission denied) the verdict did not read: the refusal may be the cause',
    applies: (claim) => claim.category === 'app-crash' && claim.evidence.some((line) => line.startsWith('log: ') && ACCESS_REFUSAL.test(line)),
    atMost: 'medium',
    examples: {
      applies: [{ category: 'app-crash', confidence: 'high', rule: 'failing-process', evidence: ['log: 11:32:17 ERROR dispatcher.main: fatal error during startup reconcile', 'log: kubernetes.client.exceptions.ApiException: (403)'] }, { category: 'app-crash', confidence: 'high', rule: 'failing-process', evidence: ['log: Unhandled exception. System.UnauthorizedAccessException: Access to the path /data is denied', 'log: status 401 from https://auth.internal/token'] }],
      doesNotApply: [
        { category: 'app-crash', confidence: 'high', rule: 'failing-process', evidence: ['log: panic: runtime error: invalid memory address or nil pointer dereference', 'log: processed 403 rows in 401ms'] },
        { category: 'bad-credentials', confidence: 'high', rule: 'failing-process', evidence: ['log: jobs.batch is forbidden: User "system:serviceaccount:render:dispatcher" cannot list resource "jobs"'] },
      ],
    },
  },
  {
    id: 'log-verdict-beside-probe-kills',
    means: 'the log names a cause while the kubelet also reports the container failing its probe: two explanations compete, and which one killed it is not certain',
    applies: (claim) => LOG_CATEGORIES.has(claim.category) && (claim.probeFailed === true || claim.evidence.some((line) => PROBE_FAILED.test(line))),
    atMost: 'medium',
    examples: {
      applies: [
        { category: 'dependency-unreachable', confidence: 'high', rule: 'failing-process', evidence: ['log: WARN Connection to node -1 (kafka:9092) could not be established', 'event: Unhealthy: Liveness probe failed: HTTP probe failed with statuscode: 404'] },
        { category: 'app-crash', confidence: 'high', rule: 'failing-process', evidence: ['log: panic: runtime error: index out of range'], probeFailed: true },
      ],
      doesNotApply: [
        { category: 'probe-failure', confidence: 'high', rule: 'probe-failure', evidence: ['Liveness probe failed: HTTP probe failed with statuscode: 404'] },
        { category: 'dependency-unreachable', confidence: 'high', rule: 'failing-process', evidence: ['log: dial tcp 10.0.0.5:5432: connect: connection refused'] },
      ],
    },
  },
];

/** Categories a process's own log decides. */
const LOG_CATEGORIES = new Set<Category>(['app-crash', 'dependency-unreachable', 'bad-credentials']);
const PROBE_FAILED = /\b(Liveness|Readiness|Startup) probe failed\b/i;

const ORDER: readonly Confidence[] = ['low', 'medium', 'high'];

/** The claim's confidence after every row that applies has lowered it. */
export function calibrate(claim: Claim): Confidence {
  let level = claim.confidence;
  for (const row of CALIBRATION) {
    if (row.applies(claim) && ORDER.indexOf(row.atMost) < ORDER.indexOf(level)) level = row.atMost;
  }
  return level;
}
