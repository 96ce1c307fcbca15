/**
 * What a person's report says besides names: the sites it names ("pay.example.com is
 * 503ing"), the asides that mention a second thing ("also the relay is red") or clear one
 * ("the pods look green"), and the
 * symptoms it reports, each with the states of a workload that can show it. Each table row
 * carries examples and counter-examples, and a test holds it to them.
 */

/** Top-level domains a site in a report ends with. */
export const SITE_TLDS =
  'com|io|net|org|dev|app|co|eu|de|uk|fr|nl|cloud|ai|shop|tech|info|biz|example|internal|corp|local';

const SITE = new RegExp(
  `(?:https?://)?((?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\\.)+(?:${SITE_TLDS}))(?![a-z0-9-])(?::\\d+)?`,
  'g',
);

/** Hosts the text names as sites (a URL's host, or a bare `shop.example.com`), lower-case, in order; cluster-internal names are not sites. */
export function sitesNamed(text: string): string[] {
  const sites: string[] = [];
  for (const match of text.toLowerCase().matchAll(SITE)) {
    const host = match[1]!;
    // "orders.shop.svc.cluster.local" names a Service, not a site.
    if (/\.svc(\.|$)|\.cluster\.local$/.test(host) || sites.includes(host)) continue;
    sites.push(host);
  }
  return sites;
}

export const SITE_EXAMPLES = {
  names: [
    ['ingress-nginx is 503ing all of pay.northwind-goods.com!!', 'pay.northwind-goods.com'],
    ['https://shop.example.com/cart returns 502', 'shop.example.com'],
    ['api.acme.io:443 times out', 'api.acme.io'],
  ],
  namesNone: [
    'orders.shop.svc.cluster.local refuses connections',
    'app.js throws on start',
    'config.yaml changed in rev 4',
    'checkout keeps restarting',
  ],
} as const;

/** A word that makes its clause an aside: a second thing mentioned beside the complaint ("also X is red", "btw Y has a pending pod"). */
const ASIDE_WORD = /(?<![\w-])(also|btw|fwiw|unrelated(ly)?|separately|side ?note)(?![\w-])/i;

/** Where a clause ends: punctuation followed by a space or the end (a host's dots are not ends), or a new line. */
const CLAUSE_END = /([.!?;,]+(?=\s|$)|\n)/;

/** A clause that clears something ("tax-rates pods all look green", "kafka still up??"): what it names is not what the person complains of. */
const CLEARED =
  /\b(looks?|seems?|are|is|all|still)( all| still)? (fine|ok|okay|good|green|healthy|up|normal)\b|\b(it |they )?always (does|do) (that|this)\b|\bthat'?s (normal|expected)\b|\bignore (that|those|it|them)\b|\bas usual\b|\b(unaffected|not affected)\b/i;

/** The text with its asides and clearances cut out, clause by clause: the complaint itself. */
export function complaintOf(text: string): string {
  return text
    .split(CLAUSE_END)
    .map((piece, index) => (index % 2 === 0 && (ASIDE_WORD.test(piece) || CLEARED.test(piece)) ? ' ' : piece))
    .join('');
}

export const ASIDE_EXAMPLES = {
  /** Each: the report, a part the complaint keeps, the aside cut out. */
  cuts: [
    [
      'settlements not processing since ~6:40, is pg-ledger down? also settlment-api has a pending pod',
      'is pg-ledger down',
      'settlment-api',
    ],
    [
      'ingress-nginx is 503ing all of pay.northwind-goods.com!! checkout payments failing. is nginx broken? webhook relay also red',
      'pay.northwind-goods.com',
      'webhook relay',
    ],
    ['orders 500s since deploy. btw grafana is slow too. pls check', 'orders 500s', 'grafana'],
    [
      'checkout failing at the tax step since ~10, tax-rates pods all look green to me??',
      'checkout failing',
      'tax-rates',
    ],
    ['zk warnings all over since the migration, kafka still up??', 'zk warnings', 'kafka'],
    [
      'is the quote engine still broken? policy-sync has some restarts but it always does that',
      'quote engine',
      'policy-sync',
    ],
    [
      'bunch of pods got evicted overnight on one of the prod nodes?? checkout seems ok. canary unaffected',
      'evicted overnight',
      'canary',
    ],
  ],
  keeps: [
    'checkout-api keeps restarting',
    'the also-ran job failed at 03:00',
    'payments are failing since the deploy, pls look',
    'is the upload api down?',
  ],
} as const;

/** The state a failing workload (or Service) shows, as its pods or its objects tell it. */
export type FailingState = 'crashing' | 'pending' | 'image-pull' | 'not-ready' | 'no-endpoints' | 'failed-run';

export interface Symptom {
  id: string;
  /** What the person reports. */
  words: RegExp;
  /** The states that show it. */
  shownBy: readonly FailingState[];
  examples: { reports: string[]; doesNotReport: string[] };
}

export const SYMPTOMS: readonly Symptom[] = [
  {
    id: 'crashing',
    words:
      /\bcrash\w*|\bclbo\b|\brestart(s|ing)\b|\bkeeps? (dying|restarting|falling over|bouncing|exiting)|\bboot ?loop/i,
    shownBy: ['crashing'],
    examples: {
      reports: [
        'ledger pods crashlooping since the deploy',
        'checkout keeps restarting',
        'worker in CLBO again',
        'api pods restarting every few min',
      ],
      doesNotReport: ['ledger has a pending pod', 'restart policy question', 'shop site throwing 502s'],
    },
  },
  {
    id: 'pending',
    words:
      /\bpending pods?\b|\bpods? (are |is |stuck |still |all )*(in )?pending\b|\bnot (being |getting )?scheduled\b|\bunschedulable\b|\bwon'?t schedule\b|\bcan'?t (be )?schedul/i,
    shownBy: ['pending'],
    examples: {
      reports: [
        'settlement-api has a pending pod',
        'new pods not getting scheduled',
        'the gpu job is unschedulable',
        'search pods stuck in Pending',
      ],
      doesNotReport: [
        'payments pending in the UI are fine',
        'checkout keeps restarting',
        'refunds stuck in pending since like 2pm',
      ],
    },
  },
  {
    id: 'image-pull',
    words: /\bimage ?pull|\berrimage\w*|\bcan'?t pull\b|\bpull (error|fail\w*)/i,
    shownBy: ['image-pull'],
    examples: {
      reports: [
        'relay stuck in ImagePullBackOff',
        'cannot deploy, pull error on the new tag',
        "nodes can't pull the image",
      ],
      doesNotReport: ['pull requests merged', 'checkout 502s'],
    },
  },
  {
    id: 'gateway-errors',
    words:
      /\b50[234](s|ing)?\b|\bbad gateway\b|\bservice unavailable\b|\bgateway time-?outs?\b|\bno healthy upstream\b|\bupstream (connect )?errors?\b/i,
    shownBy: ['no-endpoints', 'not-ready', 'crashing'],
    examples: {
      reports: [
        'shop site throwing 502s on every product page',
        'ingress-nginx is 503ing all of pay.example.com',
        'getting "no healthy upstream" from envoy',
        '504 gateway timeout on login',
      ],
      doesNotReport: ['500 errors in the logs', 'port 5030 refused', 'orders stuck since 9'],
    },
  },
];

/** The states that show what the text reports; empty when it reports no symptom of the table. */
export function statesReported(text: string): Set<FailingState> {
  return new Set(SYMPTOMS.filter((symptom) => symptom.words.test(text)).flatMap((symptom) => symptom.shownBy));
}

/** A report about a node rather than a workload: pods evicted, a node gone or under pressure. With no node named, the one node in trouble is what it means. */
export const NODE_SYMPTOM = {
  words:
    /\bevict(ed|ions?|ing)\b|\bnodes?\b(?!-)[^.?!]*\b(not ?ready|went down|is down|unreachable|under (disk |memory )?pressure|disk pressure|memory pressure|died|lost|rebooted)\b/i,
  examples: {
    reports: [
      'bunch of pods got evicted overnight on one of the prod nodes??',
      'a node went down in eu-west-1b and pods are pending',
      'one of the nodes is under disk pressure',
    ],
    doesNotReport: ['checkout keeps restarting', 'node-exporter is down', 'the api node pool was upgraded last week'],
  },
};
