/**
 * HTML built from tagged templates: `html\`<p>${text}</p>\`` escapes every interpolated
 * value (text, attribute values, anything a person, an alert or the cluster wrote), so a
 * hostile string renders as text. Only a `SafeHtml` (what `html` returns, or `raw()`)
 * passes as markup: `raw` is for markup this code wrote itself, never for input.
 */

/** Markup that is already safe: the output of `html`, or what `raw` vouches for. */
export class SafeHtml {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** Text made safe for an element's content or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (character) => ESCAPES[character] ?? character);
}

/** Vouches for markup written by this code; never pass it input. */
export function raw(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

/**
 * Interpolations: SafeHtml as it is; arrays item by item; null, undefined and false as
 * nothing; anything else as escaped text.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, index) => {
    out += render(value) + (strings[index + 1] ?? '');
  });
  return new SafeHtml(out);
}

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}
