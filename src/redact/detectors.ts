/**
 * The detectors that find secrets by their shape or their place rather than by a key
 * name: provider tokens (`provider-rules.ts`), credentials after an auth scheme
 * (`Bearer x`), URL userinfo and secret query parameters, HTTP headers, sensitive flags
 * followed by a value (`--db-password x`), and unlabelled 40-character keys. Each adds
 * spans; `redactor.ts` runs them all with the key-value and command-line detectors.
 */
import { isNonSecretValue, isSensitiveName } from './names.ts';
import { PROVIDER_RULES } from './provider-rules.ts';
import { looksRandom, type SpanSet } from './spans.ts';

const KEY_LABEL = '[REDACTED KEY]';

/**
 * Every rule keyword, longest first, found in one pass: at each position the longest keyword
 * that matches is reported, and the shorter keywords matching there are its prefixes.
 */
const KEYWORDS = [...new Set(PROVIDER_RULES.flatMap((rule) => rule.keywords))].sort(
  (left, right) => right.length - left.length,
);
function escapeForPattern(literal: string): string {
  return literal.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&');
}
const KEYWORD_PATTERN = new RegExp(`(?=(${KEYWORDS.map(escapeForPattern).join('|')}))`, 'g');
const ANY_KEYWORD = new RegExp(KEYWORDS.map(escapeForPattern).join('|'));
const KEYWORD_PREFIXES = new Map(
  KEYWORDS.map((keyword) => [keyword, KEYWORDS.filter((other) => keyword.startsWith(other))]),
);

function presentKeywords(lowerText: string): Set<string> {
  const present = new Set<string>();
  for (const match of lowerText.matchAll(KEYWORD_PATTERN)) {
    for (const keyword of KEYWORD_PREFIXES.get(match[1] ?? '') ?? []) present.add(keyword);
  }
  return present;
}

/** True when some provider rule's keyword is in the (lowercased) text: without one, no provider token can be. */
export function hasProviderKeyword(lowerText: string): boolean {
  return ANY_KEYWORD.test(lowerText);
}

/** Provider tokens, each rule tried only when one of its keywords is in the text. */
export function detectProviderTokens(text: string, lowerText: string, spans: SpanSet): void {
  const present = presentKeywords(lowerText);
  for (const rule of PROVIDER_RULES) {
    if (!rule.keywords.some((keyword) => present.has(keyword))) continue;
    rule.pattern.lastIndex = 0;
    for (const match of text.matchAll(rule.pattern)) {
      const secret = rule.secretGroup !== undefined ? match[rule.secretGroup] : match[0];
      if (!secret || (rule.accept && !rule.accept(secret))) continue;
      const start = (match.index ?? 0) + match[0].indexOf(secret);
      spans.add(start, start + secret.length, rule.label ?? KEY_LABEL);
    }
  }
}

const AUTH_SCHEME = /\b(?:Bearer|Basic|Token|Digest|Negotiate|Bot)[ \t]+([A-Za-z0-9\-._~+/]{6,}=*)/gi;

/** True when a word after an auth scheme is a credential, not prose (`token expired`, `Bearer realm`). */
function looksLikeCredential(value: string): boolean {
  const bare = value.replace(/=+$/, '');
  if (bare.length < 8) return false;
  return /[0-9]/.test(bare) || (/[A-Z]/.test(bare) && /[a-z]/.test(bare)) || /[._~+/-]/.test(bare) || bare.length >= 20;
}

/** `Authorization: Bearer x`, `Basic dXNlcjpw`, `Token abc123...`: the credential after the scheme. */
export function detectAuthSchemes(text: string, spans: SpanSet): void {
  for (const match of text.matchAll(AUTH_SCHEME)) {
    const credential = match[1] ?? '';
    if (!looksLikeCredential(credential)) continue;
    const start = (match.index ?? 0) + match[0].length - credential.length;
    spans.add(start, start + credential.length);
  }
}

/** scheme://user:password@host: the greedy class stops at whitespace and slashes, so it reaches the last '@' of the authority. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s:@/]*):([^\s/]+)@/gi;

/** Query and fragment parameters that carry a credential whatever their value looks like (Azure SAS `sig`, S3 presigned, OAuth). */
const SECRET_QUERY_PARAMETERS = new Set([
  'sig',
  'signature',
  'token',
  'access_token',
  'id_token',
  'refresh_token',
  'x-amz-signature',
  'x-amz-credential',
  'x-amz-security-token',
  'x-goog-signature',
  'x-goog-credential',
  'code',
  'key',
  'apikey',
  'api_key',
  'api-key',
  'password',
  'pass',
  'pwd',
  'secret',
  'client_secret',
  'auth',
  'session',
  'sessionid',
  'jwt',
  'hmac',
  'private_token',
  'access_key',
  'sharedaccesssignature',
  'sas',
]);
const QUERY_PARAMETER = /([?&#;])([A-Za-z0-9_.-]+)=([^&\s"'#<>;]+)/g;

/** URL userinfo (`postgres://app:x@db`) and secret query parameters (`?sig=`, `&X-Amz-Signature=`, `#access_token=`). */
export function detectUrlCredentials(text: string, spans: SpanSet): void {
  if (text.includes('://')) {
    for (const match of text.matchAll(URL_USERINFO)) {
      const password = match[3] ?? '';
      if (isNonSecretValue(password) || password.startsWith('$')) continue;
      const start = (match.index ?? 0) + (match[1] ?? '').length + (match[2] ?? '').length + 1;
      spans.add(start, start + password.length);
    }
  }
  for (const match of text.matchAll(QUERY_PARAMETER)) {
    const name = match[2] ?? '';
    const value = match[3] ?? '';
    if (!SECRET_QUERY_PARAMETERS.has(name.toLowerCase()) && !isSensitiveName(name, 'text')) continue;
    // An OAuth `code` is long and mixed; `error?code=7000215` is an error number.
    if (isNonSecretValue(value) || (name.toLowerCase() === 'code' && /^\d+$/.test(value))) continue;
    const start = (match.index ?? 0) + match[0].length - value.length;
    spans.add(start, start + value.length);
  }
}

/** Headers whose whole value is a credential; the value runs to the end of the line (or of the quoted string holding it). */
const SECRET_HEADER =
  /(?<![A-Za-z0-9_-])(?:authorization|proxy-authorization|cookie|set-cookie|x-api-key|api-key|x-auth-token|x-access-token|x-amz-security-token|private-token|x-goog-api-key|x-vault-token|x-csrf-token|x-xsrf-token)[ \t]*:[ \t]*([^\r\n"'\\]+)/gi;

export function detectHeaders(text: string, spans: SpanSet): void {
  for (const match of text.matchAll(SECRET_HEADER)) {
    const value = (match[1] ?? '').replace(/\s+$/, '');
    if (
      isNonSecretValue(value) ||
      /^(?:Bearer|Basic|Token|Digest)?\s*\[REDACTED[^\]]*\]$/i.test(value) ||
      /^(?:Bearer|Basic|Token|Digest)$/i.test(value)
    )
      continue;
    const start = (match.index ?? 0) + match[0].length - (match[1] ?? '').length;
    spans.add(start, start + value.length);
  }
}

/** `--db-password value`: a sensitive flag followed by its value after blanks. */
const FLAG_WITH_VALUE = /(?<![A-Za-z0-9_-])(--?[A-Za-z][A-Za-z0-9_.-]*)([ \t]+)(?!-)("[^"\n]*"|'[^'\n]*'|[^\s"']+)/g;

export function detectSensitiveFlags(text: string, spans: SpanSet): void {
  for (const match of text.matchAll(FLAG_WITH_VALUE)) {
    const flag = match[1] ?? '';
    const raw = match[3] ?? '';
    if (!isSensitiveName(flag, 'text')) continue;
    const quoted = raw.startsWith('"') || raw.startsWith("'");
    const value = quoted ? raw.slice(1, -1) : raw;
    if (isNonSecretValue(value) || value.startsWith('$')) continue;
    const start = (match.index ?? 0) + match[0].length - raw.length + (quoted ? 1 : 0);
    spans.add(start, start + value.length);
  }
}

/** `["--db-password", "x"]`: an argv array written as text (a pod spec's `args` in YAML flow style or JSON). */
const QUOTED_FLAG_THEN_VALUE = /(["'])(--?[A-Za-z][A-Za-z0-9_.-]*)\1[ \t]*,[ \t]*(["'])([^"'\n]*)\3/g;

export function detectQuotedFlagArguments(text: string, spans: SpanSet): void {
  for (const match of text.matchAll(QUOTED_FLAG_THEN_VALUE)) {
    const value = match[4] ?? '';
    if (
      !isSensitiveName(match[2] ?? '', 'text') ||
      value.startsWith('-') ||
      value.startsWith('$') ||
      isNonSecretValue(value)
    )
      continue;
    const start = (match.index ?? 0) + match[0].length - value.length - 1;
    spans.add(start, start + value.length);
  }
}

/** A 40-character base64 run mixing cases and digits: the shape of an AWS secret access key, with no name beside it. */
const HIGH_ENTROPY_40 = /(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g;

export function detectUnlabelledKeys(text: string, spans: SpanSet): void {
  for (const match of text.matchAll(HIGH_ENTROPY_40)) {
    const value = match[0];
    if (/[a-z]/.test(value) && /[A-Z]/.test(value) && /[0-9]/.test(value) && looksRandom(value))
      spans.add(match.index ?? 0, (match.index ?? 0) + value.length, KEY_LABEL);
  }
}
