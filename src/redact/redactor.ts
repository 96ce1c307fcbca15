/**
 * Masks credential-like values in text and in structured data before anything leaves a
 * tool: passwords in env, flags, connection strings and URLs, bearer and basic tokens,
 * JWTs, cloud and SaaS keys, PEM private keys. It errs toward masking: a masked harmless
 * value costs little, a leaked password costs a rotation.
 */

import { createHmac, randomBytes } from 'node:crypto';

export const REDACTED = '[REDACTED]';

/** Fingerprints are keyed per process: equal values compare equal here, and nothing can be learned from them elsewhere. */
const FINGERPRINT_KEY = randomBytes(32);

/**
 * A short keyed fingerprint of a masked value (`#3fa9c2`), so that "the password changed
 * between revisions" stays visible while the password does not.
 */
export function fingerprintSecret(value: string): string {
  return `#${createHmac('sha256', FINGERPRINT_KEY).update(value).digest('hex').slice(0, 6)}`;
}

/**
 * Whether a name (env var, flag, JSON key, query parameter) says its value is a credential.
 * Only the name's last two segments count: `DB_PASSWORD_OLD` and `X-Auth-Token` do,
 * `secret-sync-7d9f8` (a pod) and `auth-proxy` (a container) do not; and a last segment
 * such as `Name`, `Ref` or `Path` marks a reference to a credential, not one.
 */
const SENSITIVE_TAIL =
  /(?:password|passwd|passphrase|pwd|secret|token|credential|api_?key|access_?key|private_?key|account_?key|signing_?key|encryption_?key|master_?key|client_?key|session_?id|auth_?key|dsn)/;
const SENSITIVE_LAST_SEGMENT = new Set(['pass', 'auth', 'authorization', 'cookie', 'creds', 'cred', 'apikey', 'pat']);
const REFERENCE_SEGMENTS = new Set(['name', 'names', 'ref', 'refs', 'path', 'paths', 'file', 'files', 'type', 'namespace', 'field', 'mode', 'count', 'seconds', 'length', 'size', 'source']);

function splitNameSegments(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** Values that point at a credential or are already masked: `<secret a/b>`, `secretKeyRef a/b`, `$(VAR)`, `${VAR}`, `****`. */
const REFERENCE_VALUE = /^["']?(?:\[REDACTED|<|\$\(|\$\{|\*+["']?$|(?:secretKeyRef|configMapKeyRef|fieldRef|resourceFieldRef|secretRef|configMapRef)$)/;

/** Text patterns, applied in order. Each replacement keeps the label and masks the value. */
/** `match` and the capture groups (absent groups as ''), then where the match ends and the whole text. */
type Replacer = (groups: string[], context: { end: number; input: string }) => string;

const TEXT_PATTERNS: Array<{ pattern: RegExp; replace: Replacer }> = [
  {
    // A PEM private key, or the start of one whose end was cut off.
    pattern: /-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g,
    replace: () => `[REDACTED PRIVATE KEY]`,
  },
  {
    pattern: /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g,
    replace: () => `[REDACTED JWT]`,
  },
  {
    pattern: /\b(Bearer|Basic|Token|Digest)(\s+)[A-Za-z0-9\-._~+/]{6,}=*/gi,
    replace: ([, scheme, space]) => `${scheme}${space}${REDACTED}`,
  },
  {
    // scheme://user:password@host: the greedy class stops at whitespace and slashes, so it reaches the last '@' of the authority.
    pattern: /\b([a-z][a-z0-9+.-]*:\/\/)([^\s:@/]*):([^\s/]+)@/gi,
    replace: ([, scheme, user]) => `${scheme}${user}:${REDACTED}@`,
  },
  {
    pattern: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b/g,
    replace: () => `[REDACTED AWS KEY]`,
  },
  {
    pattern: /\b(?:AIza[0-9A-Za-z_-]{35}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|[sr]k_(?:live|test)_[A-Za-z0-9]{16,}|glpat-[A-Za-z0-9_-]{20,})\b/g,
    replace: () => `[REDACTED KEY]`,
  },
  {
    // --db-password value (a flag followed by its value after a space).
    pattern: /(?<![A-Za-z0-9_-])(--?[A-Za-z][A-Za-z0-9_.-]*)(\s+)(?!-)("[^"]*"|'[^']*'|[^\s"']+)/g,
    replace: ([match, flag, space, value]) =>
      isSensitiveName(flag ?? '', 'text') && !REFERENCE_VALUE.test(value ?? '') ? `${flag}${space}${REDACTED}` : (match ?? ''),
  },
  {
    // name=value, name: value, "name": "value", Password=value; in connection strings.
    pattern: /(["']?)([A-Za-z][A-Za-z0-9_.-]*)\1(\s*[:=]\s*)("[^"]*"|'[^']*'|[^\s"',;&)}\]]+)/g,
    replace: ([match = '', quote = '', name = '', separator = '', value = ''], { end, input }) => {
      if (!isSensitiveName(name, 'text') || REFERENCE_VALUE.test(value) || /^["']{0,2}$/.test(value)) return match;
      // `token: unexpected status from ...` is prose about a credential, not one: a lowercase word that a sentence goes on after.
      if (!separator.includes('=') && /^[a-z]{1,15}$/.test(value) && /^ [a-z]/.test(input.slice(end, end + 2))) return match;
      const open = value.startsWith('"') ? '"' : value.startsWith("'") ? "'" : '';
      return `${quote}${name}${quote}${separator}${open}${REDACTED}${open}`;
    },
  },
];

/** A 40-character base64 run mixing cases and digits: the shape of an AWS secret access key. */
const HIGH_ENTROPY_40 = /(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g;

function looksRandom(value: string): boolean {
  return /[a-z]/.test(value) && /[A-Z]/.test(value) && /[0-9]/.test(value);
}

/** Masks every credential-like substring of `text`; the rest is unchanged. */
export function redactText(text: string): string {
  let result = text;
  for (const { pattern, replace } of TEXT_PATTERNS) {
    result = result.replace(pattern, (...args: unknown[]) => {
      // String.replace passes the match, the groups, the offset, the input (and named groups, unused here).
      const offsetIndex = args.findIndex((arg) => typeof arg === 'number');
      const groups = args.slice(0, offsetIndex).map((arg) => (typeof arg === 'string' ? arg : ''));
      const offset = args[offsetIndex] as number;
      const input = args[offsetIndex + 1] as string;
      return replace(groups, { end: offset + (groups[0]?.length ?? 0), input });
    });
  }
  return result.replace(HIGH_ENTROPY_40, (match) => (looksRandom(match) ? `[REDACTED KEY]` : match));
}

/** Multi-word names of a credential, read at the end of a name: `X-Api-Key`, `aws_access_key`, `SESSION_ID`. */
const COMPOUND_TAIL = /(?:^|_)(?:api|access|private|account|signing|encryption|master|client|auth|secret|shared_access|license)_key$|(?:^|_)session_id$/;

/** Last segments that qualify the credential before them: `DB_PASSWORD_OLD`, `API_TOKEN_V2`. */
const QUALIFIER_SEGMENT = /^(?:old|new|prev|previous|current|next|v?\d+|b64|base64|enc|encrypted|hash|hashed|raw|value|str|plain|prod|production|staging|dev|test|primary|secondary|backup|ro|rw|admin|user|root|default)$/;

/**
 * True when a name says its value is a credential. `structured` (env var names, JSON keys)
 * looks at any segment; `text` (a `name:` or `name=` inside free text, where pod and container
 * names such as `token-refresher:` appear) needs the word in the last segment, or just
 * before a qualifier such as `_OLD` or `_V2`.
 */
export function isSensitiveName(name: string, mode: 'structured' | 'text' = 'structured'): boolean {
  if (name.includes('last-applied-configuration')) return true;
  const segments = splitNameSegments(name);
  const last = segments.at(-1);
  if (last === undefined || REFERENCE_SEGMENTS.has(last)) return false;
  if (SENSITIVE_LAST_SEGMENT.has(last) || SENSITIVE_TAIL.test(last)) return true;
  if (mode === 'structured') return segments.some((segment) => SENSITIVE_TAIL.test(segment)) || SENSITIVE_TAIL.test(segments.slice(-2).join('_'));
  if (COMPOUND_TAIL.test(segments.slice(-3).join('_'))) return true;
  return segments.length > 1 && QUALIFIER_SEGMENT.test(last) && SENSITIVE_TAIL.test(segments.slice(-3, -1).join('_'));
}

/** The value of an env var or setting called `name`, masked when the name or the value says so. */
export function redactNamedValue(name: string, value: string): string {
  if (value === '') return value;
  if (isSensitiveName(name) && !REFERENCE_VALUE.test(value)) return REDACTED;
  return redactText(value);
}

function isFlagExpectingValue(argument: string): boolean {
  return /^--?[A-Za-z0-9_.-]+$/.test(argument) && isSensitiveName(argument.replace(/^-+/, ''));
}

/**
 * A deep copy of `value` with credentials masked: strings through `redactText`, values of
 * sensitive keys masked whole, `{name, value}` pairs (env vars) by their name, and in string
 * arrays (args) the element after a sensitive flag. Dates and non-plain objects pass through.
 */
export function redactValue<T>(value: T): T {
  return redactAny(value, undefined) as T;
}

function redactAny(value: unknown, key: string | undefined): unknown {
  if (typeof value === 'string') return key !== undefined ? redactNamedValue(key, value) : redactText(value);
  if (Array.isArray(value)) {
    return value.map((item, index) => {
      const previous = value[index - 1];
      if (typeof item === 'string' && typeof previous === 'string' && isFlagExpectingValue(previous) && !item.startsWith('-')) return REDACTED;
      return redactAny(item, undefined);
    });
  }
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  const record = value as Record<string, unknown>;
  const envName = typeof record.name === 'string' && typeof record.value === 'string' ? record.name : undefined;
  const copy: Record<string, unknown> = {};
  for (const [entryKey, entryValue] of Object.entries(record)) {
    if (entryKey === 'value' && envName !== undefined) copy[entryKey] = redactNamedValue(envName, entryValue as string);
    else copy[entryKey] = redactAny(entryValue, entryKey);
  }
  return copy;
}
