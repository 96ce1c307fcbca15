/**
 * The ranges of a text that detectors found secret, and how they are masked: every detector
 * reads the original text and adds spans; overlapping spans merge; each merged span is
 * replaced once by its label. Detectors therefore never see each other's masks, and their
 * order does not matter.
 */

export const REDACTED = '[REDACTED]';

export interface Span {
  start: number;
  end: number;
  label: string;
}

/** Where detectors put what they find. */
export class SpanSet {
  readonly spans: Span[] = [];

  add(start: number, end: number, label: string = REDACTED): void {
    if (end > start) this.spans.push({ start, end, label });
  }
}

/** `text` with every span replaced by its label; overlapping spans become one (the earliest, widest label wins). */
export function applySpans(text: string, spans: Span[]): string {
  if (spans.length === 0) return text;
  const ordered = [...spans].sort((left, right) => left.start - right.start || right.end - left.end);
  let result = '';
  let position = 0;
  let current: Span | undefined;
  for (const span of ordered) {
    if (current && span.start < current.end) {
      current.end = Math.max(current.end, span.end);
      continue;
    }
    if (current) {
      result += text.slice(position, current.start) + current.label;
      position = current.end;
    }
    current = { ...span };
  }
  if (current) {
    result += text.slice(position, current.start) + current.label;
    position = current.end;
  }
  return result + text.slice(position);
}

/** Bits of Shannon entropy per character. */
function entropyPerCharacter(value: string): number {
  const counts = new Map<string, number>();
  for (const character of value) counts.set(character, (counts.get(character) ?? 0) + 1);
  let entropy = 0;
  for (const count of counts.values()) {
    const share = count / value.length;
    entropy -= share * Math.log2(share);
  }
  return entropy;
}

/** Kubernetes-style names and dotted identifiers (`orders-db-pqrbk95nfj`, `app.kubernetes.io/name`): generated, not secret. */
const RESOURCE_NAME = /^[a-z0-9]+(?:[-.][a-z0-9]+)+(?:\/[a-z0-9.-]+)?$/;

/**
 * True when a value looks like a generated token rather than a word, a name or a number: at
 * least 16 characters, letters and digits, not a Kubernetes-style name, and a high entropy
 * (a hex nonce or a base64 signature; not `CriticalAddonsOnly`, `orders-db-pqrbk95nfj` nor
 * `1700000000000000`).
 */
export function looksRandom(value: string): boolean {
  if (value.length < 16 || /\s/.test(value) || RESOURCE_NAME.test(value)) return false;
  if (!/[0-9]/.test(value) || !/[A-Za-z]/.test(value)) return false;
  return entropyPerCharacter(value) >= 3.2;
}
