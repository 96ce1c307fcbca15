/**
 * Reads log lines for what a failing process says about itself: refused credentials,
 * an unreachable dependency, or its own crash. Patterns are the messages real drivers,
 * runtimes and libraries print; the strongest signal wins.
 */

export type LogVerdict = 'bad-credentials' | 'dependency-unreachable' | 'oom' | 'app-crash';

interface Signal {
  verdict: LogVerdict;
  pattern: RegExp;
}

const SIGNALS: Signal[] = [
  // A dependency refused who we are.
  { verdict: 'bad-credentials', pattern: /password authentication failed|authentication failed|access denied for user|login failed for user|invalid (username or password|credentials|password|api[ _-]?key|token)|WRONGPASS|NOAUTH|SASL authentication|unauthori[sz]ed|\b401\b.*(unauthori|auth)|x509: certificate has expired|certificate has expired|certificate (is not yet valid|verify failed|expired)|token (is )?expired|expired token|ExpiredToken|InvalidClientTokenId|SignatureDoesNotMatch|permission denied for (relation|table|database|schema)|bad credentials|auth(entication)? (error|failure)|invalid username\/password|ORA-01017|Unauthenticated|InvalidAccessKeyId|security token included in the request is (expired|invalid)|invalid_grant|invalid_client|AUTHENTICATION_FAILED|SCRAM[\w-]* authentication (failed|error)|Login failed/i },
  // The dependency is not there, not resolvable, or not answering.
  { verdict: 'dependency-unreachable', pattern: /ECONNREFUSED|connection refused|ENOTFOUND|getaddrinfo|no such host|Name or service not known|Temporary failure in name resolution|could not translate host name|i\/o timeout|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|network is unreachable|no route to host|connect(ion)? timed out|timed out (while )?connecting|timeout (while )?connecting|could not connect to|unable to connect to|failed to connect|connection reset by peer|ECONNRESET|server selection timed? ?out|dial tcp|could not be established|Broker may not be available|can't resolve|could not resolve|UnknownHostException|ConnectException|NoRouteToHost|Connection timed out|unable to resolve|TimeoutException: Timeout expired|timed out waiting for (a )?(connection|node|broker)|connection pool timeout|connection to server at .* failed|OperationalError: connection failed|timeout expired/i },
  { verdict: 'oom', pattern: /out of memory|OutOfMemoryError|JavaScript heap out of memory|Cannot allocate memory|MemoryError\b|fatal error: runtime: out of memory/i },
  // The process failed on its own.
  { verdict: 'app-crash', pattern: /panicked at|called `(Result|Option)::unwrap\(\)`|Operation not permitted|Permission denied|EACCES|EPERM|Read-only file system|No space left on device|\((\w+::)*\w+(Error|Exception)\)\s*$|\b(\w+::)+\w+(Error|Exception)\b|Traceback \(most recent call last\)|^\s*at .+\(.+:\d+:\d+\)|panic:|goroutine \d+ \[running\]|Unhandled(PromiseRejection)?|uncaught exception|Exception in thread|\b[A-Z][A-Za-z]+(Error|Exception)\b:|segmentation fault|SIGSEGV|exec format error|exec: .*not found|no such file or directory|command not found|unknown (flag|option|command)|flag provided but not defined|invalid (argument|option|configuration|value)|is not set|must be set|required (environment variable|setting|config)|missing (required )?(environment variable|env|config)|SyntaxError|KeyError|NameError|TypeError|ReferenceError|NullPointerException|ClassNotFoundException|ModuleNotFoundError|Cannot find module|FATAL|fatal error|\bpanic\b|exited with (code|status) [1-9]/i },
];

/** Lines that say something went wrong, whatever the kind. */
const ERROR_LINE = /\b(error|err|fatal|panic|exception|fail(ed|ure)?|refused|denied|timeout|timed out|expired|unable|cannot|could not|traceback|killed)\b|ECONN|ENOTFOUND|ETIMEDOUT|level=(error|fatal)|"level":"(error|fatal)"|\[(ERROR|FATAL|CRIT)\]|\bE\d{4} /i;

export interface LogReading {
  verdict: LogVerdict | undefined;
  /** The lines that carry the verdict, most telling first, at most `limit`. */
  evidence: string[];
  errorLines: string[];
}

/**
 * The verdict the lines support, with the lines that prove it. What the process said
 * last before it died decides: a credential or reachability error among the last lines
 * (stack frames not counted) wins over the stack trace it caused; an old warning earlier
 * in the log does not.
 */
export function readLogSignals(lines: readonly string[], limit = 3): LogReading {
  const matches = lines.map((line) => ({ line, verdict: SIGNALS.find((signal) => signal.pattern.test(line))?.verdict, soft: SOFT_LINE.test(line), error: ERROR_LINE.test(line) }));
  const errorLines = unique(matches.filter((match) => match.error || match.verdict).map((match) => cleanLine(match.line)));
  const tail = matches.filter((match) => !STACK_FRAME.test(match.line)).slice(-TAIL_LINES);
  const linesOf = (verdict: LogVerdict, pool = matches): string[] => mostTelling(pool.filter((match) => match.verdict === verdict).map((match) => cleanLine(match.line)), limit);
  const hard = tail.filter((match) => !match.soft);
  for (const verdict of DECISIVE) {
    // The retries that led up to the fatal line are evidence too.
    if (hard.some((match) => match.verdict === verdict)) return { verdict, evidence: linesOf(verdict, tail), errorLines };
  }
  // A process that retried a dependency again and again, then died with a generic error, died of the dependency.
  for (const verdict of DECISIVE) {
    if (tail.filter((match) => match.verdict === verdict).length >= REPEATED_RETRIES) return { verdict, evidence: linesOf(verdict, tail), errorLines };
  }
  if (hard.some((match) => match.verdict === 'app-crash')) return { verdict: 'app-crash', evidence: linesOf('app-crash', hard), errorLines };
  // Only warnings name a cause (retries that ended in an exit): they are the best lead left.
  for (const verdict of DECISIVE) {
    if (tail.some((match) => match.verdict === verdict)) return { verdict, evidence: linesOf(verdict, tail), errorLines };
  }
  for (const verdict of [...DECISIVE, 'app-crash' as const]) {
    if (matches.some((match) => match.verdict === verdict)) return { verdict, evidence: linesOf(verdict), errorLines };
  }
  return { verdict: undefined, evidence: [], errorLines };
}

/** Lines that report a problem the process means to survive. */
const SOFT_LINE = /\b(WARN(ING)?|INFO|DEBUG|NOTICE)\b|"level":"(warn|warning|info|debug)"|level=(warn|warning|info|debug)|will retry|retrying|retry in|\bW\d{4} /i;

/** How many of the last lines (stack frames not counted) are "what it said before it died". */
const TAIL_LINES = 40;
const STACK_FRAME = /^\s+at\s|^\s+File "|^\s*goroutine \d+|^\s+\S+\.(go|py|rb|java|kt|js|ts):\d+|^\s*\.\.\. \d+ more|^\t|^\s*$/;
/** Warnings about one cause, this many times among the last lines, are the story of the crash. */
const REPEATED_RETRIES = 3;
const DECISIVE: LogVerdict[] = ['bad-credentials', 'dependency-unreachable', 'oom'];

/**
 * The lines that say the most, in log order: a line with the whole message (`Error: getaddrinfo
 * ENOTFOUND redis-master...`) beats the fields of a dumped error object (`syscall: 'getaddrinfo'`).
 */
function mostTelling(lines: string[], limit: number): string[] {
  // Lines that differ only in their timestamp or counters are one line.
  const byShape = new Map<string, string>();
  for (const line of lines.map((text) => text.replace(/\s*\[x\d+\]$/, ''))) byShape.set(line.replace(/\d+/g, '0'), line);
  const distinct = [...byShape.values()];
  const ranked = [...distinct].sort((left, right) => tellingScore(right) - tellingScore(left));
  const informative = ranked.filter((line) => tellingScore(line) > 0);
  const chosen = new Set((informative.length > 0 ? informative : ranked).slice(0, limit));
  return distinct.filter((line) => chosen.has(line));
}

/**
 * How much a line says: its words, more for names, addresses and quoted values; much less
 * for a field of a dumped error object (`code: 'ENOTFOUND',`) or a line of source code that
 * a stack trace quotes (`throw new Error(...)`, a caret line).
 */
export function tellingScore(line: string): number {
  const words = line.split(/\s+/).length;
  const fieldOfObject = /^[a-z]\w*:\s*['"]?[\w.-]*['"]?,$/.test(line) ? -20 : 0;
  const sourceCode = /\bthrow new\b|\$\{|;\s*$|^\s*(const|let|var|return|raise|def)\b|\^{3,}|~{3,}/.test(line) ? -20 : 0;
  return Math.min(words, 25) + fieldOfObject + sourceCode + (/\w+\.\w+\.\w+|:\d{2,5}\b|"[^"]+"|'[^']+'/.test(line) ? 5 : 0);
}

/** Timestamps and padding stripped, long lines shortened, so evidence stays readable. */
export function cleanLine(line: string): string {
  const trimmed = line.trim();
  return trimmed.length > 400 ? `${trimmed.slice(0, 397)}...` : trimmed;
}

function unique(lines: string[]): string[] {
  return [...new Set(lines)];
}
