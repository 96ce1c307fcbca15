/**
 * Output budgets. Tools write lines in the order of their importance; once the budget is
 * spent, further lines are counted instead of written, and the closing note says what was
 * left out and how to narrow the request.
 */

export function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** Room kept for the closing note. */
const NOTE_RESERVE_BYTES = 320;

export class BudgetedText {
  readonly #budget: number;
  readonly #lines: string[] = [];
  #used = 0;
  #omittedLines = 0;
  #omittedBytes = 0;

  constructor(budgetBytes: number) {
    this.#budget = Math.max(256, budgetBytes - NOTE_RESERVE_BYTES);
  }

  /** Writes `text` (one or more lines) whole, or counts it as left out. Returns whether it was written. */
  add(text: string): boolean {
    // Once something was left out, nothing after it is written: the list stays a prefix.
    if (this.#omittedLines === 0) return this.addIfRoom(text);
    this.#omittedLines += text.split('\n').length;
    this.#omittedBytes += byteLength(text) + 1;
    return false;
  }

  /** Like `add`, but a later short line may still fit after a long one was left out. */
  addIfRoom(text: string): boolean {
    const size = byteLength(text) + 1;
    if (this.#used + size <= this.#budget) {
      this.#lines.push(text);
      this.#used += size;
      return true;
    }
    this.#omittedLines += text.split('\n').length;
    this.#omittedBytes += size;
    return false;
  }

  get truncated(): boolean {
    return this.#omittedLines > 0;
  }

  get remainingBytes(): number {
    return Math.max(0, this.#budget - this.#used);
  }

  /** The text, with a note naming what was left out and `narrowHint` when anything was. */
  finish(narrowHint: string): string {
    const body = this.#lines.join('\n');
    if (!this.truncated) return body;
    return `${body}\n[cut to fit the output budget: ${this.#omittedLines} more line(s), ${this.#omittedBytes} bytes, left out. To see them, ${narrowHint}]`;
  }
}

/**
 * The last guard: cuts `content` at a line boundary so it fits `budgetBytes`, and says so.
 * Content already within budget comes back unchanged.
 */
export function enforceBudget(
  content: string,
  budgetBytes: number,
  narrowHint: string,
): { content: string; truncated: boolean } {
  const total = byteLength(content);
  if (total <= budgetBytes) return { content, truncated: false };
  const note = (omitted: number): string =>
    `\n[cut to fit the output budget of ${budgetBytes} bytes: ${omitted} bytes left out. ${narrowHint}]`;
  const room = Math.max(0, budgetBytes - byteLength(note(total)));
  let cut = Buffer.from(content, 'utf8').subarray(0, room).toString('utf8');
  // A partial multi-byte character decodes to U+FFFD; drop it, then back off to a line end.
  cut = cut.replace(/\uFFFD$/, '');
  const lineEnd = cut.lastIndexOf('\n');
  if (lineEnd > room / 2) cut = cut.slice(0, lineEnd);
  return { content: cut + note(total - byteLength(cut)), truncated: true };
}
