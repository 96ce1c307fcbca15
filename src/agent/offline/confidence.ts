/**
 * What a confidence level claims, checked against what the finding rests on. A rule states
 * the confidence its signal deserves; these rows then lower it where the first sight of
 * incidents nobody described showed that kind of answer to be wrong more often than its
 * level says: "healthy now" with nothing on record of why the alert fired, a recovery with
 * no failure it can name, a catch-all crash whose log also shows an access refusal it did not
 * read. Each row only lowers, and each has examples of where it applies and where not.
 */
import type { Category } from '../diagnosis.ts';
import { readFailingValues } from './trace/failing-values.ts';

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
const ACCESS_REFUSAL =
  /(\b(HTTP|status|code)\b\W{0,3}|\()(401|403)\b|\b(forbidden|unauthori[sz]ed|permission denied|access denied|AccessDenied)\b/i;

export const CALIBRATION: readonly CalibrationRow[] = [
  {
    id: 'healthy-now-without-a-reason',
    means:
      'every pod is well now, but nothing on record says why the alert fired or what the person saw: the failure may be one the tools cannot see',
    applies: (claim) => claim.category === 'no-issue' && claim.rule === 'workload-healthy',
    atMost: 'low',
    examples: {
      applies: [
        {
          category: 'no-issue',
          confidence: 'medium',
          rule: 'workload-healthy',
          evidence: ['all 3 pod(s) are healthy: nats-0 Running, nats-1 Running, nats-2 Running'],
        },
      ],
      doesNotApply: [
        {
          category: 'no-issue',
          confidence: 'high',
          rule: 'deliberate-state',
          evidence: [
            'Deployment comms/smtp-relay is scaled to 0 replicas on purpose (kubernetes.io/change-cause: scaled down for CHG-20817)',
          ],
        },
        {
          category: 'no-issue',
          confidence: 'medium',
          rule: 'pod-recovered',
          evidence: [
            'before it recovered, its earlier run logged a failure of session-cache:6379: dial tcp 172.20.118.40:6379: connect: connection refused',
          ],
        },
      ],
    },
  },
  {
    id: 'recovered-from-nothing-named',
    means:
      'a pod that restarted and runs again, whose earlier run logged no failure the engine could name: why it crashed, and whether it will again, is unknown',
    applies: (claim) =>
      claim.category === 'no-issue' &&
      claim.rule === 'pod-recovered' &&
      !claim.evidence.some((line) => line.startsWith('before it recovered')),
    atMost: 'low',
    examples: {
      applies: [
        {
          category: 'no-issue',
          confidence: 'medium',
          rule: 'pod-recovered',
          evidence: [
            'pod web-1 is Running, ready 1/1, restarts 2',
            'its last restart ended 300 minutes ago (Error, exit code 1); no warning events since',
          ],
        },
      ],
      doesNotApply: [
        {
          category: 'no-issue',
          confidence: 'medium',
          rule: 'pod-recovered',
          evidence: ['before it recovered, its earlier run logged a failure of orders-db: connection refused'],
        },
      ],
    },
  },
  {
    id: 'crash-beside-an-access-refusal',
    means:
      'a process that exits on its own error while its log also shows a refusal (403, Forbidden, permission denied) the verdict did not read: the refusal may be the cause',
    applies: (claim) =>
      claim.category === 'app-crash' &&
      claim.evidence.some((line) => line.startsWith('log: ') && ACCESS_REFUSAL.test(line)),
    atMost: 'medium',
    examples: {
      applies: [
        {
          category: 'app-crash',
          confidence: 'high',
          rule: 'failing-process',
          evidence: [
            'log: 11:32:17 ERROR dispatcher.main: fatal error during startup reconcile',
            'log: kubernetes.client.exceptions.ApiException: (403)',
          ],
        },
        {
          category: 'app-crash',
          confidence: 'high',
          rule: 'failing-process',
          evidence: [
            'log: Unhandled exception. System.UnauthorizedAccessException: Access to the path /data is denied',
            'log: status 401 from https://auth.internal/token',
          ],
        },
      ],
      doesNotApply: [
        {
          category: 'app-crash',
          confidence: 'high',
          rule: 'failing-process',
          evidence: [
            'log: panic: runtime error: invalid memory address or nil pointer dereference',
            'log: processed 403 rows in 401ms',
          ],
        },
        {
          category: 'bad-credentials',
          confidence: 'high',
          rule: 'failing-process',
          evidence: [
            'log: jobs.batch is forbidden: User "system:serviceaccount:render:dispatcher" cannot list resource "jobs"',
          ],
        },
      ],
    },
  },
  {
    id: 'log-verdict-beside-probe-kills',
    means:
      'the log names a cause while the kubelet also reports the container failing its probe: two explanations compete, and which one killed it is not certain',
    applies: (claim) =>
      LOG_CATEGORIES.has(claim.category) &&
      (claim.probeFailed === true || claim.evidence.some((line) => PROBE_FAILED.test(line))),
    atMost: 'medium',
    examples: {
      applies: [
        {
          category: 'dependency-unreachable',
          confidence: 'high',
          rule: 'failing-process',
          evidence: [
            'log: WARN Connection to node -1 (kafka:9092) could not be established',
            'event: Unhealthy: Liveness probe failed: HTTP probe failed with statuscode: 404',
          ],
        },
        {
          category: 'app-crash',
          confidence: 'high',
          rule: 'failing-process',
          evidence: ['log: panic: runtime error: index out of range'],
          probeFailed: true,
        },
      ],
      doesNotApply: [
        {
          category: 'probe-failure',
          confidence: 'high',
          rule: 'probe-failure',
          evidence: ['Liveness probe failed: HTTP probe failed with statuscode: 404'],
        },
        {
          category: 'dependency-unreachable',
          confidence: 'high',
          rule: 'failing-process',
          evidence: ['log: dial tcp 10.0.0.5:5432: connect: connection refused'],
        },
      ],
    },
  },
  {
    id: 'decisive-object-unnamed',
    means:
      'the category is one whose fix is an edit to one object (the quota or LimitRange, the missing ConfigMap or Secret, the claim, the image, the selector), and no evidence line names that object: the person is not told what to change',
    applies: (claim) => {
      const names = DECISIVE_OBJECT[claim.category];
      return names !== undefined && !claim.evidence.some((line) => names.test(line));
    },
    atMost: 'medium',
    examples: {
      applies: [
        {
          category: 'quota-exceeded',
          confidence: 'high',
          rule: 'quota-refuses-pods',
          evidence: [
            'event Warning FailedCreate on ReplicaSet web-7d9f: Error creating: pods "web-7d9f-" is forbidden: maximum memory usage per Container is 2Gi, but limit is 4Gi',
          ],
        },
        {
          category: 'pvc-unbound',
          confidence: 'high',
          rule: 'pod-unschedulable',
          evidence: ['pod db-0 is Pending: 0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims'],
        },
      ],
      doesNotApply: [
        {
          category: 'quota-exceeded',
          confidence: 'high',
          rule: 'quota-refuses-pods',
          evidence: [
            'event Warning FailedCreate on ReplicaSet web-7d9f: Error creating: pods "web-7d9f-" is forbidden: maximum memory usage per Container is 2Gi, but limit is 4Gi',
            "LimitRange shop/mem-guardrails sets the maximum memory per Container to 2Gi; the pod's limit is 4Gi (2Gi over)",
          ],
        },
        {
          category: 'quota-exceeded',
          confidence: 'high',
          rule: 'quota-refuses-pods',
          evidence: [
            'Error creating: pods "web-1" is forbidden: exceeded quota: compute-quota, requested: requests.cpu=500m',
          ],
        },
        { category: 'oom-killed', confidence: 'high', rule: 'oom', evidence: ['container app was OOMKilled'] },
      ],
    },
  },
  {
    id: 'failing-file-or-flag-untraced',
    means:
      'a process that exits on a configuration file or a flag its failing line names, where the engine found no place in the pod spec that sets it: the verdict is right in kind, but the edit that fixes it is unknown',
    applies: (claim) =>
      (claim.category === 'app-crash' || claim.category === 'init-failure') &&
      !claim.evidence.some((line) => TRACED_VALUE.test(line)) &&
      claim.evidence.some(
        (line) =>
          line.startsWith('log: ') &&
          readFailingValues(line.slice(5)).some(
            (value) => (value.kind === 'path' && CONFIG_FILE.test(value.value)) || value.kind === 'flag',
          ),
      ),
    atMost: 'medium',
    examples: {
      applies: [
        {
          category: 'app-crash',
          confidence: 'high',
          rule: 'failing-process',
          evidence: [
            'log: level=error msg="failed to load rules" file=/etc/rules/rules.yaml err="yaml: line 14: mapping values are not allowed in this context"',
          ],
        },
      ],
      doesNotApply: [
        {
          category: 'app-crash',
          confidence: 'high',
          rule: 'failing-process',
          evidence: [
            'log: level=error msg="failed to load rules" file=/etc/rules/rules.yaml err="yaml: line 14: mapping values are not allowed"',
            'container app: the failing path /etc/rules/rules.yaml comes from ConfigMap alert-rules key rules.yaml (volume rules at /etc/rules)',
          ],
        },
        {
          category: 'app-crash',
          confidence: 'high',
          rule: 'failing-process',
          evidence: ['log: panic: runtime error: invalid memory address or nil pointer dereference'],
        },
        {
          category: 'app-crash',
          confidence: 'high',
          rule: 'failing-process',
          evidence: [
            'log: /app/lib/settlement/sftp_uploader.rb:14:in `fetch\': key not found: "SFTP_PASSWORD" (KeyError)',
          ],
        },
      ],
    },
  },
];

/** Files a process reads as its configuration (a stack trace's source files are not). */
const CONFIG_FILE = /\.(ya?ml|json|toml|conf|cfg|ini|properties|xml|hcl|alloy|rules)$/i;

/** For each category whose fix is an edit to one object, how evidence names that object. */
const DECISIVE_OBJECT: Partial<Record<Category, RegExp>> = {
  'quota-exceeded': /\b(ResourceQuota|LimitRange) \S+|exceeded quota: [\w.-]+|failed quota: [\w.-]+/i,
  'missing-configmap': /\bconfigmaps? "?[\w.-]+"?|ConfigMap [\w./-]+/i,
  'missing-secret': /\bsecrets? "?[\w.-]+"?|Secret [\w./-]+/i,
  'pvc-unbound':
    /\b(PersistentVolumeClaim|persistentvolumeclaim|claim) "?[\w./-]+"? (is|has|stays|requests|asks|wants|names|selector)|\bStorageClass \S+|storageClassName/i,
  'image-pull': /\bimage:? "?[\w.-]+(\/[\w.-]+)*[:@][\w.:-]+|pull(ing)? image "?[\w.-]+/i,
};

/** An evidence line that says where a failing value is set (trace/value-source.ts). */
const TRACED_VALUE = /\bthe failing \w+ .*\b(comes? from|are presumably set by|is presumably set by)\b/;

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
