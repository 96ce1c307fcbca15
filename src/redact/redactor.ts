/**
 * Masks credentials in text and in structured data before anything leaves: tool results,
 * the model's first message, the audit log, the service log, API answers and error
 * messages. Text is read structurally (key names in YAML, JSON, env lists, logfmt,
 * connection strings, URLs, headers and command lines; see `key-values.ts`,
 * `detectors.ts`, `command-lines.ts`) and by shape (provider tokens, `provider-rules.ts`;
 * PEM blocks, JWTs, random keys). It errs toward masking: a masked harmless value costs
 * little, a leaked password costs a rotation. It keeps what only talks about a credential
 * (`password: YES`, `secretName: db-creds`, `token expired`), which a diagnosis needs.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { detectCommandLines, findCommandSecrets } from './command-lines.ts';
import {
  detectAuthSchemes,
  detectHeaders,
  detectProviderTokens,
  hasProviderKeyword,
  detectQuotedFlagArguments,
  detectSensitiveFlags,
  detectUnlabelledKeys,
  detectUrlCredentials,
} from './detectors.ts';
import { detectKeyValues } from './key-values.ts';
import { isNonSecretValue, isSensitiveName, isWeakSecretName } from './names.ts';
import { applySpans, looksRandom, REDACTED, SpanSet } from './spans.ts';

export { REDACTED } from './spans.ts';
export { isSensitiveName } from './names.ts';

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
 * A cheap test that `text` cannot hold anything `redactText` would mask. Every detector needs
 * one of: a separator (`:`, `=`), a PEM fence, a flag, an auth scheme word; or, for tokens
 * known by their shape, a provider keyword (`ghp_`, `sk-ant-`...) or a 40-character key. A
 * text that fails this test is returned as it is (most log lines, ids, paths).
 */
const SEPARATOR_FLAG_OR_SCHEME = /[:=]|-----|(?:^|\s)-|\b(?:bearer|basic|token|digest|negotiate|bot)\s/i;
const LONG_RUN = /[^\s]{12,}/;
const KEY_40 = /[A-Za-z0-9/+]{40}/;

export function mayHoldSecret(text: string): boolean {
  if (SEPARATOR_FLAG_OR_SCHEME.test(text)) return true;
  if (!LONG_RUN.test(text)) return false;
  return KEY_40.test(text) || hasProviderKeyword(text.toLowerCase());
}

/** Masks every credential-like substring of `text`; the rest is unchanged. */
export function redactText(text: string): string {
  if (!mayHoldSecret(text)) return text;
  const spans = new SpanSet();
  detectProviderTokens(text, text.toLowerCase(), spans);
  detectAuthSchemes(text, spans);
  detectUrlCredentials(text, spans);
  detectHeaders(text, spans);
  detectKeyValues(text, spans);
  detectSensitiveFlags(text, spans);
  detectQuotedFlagArguments(text, spans);
  detectCommandLines(text, spans);
  detectUnlabelledKeys(text, spans);
  return applySpans(text, spans.spans);
}

/** The value of an env var or setting called `name`, masked when the name or the value says so. */
export function redactNamedValue(name: string, value: string): string {
  if (value === '') return value;
  if (isSensitiveName(name) && !isNonSecretValue(value)) return REDACTED;
  if (isWeakSecretName(name) && looksRandom(value)) return REDACTED;
  return redactText(value);
}

function isFlagExpectingValue(argument: string): boolean {
  return /^--?[A-Za-z0-9_.-]+$/.test(argument) && isSensitiveName(argument.replace(/^-+/, ''));
}

/**
 * A deep copy of `value` with credentials masked: strings through `redactText`, values of
 * sensitive keys masked whole, `{name, value}` pairs (env vars) by their name, and in string
 * arrays (args) the element after a sensitive flag and the passwords of known commands
 * (`["mysql", "-pX"]`). Dates and non-plain objects pass through.
 */
export function redactValue<T>(value: T): T {
  return redactAny(value, undefined) as T;
}

function redactAny(value: unknown, key: string | undefined): unknown {
  if (typeof value === 'string') return key !== undefined ? redactNamedValue(key, value) : redactText(value);
  if (Array.isArray(value)) return redactArray(value);
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

function redactArray(items: unknown[]): unknown[] {
  const words = items.every((item) => typeof item === 'string') ? (items as string[]) : undefined;
  const commandSecrets = words ? findCommandSecrets(words) : [];
  return items.map((item, index) => {
    const previous = items[index - 1];
    if (
      typeof item === 'string' &&
      typeof previous === 'string' &&
      isFlagExpectingValue(previous) &&
      !item.startsWith('-') &&
      !isNonSecretValue(item)
    )
      return REDACTED;
    const secret = commandSecrets.find((candidate) => candidate.word === index);
    if (typeof item === 'string' && secret)
      return redactText(`${item.slice(0, secret.start)}${REDACTED}${item.slice(secret.end)}`);
    return redactAny(item, undefined);
  });
}
