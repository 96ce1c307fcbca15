/**
 * Names a person's sentence gives that nothing in the cluster carries. People name things
 * in a few set forms (the rows of NAME_FORMS): kubectl's `kind/name`, `namespace/name`, a
 * kind's word before or after a name ("node worker-9", "the shop-eu namespace"), and a
 * kebab-case name on its own. A name found in one of these forms that no workload, pod,
 * Service, node or namespace carries (nor begins: a node's short name) is reported, so the
 * diagnosis can say it was not found instead of blaming something else.
 *
 * It never reports a plain word a sentence uses in passing ("the job failed", "a worker
 * node is down", "since the node upgrade"): a single word counts as a name only right
 * after a kind's word that no article or determiner precedes ("deployment cart").
 */
import { shortensName, withinOneEdit } from './edit-distance.ts';
import { escapeRegExp, stem } from './mentions.ts';
import { SITE_TLDS } from './report-words.ts';

export interface UnknownName {
  name: string;
  /** The kind the sentence gives it ("node x", "in x", "x namespace"), or undefined when it gives none. */
  kind?: string;
  /** The namespace the sentence puts it in (`staging/cart`), when it does. */
  namespace?: string;
}

/** The kinds a person names by their word: "node worker-9", "the payments namespace", "deployment api", "pod/web-1". */
const KIND_WORDS: Record<string, string> = {
  node: 'Node',
  no: 'Node',
  namespace: 'Namespace',
  ns: 'Namespace',
  deployment: 'Deployment',
  deploy: 'Deployment',
  statefulset: 'StatefulSet',
  sts: 'StatefulSet',
  daemonset: 'DaemonSet',
  ds: 'DaemonSet',
  cronjob: 'CronJob',
  cj: 'CronJob',
  job: 'Job',
  service: 'Service',
  svc: 'Service',
  pod: 'Pod',
  po: 'Pod',
};

/** Kind words that are also everyday English words: they count only in kubectl's `kind/name` form. */
const SLASH_ONLY_KIND_WORDS = new Set(['no', 'po', 'cj']);

/** Everyday hyphenated words that name nothing in a cluster ("crash-looping", "out-of-memory", "on-call"). */
const EVERYDAY_PARTS = new Set([
  'crash',
  'loop',
  'looping',
  'loops',
  'out',
  'of',
  'memory',
  'read',
  'only',
  'on',
  'call',
  'up',
  'to',
  'date',
  'non',
  'stop',
  'follow',
  're',
  'time',
  'built',
  'in',
  'e',
  'mail',
  'self',
  'signed',
  'auto',
  'well',
  'known',
  'so',
  'called',
  'high',
  'low',
  'long',
  'short',
  'real',
  'end',
  'third',
  'party',
  'back',
  'off',
  'per',
  'half',
  'roll',
  'rolled',
  'log',
  'sign',
  'check',
  'all',
  'day',
  'week',
  'hour',
  'minute',
  'x',
  'de',
  'pre',
  'post',
  'co',
  'anti',
  'multi',
  'cross',
  'server',
  'side',
  'client',
  'first',
  'last',
  'just',
  'now',
  'any',
  'every',
  'start',
  'started',
]);

/**
 * Words that follow a kind's word in a sentence without being its name: verbs, prepositions
 * and states ("the service keeps restarting", "job did not run", "node NotReady since 9").
 * Words ending in -ing or -ed are verbs there too ("job failed", "pod restarting").
 */
const NOT_NAMES = new Set([
  'is',
  'was',
  'are',
  'were',
  'be',
  'been',
  'being',
  'has',
  'had',
  'have',
  'does',
  'did',
  'do',
  'done',
  'keeps',
  'kept',
  'won',
  'wont',
  'can',
  'cant',
  'cannot',
  'could',
  'will',
  'would',
  'should',
  'may',
  'might',
  'must',
  'isn',
  'isnt',
  'doesn',
  'doesnt',
  'didn',
  'didnt',
  'wasn',
  'wasnt',
  'aren',
  'arent',
  'hasn',
  'hasnt',
  'not',
  'never',
  'still',
  'again',
  'also',
  'just',
  'now',
  'here',
  'there',
  'then',
  'too',
  'very',
  'in',
  'on',
  'at',
  'from',
  'of',
  'for',
  'and',
  'or',
  'but',
  'to',
  'with',
  'without',
  'since',
  'after',
  'before',
  'during',
  'until',
  'into',
  'onto',
  'over',
  'under',
  'behind',
  'about',
  'because',
  'via',
  'per',
  'like',
  'that',
  'which',
  'who',
  'what',
  'when',
  'where',
  'why',
  'how',
  'it',
  'its',
  'this',
  'these',
  'those',
  'them',
  'they',
  'he',
  'she',
  'we',
  'you',
  'i',
  'me',
  'my',
  'our',
  'your',
  'their',
  'his',
  'her',
  'seems',
  'seem',
  'looks',
  'look',
  'went',
  'goes',
  'go',
  'got',
  'gets',
  'get',
  'shows',
  'show',
  'says',
  'said',
  'gives',
  'keep',
  'stays',
  'stay',
  'sits',
  'returns',
  'throws',
  'fails',
  'dies',
  'died',
  'crashes',
  'restarts',
  'runs',
  'ran',
  'run',
  'won',
  'came',
  'comes',
  'come',
  'down',
  'up',
  'stuck',
  'pending',
  'ready',
  'notready',
  'unready',
  'unhealthy',
  'healthy',
  'broken',
  'dead',
  'gone',
  'full',
  'slow',
  'flaky',
  'missing',
  'unavailable',
  'unreachable',
  'unschedulable',
  'evicted',
  'oomkilled',
  'crashloopbackoff',
  'error',
  'errors',
  'ok',
  'okay',
  'fine',
  'hung',
  'late',
  'empty',
  'idle',
  'busy',
  'offline',
  'online',
  'alive',
  'issue',
  'issues',
  'problem',
  'problems',
  'pressure',
  'upgrade',
  'upgrades',
  'drain',
  'maintenance',
  'rollout',
  'rollouts',
  'restart',
  'release',
  'group',
  'pool',
  'name',
  'status',
  'logs',
  'log',
  'events',
  'event',
  'alert',
  'alerts',
  'again',
  'count',
  'limit',
  'limits',
  'quota',
  'disk',
  'memory',
  'cpu',
  'metrics',
  'outage',
  'failure',
  'failures',
  'change',
  'config',
  'version',
  'rollover',
  'reboot',
  'reboots',
  'swap',
  'cordon',
  'update',
  'updates',
  'migration',
  'scale',
  'scaling',
  'incident',
  'crash',
  'crashes',
  'recycle',
  'replacement',
  'rotation',
  'side',
  'level',
  'health',
  'check',
  'checks',
  'test',
  // Indefinite words ("did someone deploy somethin?"): they name nothing in particular.
  'something',
  'somethin',
  'smth',
  'sth',
  'anything',
  'anythin',
  'everything',
  'nothing',
  'stuff',
  'whatever',
  'someone',
  'anyone',
  'somebody',
]);

/** A verb typed without its final g ("pod crashloopin", "job failin", "node dyin"): a state, not a name. */
const DROPPED_G =
  /(loop|start|fail|crash|hang|dy|throw|tim|spin|thrash|flapp|bounc|retry|erro?r|restart|runn|pull|wait|hold)in'?$/;

/**
 * Words before a kind's word that make it a noun of the sentence, not a label: "the node is
 * down", "a worker node", "any node"; a possessive does the same ("this morning's node rollover").
 */
const DETERMINERS = new Set([
  'the',
  'a',
  'an',
  'one',
  'two',
  'three',
  'this',
  'that',
  'these',
  'those',
  'its',
  'our',
  'their',
  'my',
  'your',
  'his',
  'her',
  'every',
  'each',
  'some',
  'any',
  'no',
  'which',
  'what',
  'another',
  'other',
  'same',
  'new',
  'old',
  'whole',
  'entire',
]);

/** What a form found: a name, the kind and namespace the sentence gives it, and whether it may be a plain word. */
interface Found {
  name: string;
  kind?: string;
  namespace?: string;
  /** A single plain word (no hyphen, dot or digit): accepted only where the form makes it a name. */
  plain: boolean;
}

interface NameForm {
  id: string;
  means: string;
  find(lower: string, namespaces: readonly string[]): Found[];
  /** Sentences in which the form finds a name nothing carries (with the cluster of UNKNOWN_NAME_EXAMPLES), and the name. */
  examples: { text: string; name: string; kind?: string; namespace?: string }[];
  /** Sentences in which it finds none. */
  counterexamples: string[];
}

const NAME = '[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?';
const kindAlternatives = (withSlashOnly: boolean): string =>
  Object.keys(KIND_WORDS)
    .filter((word) => withSlashOnly || !SLASH_ONLY_KIND_WORDS.has(word))
    .join('|');

/**
 * Whether the words name a kind of object ("a node went NotReady", "the nightly job", "pods
 * keep restarting"): such words point somewhere even when they name no object, unlike "x".
 */
export function namesAKind(text: string): boolean {
  return new RegExp(`\\b(?:${kindAlternatives(false)})(?:s|es)?\\b`, 'i').test(text);
}

/** A name with a hyphen, dot or digit is plainly a name; a plain word may be one. */
const isPlain = (name: string): boolean => !/[-.\d]/.test(name);

/** The forms a person names things in, most explicit first: the first name any of them finds that nothing carries is reported. */
export const NAME_FORMS: readonly NameForm[] = [
  {
    id: 'kind-slash-name',
    means: "kubectl's kind/name: the kind and the name are both explicit",
    find: (lower) =>
      [...lower.matchAll(new RegExp(`(?:^|[^a-z0-9/.-])(${kindAlternatives(true)})/(${NAME})(?![a-z0-9/])`, 'g'))].map(
        (match) => ({ name: match[2]!, kind: KIND_WORDS[match[1]!]!, plain: false }),
      ),
    examples: [
      { text: 'deployment/cart is crashing', name: 'cart', kind: 'Deployment' },
      { text: 'kubectl get no/worker-3 says NotReady', name: 'worker-3', kind: 'Node' },
    ],
    counterexamples: [
      'deployment/checkout-api is crashing',
      'node/ip-10-0-1-23 is down',
      'read/write errors on the volume',
    ],
  },
  {
    id: 'namespace-slash-name',
    means: 'namespace/name, where the part before the slash is a namespace the cluster has',
    find: (lower, namespaces) =>
      [...lower.matchAll(new RegExp(`(?:^|[^a-z0-9/.-])(${NAME})/(${NAME})(?![a-z0-9/])`, 'g'))]
        .filter((match) => namespaces.includes(match[1]!))
        .map((match) => ({ name: match[2]!, namespace: match[1]!, plain: false })),
    examples: [{ text: 'staging/cart keeps restarting', name: 'cart', namespace: 'staging' }],
    counterexamples: ['staging/checkout-api keeps restarting', 'errors and/or timeouts', 'port tcp/443 refused'],
  },
  {
    id: 'kind-then-name',
    means:
      'a kind\'s word, then its name: "node worker-9", "deployment cart" (a plain word only when no article comes before the kind\'s word)',
    find: (lower) =>
      [
        ...lower.matchAll(
          new RegExp(
            `(?:^|[^a-z0-9/.'’-])(?:([a-z]+(?:['’]s)?)\\s+)?(${kindAlternatives(false)})\\s+(${NAME})(?![a-z0-9/])`,
            'g',
          ),
        ),
      ].flatMap((match) => {
        const name = match[3]!;
        const plain = isPlain(name);
        const before = match[1] ?? '';
        if (plain && (DETERMINERS.has(before) || /['’]s$/.test(before))) return [];
        return [{ name, kind: KIND_WORDS[match[2]!]!, plain }];
      }),
    examples: [
      { text: 'node worker-3 is NotReady', name: 'worker-3', kind: 'Node' },
      { text: 'deployment cart is crashing', name: 'cart', kind: 'Deployment' },
      { text: 'why is namespace nope empty', name: 'nope', kind: 'Namespace' },
    ],
    counterexamples: [
      'the nightly job did not run',
      'a worker node is down since the node upgrade',
      'the cart service keeps restarting',
      'node NotReady since 9:00',
      'the deployment cart is crashing',
      'job failed again',
      "crashing since this morning's node rollover",
      'stock-service keeps restarting',
      'deployment checkout keeps restarting',
      'did someone deploy somethin?',
    ],
  },
  {
    id: 'name-then-kind',
    means: 'a kebab-case name, then a kind\'s word: "the shop-eu namespace", "the billing-worker deployment"',
    find: (lower) =>
      [
        ...lower.matchAll(
          new RegExp(`\\b([a-z0-9][a-z0-9.-]*-[a-z0-9.-]*[a-z0-9])\\s+(${kindAlternatives(false)})\\b`, 'g'),
        ),
      ].map((match) => ({ name: match[1]!, kind: KIND_WORDS[match[2]!]!, plain: false })),
    examples: [{ text: 'pods in the shop-eu namespace are pending', name: 'shop-eu', kind: 'Namespace' }],
    counterexamples: ['the checkout-api deployment is stuck', 'the cart service keeps restarting'],
  },
  {
    id: 'kebab-name',
    means:
      'a kebab-case name on its own, with two words of its own (not a version or a ticket); right after "in", a namespace',
    find: (lower) =>
      [...lower.matchAll(/\b[a-z][a-z0-9]*(?:-[a-z0-9]+)+\b/g)].flatMap((match) => {
        const token = match[0];
        const words = token.split('-').filter((part) => /^[a-z]{2,}$/.test(part));
        if (words.length < 2 || !words.some((part) => part.length >= 3 && !EVERYDAY_PARTS.has(part))) return [];
        const before = lower.slice(0, match.index).trimEnd();
        return [{ name: token, ...(/\bin$/.test(before) ? { kind: 'Namespace' } : {}), plain: false }];
      }),
    examples: [
      { text: 'billing-worker in finance keeps crashing', name: 'billing-worker' },
      { text: 'everything in payments-prod is down', name: 'payments-prod', kind: 'Namespace' },
    ],
    counterexamples: [
      'checkout-api in shop keeps restarting',
      'broken since deployment v2.3 and ticket API-2207',
      'pods are crash-looping and out-of-memory',
    ],
  },
];

/** A cluster to read the rows' examples against. */
export const UNKNOWN_NAME_EXAMPLES = {
  known: [
    'invoice-worker',
    'finance',
    'shop',
    'staging',
    'ip-10-0-1-23.eu-west-1.compute.internal',
    'checkout-api',
    'checkout-api-7d9f8c6b5-x2k4q',
    'nightly-report',
    'frontend',
    'stock-service',
  ],
  namespaces: ['finance', 'shop', 'staging'],
};

/**
 * The first name in the sentence, in any of NAME_FORMS, that nothing in `known` carries
 * (workload, pod, Service, node and namespace names). A node or namespace is known by its
 * name or a prefix of it; anything else also by being a pod of a known workload. A plain
 * word is no name when a known name has it as one of its words: "deployment checkout" means checkout-api.
 */
export function unknownName(
  text: string,
  known: readonly string[],
  namespaces: readonly string[] = [],
): UnknownName | undefined {
  const lower = text.toLowerCase();
  const knownNames = known.map((name) => name.toLowerCase());
  const knownStems = new Set(knownNames.flatMap((name) => name.split(/[-.]/).map(stem)));
  const isNamed = (token: string): boolean =>
    knownNames.some((name) => name === token || name.startsWith(`${token}-`) || name.startsWith(`${token}.`));
  const isKnown = (token: string): boolean => isNamed(token) || knownNames.some((name) => token.startsWith(`${name}-`));
  const lowerNamespaces = namespaces.map((namespace) => namespace.toLowerCase());
  for (const form of NAME_FORMS) {
    for (const found of form.find(lower, lowerNamespaces)) {
      const { name, kind } = found;
      // A name has a word of three letters at least: "v2.3" is a version, "7d" an age.
      if (KIND_WORDS[name] || EVERYDAY_PARTS.has(name) || !/[a-z]{3,}/.test(name)) continue;
      if (
        found.plain &&
        (NOT_NAMES.has(name) || /(ing|ed)$/.test(name) || DROPPED_G.test(name) || knownStems.has(stem(name)))
      )
        continue;
      if (kind === 'Namespace' || kind === 'Node' ? isNamed(name) : isKnown(name)) continue;
      // Part of a hostname ("pay.northwind-goods.com"): a site, not an object's name.
      if (new RegExp(`(^|[^a-z0-9-])${escapeRegExp(name)}\\.(${SITE_TLDS})\\b`).test(lower)) continue;
      // A name one letter off a known one ("settlment-api") is that one, mistyped.
      if (name.length >= TYPO_MIN_LENGTH && knownNames.some((known) => withinOneEdit(name, known))) continue;
      // A name with its words cut short ("orig-api") is the known one it shortens.
      if (knownNames.some((known) => shortensName(name, known))) continue;
      return { name, ...(kind ? { kind } : {}), ...(found.namespace ? { namespace: found.namespace } : {}) };
    }
  }
  return undefined;
}

/** Names shorter than this are too short to call a one-letter difference a typo. */
const TYPO_MIN_LENGTH = 6;
