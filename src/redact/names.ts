/**
 * What a name says about its value: whether an env var, flag, JSON or YAML key, query
 * parameter or header names a credential (`DB_PASSWORD`, `X-Auth-Token`), only hints at one
 * (`sig`, `nonce`: masked when the value looks random), or refers to one (`secretName`,
 * `passwordFile`). And which values are not secrets whatever their name says (`YES`, `$(VAR)`).
 */

/**
 * Only the name's last two segments count: `DB_PASSWORD_OLD` and `X-Auth-Token` do,
 * `secret-sync-7d9f8` (a pod) and `auth-proxy` (a container) do not; and a last segment
 * such as `Name`, `Ref` or `Path` marks a reference to a credential, not one.
 */
const SENSITIVE_TAIL =
  /(?:password|passwd|passphrase|pwd|secret|token|credential|api_?key|access_?key|private_?key|account_?key|signing_?key|encryption_?key|master_?key|client_?key|session_?id|auth_?key|dsn)/;
const SENSITIVE_LAST_SEGMENT = new Set(['pass', 'auth', 'authorization', 'cookie', 'creds', 'cred', 'apikey', 'pat']);
const REFERENCE_SEGMENTS = new Set([
  'name',
  'names',
  'ref',
  'refs',
  'path',
  'paths',
  'file',
  'files',
  'type',
  'namespace',
  'field',
  'mode',
  'count',
  'seconds',
  'length',
  'size',
  'source',
  'used',
  'limit',
  'max',
  'min',
  'ttl',
  'expiry',
  'expires',
  'usage',
  'budget',
]);

/** Multi-word names of a credential, read at the end of a name: `X-Api-Key`, `aws_access_key`, `SESSION_ID`, `client-key-data`. */
const COMPOUND_TAIL =
  /(?:^|_)(?:api|access|private|account|signing|encryption|master|client|auth|secret|shared_access|license)_key$|(?:^|_)session_id$|(?:^|_)client_key_data$|(?:^|_)private_key_(?:data|pem)$/;

/** Last segments that qualify the credential before them: `DB_PASSWORD_OLD`, `API_TOKEN_V2`. */
const QUALIFIER_SEGMENT =
  /^(?:old|new|prev|previous|current|next|v?\d+|b64|base64|enc|encrypted|hash|hashed|raw|value|str|plain|prod|production|staging|dev|test|primary|secondary|backup|ro|rw|admin|user|root|default|data)$/;

/** Names that only hint at a credential: their value is masked when it looks random (`sig=`, `nonce:`). */
const WEAK_LAST_SEGMENT = new Set(['sig', 'signature', 'hmac', 'nonce', 'key', 'salt', 'otp', 'verifier', 'challenge']);

function splitNameSegments(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

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
  // `checksum/secret` (a Helm annotation) is a hash of the Secret, to roll pods when it changes.
  if (last === undefined || REFERENCE_SEGMENTS.has(last) || segments[0] === 'checksum') return false;
  // `imagePullSecrets` lists the names of the Secrets a pod pulls with, never their contents.
  if (last === 'secrets' && segments.at(-2) === 'pull') return false;
  if (SENSITIVE_LAST_SEGMENT.has(last) || SENSITIVE_TAIL.test(last)) return true;
  if (COMPOUND_TAIL.test(segments.slice(-3).join('_'))) return true;
  if (mode === 'structured')
    return (
      segments.some((segment) => SENSITIVE_TAIL.test(segment)) || SENSITIVE_TAIL.test(segments.slice(-2).join('_'))
    );
  return segments.length > 1 && QUALIFIER_SEGMENT.test(last) && SENSITIVE_TAIL.test(segments.slice(-3, -1).join('_'));
}

/** True when a name only hints at a credential (`sig`, `X-Hmac`, `oauth_nonce`): its value needs to look random too. */
export function isWeakSecretName(name: string): boolean {
  const last = splitNameSegments(name).at(-1);
  return last !== undefined && WEAK_LAST_SEGMENT.has(last);
}

/** Values that point at a credential or are already masked: `<secret a/b>`, `secretKeyRef a/b`, `$(VAR)`, `${VAR}`, `****`. */
const REFERENCE_VALUE =
  /^["']?(?:\[REDACTED|<|\$\(|\$\{|\{\{|\*+["']?$|(?:secretKeyRef|configMapKeyRef|fieldRef|resourceFieldRef|secretRef|configMapRef)$)/;

/** Words that say something about a credential without being one: MySQL's `(using password: YES)`, `token: none`. */
const STATUS_WORD =
  /^(?:yes|no|true|false|null|nil|none|empty|required|optional|set|unset|on|off|enabled|disabled|redacted|hidden|masked|omitted|n\/a|present|missing|invalid|expired|ok)$/i;

/** True when `value` (without quotes) cannot be a credential: a reference, a mask, a status word, bare punctuation (`-`, `...`). */
export function isNonSecretValue(value: string): boolean {
  const trimmed = value.trim();
  if (trimmed === '' || !/[A-Za-z0-9]/.test(trimmed)) return true;
  return REFERENCE_VALUE.test(trimmed) || STATUS_WORD.test(trimmed) || trimmed.includes('[REDACTED');
}
