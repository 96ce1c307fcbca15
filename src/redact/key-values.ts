/**
 * Masks values by the name before them, wherever `name: value` or `name=value` appears:
 * YAML and JSON at any depth (also JSON escaped inside a string, `\"password\":\"x\"`),
 * logfmt, env assignments, `--flag=value`, connection strings (`Password=x;`), YAML block
 * scalars (`password: |`), values on the next line, and env lists written as text
 * (`- name: DB_PASSWORD` with its `value:`). A key only claims its own value: in
 * `user:\n  token: x` or `ERROR: password: x` the outer key never swallows the inner one.
 */
import { isNonSecretValue, isSensitiveName, isWeakSecretName } from './names.ts';
import { looksRandom, type SpanSet } from './spans.ts';

/**
 * A key (optionally quoted, also with escaped quotes) and its separator; the value is read
 * by hand after it. A key may hold a domain prefix (`vault.example.com/token:`) or follow a
 * path (`/v2/password=x`); it never starts after `${` (`${DB_PASSWORD:-}` is a shell default).
 */
const KEY_PATTERN =
  /(?<![A-Za-z0-9_.$@-])(?<!\$\{)(\\{0,3}["'])?(-{0,2}[A-Za-z_$@][A-Za-z0-9_.$@/-]*)\1[ \t]*(=>|:=|:|=)[ \t]*/g;

/** Characters that end an unquoted value written inline (`a=b, c=d`, `Password=x;`, `{token: x}`). */
const INLINE_VALUE_END = /[\s"',;&)}\]<>]/;

/** Names repeat (a log tail has a few dozen keys, thousands of times): their reading is remembered, within a bound. */
const NAME_KINDS = new Map<string, 'strong' | 'weak' | 'plain'>();
const NAME_KINDS_LIMIT = 5000;

function classifyName(name: string): 'strong' | 'weak' | 'plain' {
  const known = NAME_KINDS.get(name);
  if (known) return known;
  const bare = name.replace(/^-+/, '');
  const kind = isSensitiveName(bare, 'text') ? 'strong' : isWeakSecretName(bare) ? 'weak' : 'plain';
  if (NAME_KINDS.size >= NAME_KINDS_LIMIT) NAME_KINDS.clear();
  NAME_KINDS.set(name, kind);
  return kind;
}

/** `registry.io/external-secrets/external-secrets:v0.10.5`: a path, a colon and no blank is an image and its tag, not a key. */
function isImageReference(name: string, matched: string): boolean {
  return name.includes('/') && matched.endsWith(':');
}

/** `https://x-access-token:...@host`: a name right after a slash, then a colon, is a URL's user (its password is masked as userinfo). */
function isUrlUser(text: string, index: number, separator: string | undefined): boolean {
  return separator === ':' && text[index - 1] === '/';
}

interface KeyMatch {
  name: string;
  quoted: boolean;
  separator: string;
  /** Where the value starts (after the separator and blanks). */
  valueStart: number;
  /** Only blanks or a YAML list dash before the key on its line. */
  startsLine: boolean;
  /** The key line's indentation (a YAML list dash counts). */
  indent: number;
}

interface ValueRange {
  start: number;
  end: number;
  quoted: boolean;
}

/** Adds a span for every value whose key says it is a credential. */
export function detectKeyValues(text: string, spans: SpanSet): void {
  KEY_PATTERN.lastIndex = 0;
  for (let match = KEY_PATTERN.exec(text); match !== null; match = KEY_PATTERN.exec(text)) {
    const name = match[2] ?? '';
    if (isImageReference(name, match[0]) || isUrlUser(text, match.index, match[3])) continue;
    const isEnvName = name.toLowerCase() === 'name';
    const kind = isEnvName ? 'plain' : classifyName(name);
    if (!isEnvName && kind === 'plain') continue;
    const key = describeKey(text, {
      index: match.index,
      length: match[0].length,
      quote: match[1],
      name,
      separator: match[3] ?? '',
    });
    if (isEnvName) {
      maskEnvPairValue(text, key, spans);
      continue;
    }
    const strong = kind === 'strong';
    const range = readValue(text, key);
    if (!range) continue;
    const value = text.slice(range.start, range.end);
    if (isNonSecretValue(value) || isProse(text, key, range)) continue;
    if (!strong && !looksRandom(value)) continue;
    spans.add(range.start, range.end);
  }
}

/** Where a key was found: its offset and length (with separator and blanks), opening quote, name and separator. */
interface KeyFound {
  index: number;
  length: number;
  quote: string | undefined;
  name: string;
  separator: string;
}

function describeKey(text: string, found: KeyFound): KeyMatch {
  const lineStart = text.lastIndexOf('\n', found.index - 1) + 1;
  const before = text.slice(lineStart, found.index);
  const listItem = /^([ \t]*)(?:-[ \t]+)*$/.exec(before);
  return {
    name: found.name.replace(/^-+/, ''),
    quoted: found.quote !== undefined,
    separator: found.separator,
    valueStart: found.index + found.length,
    startsLine: listItem !== null,
    indent: listItem ? before.length : 0,
  };
}

/**
 * `token: unexpected status from ...` is prose about a credential, not one: a lowercase
 * word after a colon that a sentence goes on after.
 */
function isProse(text: string, key: KeyMatch, range: ValueRange): boolean {
  if (range.quoted || key.separator !== ':') return false;
  const value = text.slice(range.start, range.end);
  return /^[a-z]{1,15}$/.test(value) && /^ [a-z]/.test(text.slice(range.end, range.end + 2));
}

/** The value after a key, or undefined when there is none to mask here (an object, whose own keys are read in turn). */
function readValue(text: string, key: KeyMatch): ValueRange | undefined {
  const position = key.valueStart;
  const first = text[position];
  if (first === undefined || first === '\n' || first === '\r')
    return key.separator === ':' ? readNextLines(text, key) : undefined;
  if (first === '{' || text.startsWith('[REDACTED', position)) return undefined;
  const quote = /^\\{0,3}["']/.exec(text.slice(position, position + 4));
  if (quote) return readQuoted(text, position, quote[0]);
  if (first === '[') return readFlatArray(text, position);
  if (key.separator === ':' && key.startsLine && !key.quoted) {
    if (/^[|>][+-]?\d*[ \t]*(?:#.*)?$/.test(restOfLine(text, position)))
      return readBlock(text, key, lineEnd(text, position) + 1);
    // A YAML value runs to the end of its line, unless its first word says it holds none (`token: ... expired`, `password: YES, set`).
    const line = readRestOfLine(text, position);
    const firstWord = line ? (text.slice(line.start, line.end).split(/[\s,;]+/)[0] ?? '') : '';
    return line && isNonSecretValue(firstWord)
      ? { start: line.start, end: line.start + firstWord.length, quoted: false }
      : line;
  }
  let end = position;
  while (end < text.length && !INLINE_VALUE_END.test(text[end] ?? '')) end++;
  return end > position ? { start: position, end, quoted: false } : undefined;
}

function lineEnd(text: string, position: number): number {
  const newline = text.indexOf('\n', position);
  return newline === -1 ? text.length : newline;
}

function restOfLine(text: string, position: number): string {
  return text.slice(position, lineEnd(text, position));
}

/** A YAML plain value: the rest of the line, without a trailing ` # comment`. */
function readRestOfLine(text: string, position: number): ValueRange | undefined {
  const line = restOfLine(text, position);
  const comment = line.search(/[ \t]#/);
  const value = (comment === -1 ? line : line.slice(0, comment)).replace(/[\s]+$/, '');
  return value.length > 0 ? { start: position, end: position + value.length, quoted: false } : undefined;
}

/** A quoted value up to its closing quote (a backslash escapes a plain quote); a value cut off runs to the end of its line. */
function readQuoted(text: string, position: number, opening: string): ValueRange {
  const start = position + opening.length;
  if (opening.length === 1) {
    for (let index = start; index < text.length; index++) {
      const character = text[index];
      if (character === '\\') index++;
      else if (character === opening) return { start, end: index, quoted: true };
      else if (character === '\n') break;
    }
  } else {
    const close = text.indexOf(opening, start);
    if (close !== -1) return { start, end: close, quoted: true };
  }
  return { start, end: lineEnd(text, start), quoted: true };
}

/** `["a", "b"]` after a sensitive key: everything inside the brackets, when they hold no objects. */
function readFlatArray(text: string, position: number): ValueRange | undefined {
  const close = text.indexOf(']', position);
  if (close === -1) return undefined;
  const inside = text.slice(position + 1, close);
  if (inside.includes('{') || inside.trim() === '') return undefined;
  return { start: position + 1, end: close, quoted: true };
}

function indentationOf(line: string): number {
  return /^[ \t]*/.exec(line)?.[0].length ?? 0;
}

/** A YAML block scalar (`password: |`): the lines after the key that are indented deeper than it. */
function readBlock(text: string, key: KeyMatch, from: number): ValueRange | undefined {
  let end = from;
  let position = from;
  while (position < text.length) {
    const stop = lineEnd(text, position);
    const line = text.slice(position, stop);
    if (line.trim() !== '' && indentationOf(line) <= key.indent) break;
    if (line.trim() !== '') end = stop;
    position = stop + 1;
  }
  return end > from ? { start: from, end, quoted: true } : undefined;
}

/** `password:` with nothing after it on the line: a YAML value on the deeper-indented lines below, unless they are keys or list items. */
function readNextLines(text: string, key: KeyMatch): ValueRange | undefined {
  const from = lineEnd(text, key.valueStart) + 1;
  if (from >= text.length) return undefined;
  const nextLine = restOfLine(text, from);
  if (
    indentationOf(nextLine) <= key.indent ||
    /^[ \t]*(?:- |-$|["']?[A-Za-z0-9_.$@-]+["']?[ \t]*:(?:[ \t]|$)|\{|\[)/.test(nextLine)
  )
    return undefined;
  return readBlock(text, key, from);
}

/** `value` as a key, with its separator; `valueFrom` and `values` do not match. */
const VALUE_KEY = /(?<![A-Za-z0-9_.$@-])(\\{0,3}["'])?value\1[ \t]*(?:=|:)[ \t]*/g;
/** Where the env entry that a `name` opened ends: a closing brace, the next list item, the next `name` key. */
const ENTRY_END = /\}|\n[ \t]*- |(?<![A-Za-z0-9_.$@-])\\{0,3}["']?name\\{0,3}["']?[ \t]*[:=]/g;
const ENTRY_WINDOW = 400;

/** An env entry written as text (`{"name": "DB_PASSWORD", "value": "x"}`, `- name: API_TOKEN` / `value: x`): its value, masked by the entry's name. */
function maskEnvPairValue(text: string, key: KeyMatch, spans: SpanSet): void {
  const nameRange = readValue(text, { ...key, startsLine: false });
  if (!nameRange) return;
  const variable = text.slice(nameRange.start, nameRange.end);
  if (!isSensitiveName(variable)) return;
  const valueKey = findValueKeyAfter(text, nameRange.end) ?? findValueKeyBefore(text, key.valueStart);
  if (!valueKey) return;
  const range = readValue(text, valueKey);
  if (!range || isNonSecretValue(text.slice(range.start, range.end))) return;
  spans.add(range.start, range.end);
}

/** The `value` key that `VALUE_KEY` found in a window starting at `offset`. */
function valueKeyAt(text: string, match: RegExpExecArray, offset: number): KeyMatch {
  const separator = match[0].includes('=') ? '=' : ':';
  return describeKey(text, {
    index: offset + match.index,
    length: match[0].length,
    quote: match[1],
    name: 'value',
    separator,
  });
}

function findValueKeyAfter(text: string, from: number): KeyMatch | undefined {
  const window = text.slice(from, from + ENTRY_WINDOW);
  ENTRY_END.lastIndex = 0;
  const boundary = ENTRY_END.exec(window)?.index ?? window.length;
  VALUE_KEY.lastIndex = 0;
  const match = VALUE_KEY.exec(window.slice(0, boundary));
  if (!match) return undefined;
  return valueKeyAt(text, match, from);
}

function findValueKeyBefore(text: string, nameAt: number): KeyMatch | undefined {
  const windowStart = Math.max(0, nameAt - ENTRY_WINDOW);
  const window = text.slice(windowStart, nameAt);
  const boundary = Math.max(window.lastIndexOf('{'), window.lastIndexOf('- '), window.lastIndexOf('}'));
  const scoped = boundary === -1 ? window : window.slice(boundary);
  const offset = windowStart + Math.max(boundary, 0);
  VALUE_KEY.lastIndex = 0;
  const match = VALUE_KEY.exec(scoped);
  if (!match) return undefined;
  return valueKeyAt(text, match, offset);
}
