/**
 * What a diagnosis costs: token prices per model family, in US dollars per million
 * tokens, from each vendor's public list price (pay-as-you-go, standard tier, no batch or
 * regional discount). A team's own prices (a contract, a gateway's markup, a local GPU's
 * share) override them through a prices file: `{ "<model or prefix*>": { input, output,
 * cacheRead?, cacheWrite? } }`. A model no row matches has no price: eval says so rather
 * than guess, and a local model (Ollama, vLLM) costs what the file says it does.
 *
 * Rows are tried in order; the first whose pattern matches the model name wins, so a
 * narrower family comes before a broader one (`gpt-4o-mini` before `gpt-4o`).
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { TokenUsage } from '../agent/model.ts';

export interface Price {
  /** Dollars per million uncached input tokens. */
  input: number;
  output: number;
  /** Reading the prompt cache. */
  cacheRead: number;
  /** Writing the 5-minute prompt cache; the 1-hour cache costs twice the input price. */
  cacheWrite: number;
}

export interface PriceRow {
  id: string;
  pattern: RegExp;
  price: Price;
  source: string;
  /** Model names that must match this row, and names that must not. */
  examples: { match: string[]; noMatch: string[] };
}

const anthropic = 'anthropic.com/pricing (list price; Bedrock and Vertex list the same for on-demand)';
const openai = 'openai.com/api/pricing (list price, standard tier)';

export const PRICE_TABLE: readonly PriceRow[] = [
  {
    id: 'claude-haiku',
    pattern: /claude-(?:3-5-|4-5-)?haiku|claude-haiku/,
    price: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
    source: `${anthropic}: Haiku 4.5`,
    examples: {
      match: ['claude-haiku-4-5', 'us.anthropic.claude-haiku-4-5-20251001-v1:0', 'claude-haiku-4-5@20251001'],
      noMatch: ['claude-sonnet-4-5'],
    },
  },
  {
    id: 'claude-sonnet',
    pattern: /claude-(?:3-7-)?sonnet|claude-sonnet/,
    price: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    source: `${anthropic}: every Sonnet since 3.5 (a newer Sonnet at another price belongs in the prices file)`,
    examples: {
      match: [
        'claude-sonnet-5-5',
        'claude-sonnet-4-5',
        'eu.anthropic.claude-sonnet-4-5-20250929-v1:0',
        'claude-sonnet-4-5@20250929',
      ],
      noMatch: ['claude-opus-4-1', 'gpt-4o'],
    },
  },
  {
    id: 'claude-opus-4-5',
    pattern: /claude-opus-4-5|claude-opus-[5-9]/,
    price: { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
    source: `${anthropic}: Opus 4.5`,
    examples: {
      match: ['claude-opus-4-5', 'global.anthropic.claude-opus-4-5-20251101-v1:0'],
      noMatch: ['claude-opus-4-1'],
    },
  },
  {
    id: 'claude-opus',
    pattern: /claude-(?:3-)?opus|claude-opus-4(?:-[01])?\b/,
    price: { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
    source: `${anthropic}: Opus 4 and 4.1`,
    examples: { match: ['claude-opus-4-1', 'claude-opus-4-20250514'], noMatch: ['claude-sonnet-4'] },
  },
  {
    id: 'gpt-4o-mini',
    pattern: /^gpt-4o-mini/,
    price: { input: 0.15, output: 0.6, cacheRead: 0.075, cacheWrite: 0 },
    source: openai,
    examples: { match: ['gpt-4o-mini', 'gpt-4o-mini-2024-07-18'], noMatch: ['gpt-4o'] },
  },
  {
    id: 'gpt-4o',
    pattern: /^gpt-4o/,
    price: { input: 2.5, output: 10, cacheRead: 1.25, cacheWrite: 0 },
    source: openai,
    examples: { match: ['gpt-4o', 'gpt-4o-2024-11-20'], noMatch: ['gpt-4.1'] },
  },
  {
    id: 'gpt-4.1-mini',
    pattern: /^gpt-4\.1-mini/,
    price: { input: 0.4, output: 1.6, cacheRead: 0.1, cacheWrite: 0 },
    source: openai,
    examples: { match: ['gpt-4.1-mini'], noMatch: ['gpt-4.1', 'gpt-4.1-nano'] },
  },
  {
    id: 'gpt-4.1',
    pattern: /^gpt-4\.1(?!-mini|-nano)/,
    price: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 },
    source: openai,
    examples: { match: ['gpt-4.1', 'gpt-4.1-2025-04-14'], noMatch: ['gpt-4.1-mini'] },
  },
  {
    id: 'gpt-5-mini',
    pattern: /^gpt-5(?:\.\d)?-mini/,
    price: { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0 },
    source: openai,
    examples: { match: ['gpt-5-mini'], noMatch: ['gpt-5'] },
  },
  {
    id: 'gpt-5',
    pattern: /^gpt-5(?!(?:\.\d)?-(?:mini|nano))/,
    price: { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 },
    source: openai,
    examples: { match: ['gpt-5', 'gpt-5-2025-08-07'], noMatch: ['gpt-5-mini', 'gpt-4.1'] },
  },
  {
    id: 'o4-mini',
    pattern: /^o4-mini/,
    price: { input: 1.1, output: 4.4, cacheRead: 0.275, cacheWrite: 0 },
    source: openai,
    examples: { match: ['o4-mini', 'o4-mini-2025-04-16'], noMatch: ['o3'] },
  },
  {
    id: 'o3',
    pattern: /^o3(?!-mini)/,
    price: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 },
    source: openai,
    examples: { match: ['o3', 'o3-2025-04-16'], noMatch: ['o3-mini', 'o4-mini'] },
  },
  {
    id: 'offline',
    pattern: /^offline$/,
    price: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    source: 'the offline engine runs in kubewhy and uses no tokens',
    examples: { match: ['offline'], noMatch: ['offline-llama'] },
  },
];

export class PricesFileError extends Error {
  override name = 'PricesFileError';
}

const priceSchema = z.strictObject({
  input: z.number().min(0),
  output: z.number().min(0),
  cacheRead: z.number().min(0).default(0),
  cacheWrite: z.number().min(0).default(0),
});

/** A prices file: exact model names, or prefixes ending in `*`; they win over the table. */
export function readPricesFile(path: string): PriceRow[] {
  let document: unknown;
  try {
    document = parseYaml(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new PricesFileError(`cannot read the prices file ${path}: ${(error as Error).message}`);
  }
  const parsed = z.record(z.string().min(1), priceSchema).safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new PricesFileError(
      `${path}: ${issue.path.join('.') || 'the file'}: ${issue.message} (expected { "<model or prefix*>": { input, output, cacheRead?, cacheWrite? } }, dollars per million tokens)`,
    );
  }
  return Object.entries(parsed.data).map(([name, price]) => ({
    id: name,
    pattern: name.endsWith('*')
      ? new RegExp(`^${escapeRegExp(name.slice(0, -1))}`)
      : new RegExp(`^${escapeRegExp(name)}$`),
    price,
    source: path,
    examples: { match: [], noMatch: [] },
  }));
}

/** The price of a model: the prices file's first, then the table's. */
export function priceOf(model: string, overrides: readonly PriceRow[] = []): PriceRow | undefined {
  return [...overrides, ...PRICE_TABLE].find((row) => row.pattern.test(model));
}

/** Dollars for this usage at this price. */
export function costOf(usage: TokenUsage, price: Price): number {
  const oneHour = usage.cacheWrite1h ?? 0;
  const fiveMinutes = usage.cacheWrite - oneHour;
  const dollars =
    usage.input * price.input +
    usage.output * price.output +
    usage.cacheRead * price.cacheRead +
    fiveMinutes * price.cacheWrite +
    oneHour * price.input * 2;
  return dollars / 1_000_000;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
