/**
 * Kubernetes resource quantities (`500m`, `2`, `512Mi`, `1.5G`, `1e3`) as whole amounts in
 * each resource's smallest unit, so requests and free room add and compare exactly:
 * millicores for cpu, bytes for memory, storage and hugepages, plain counts for the rest
 * (`pods`, `nvidia.com/gpu`). Rounds up, as the API server does.
 */

const BINARY_SUFFIXES: Readonly<Record<string, number>> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};
const DECIMAL_SUFFIXES: Readonly<Record<string, number>> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};
// An exponent is tried before the suffix, so "1E3" is 1000 and "1E" is one exa.
const QUANTITY = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:[eE]([+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]))?$/;

/** The quantity in base units (cores, bytes, items); undefined when the text is no quantity. */
export function parseQuantity(text: string): number | undefined {
  const match = QUANTITY.exec(text.trim());
  if (!match) return undefined;
  const [, number, exponent, suffix = ''] = match;
  const scale =
    exponent !== undefined ? 10 ** Number(exponent) : (BINARY_SUFFIXES[suffix] ?? DECIMAL_SUFFIXES[suffix] ?? 1);
  return Number(number) * scale;
}

export type ResourceUnit = 'millicores' | 'bytes' | 'count';

export function unitOf(resource: string): ResourceUnit {
  if (resource === 'cpu') return 'millicores';
  if (resource === 'memory' || resource === 'ephemeral-storage' || resource.startsWith('hugepages-')) return 'bytes';
  return 'count';
}

/** The quantity as a whole amount of the resource's unit (cpu `250m` → 250, memory `1Ki` → 1024). */
export function readAmount(resource: string, text: string): number | undefined {
  const value = parseQuantity(text);
  if (value === undefined) return undefined;
  const amount = unitOf(resource) === 'millicores' ? value * 1000 : value;
  // 1e-9 absorbs float noise such as 0.1 * 3 so that it does not round up to a unit more.
  return Math.ceil(amount - 1e-9);
}

/** An amount from readAmount written back as a quantity a person reads: `250m`, `2`, `1.5Gi`, `512Mi`. */
export function formatAmount(resource: string, amount: number): string {
  const unit = unitOf(resource);
  if (unit === 'millicores') return amount % 1000 === 0 ? String(amount / 1000) : `${amount}m`;
  if (unit === 'count') return String(amount);
  const sign = amount < 0 ? '-' : '';
  const size = Math.abs(amount);
  const suffix = (['Ei', 'Pi', 'Ti', 'Gi', 'Mi', 'Ki'] as const).find((name) => size >= BINARY_SUFFIXES[name]!);
  if (!suffix) return `${amount}`;
  return `${sign}${Number((size / BINARY_SUFFIXES[suffix]!).toFixed(2))}${suffix}`;
}
