/** Kubernetes resource quantities (`500m`, `2`, `128Mi`, `1G`, `1e3`) as numbers, and back to short text. */

const SUFFIXES: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  K: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** The quantity's value in base units (cores, bytes, count); NaN when it does not parse. */
export function parseQuantity(value: string | number | undefined): number {
  if (value === undefined) return Number.NaN;
  if (typeof value === 'number') return value;
  const match = /^([+-]?[0-9.]+(?:[eE][+-]?\d+)?)([a-zA-Z]*)$/.exec(value.trim());
  if (!match) return Number.NaN;
  const multiplier = SUFFIXES[match[2] ?? ''];
  return multiplier === undefined ? Number.NaN : Number(match[1]) * multiplier;
}

/** `1.5` cores → `1500m`; bytes → `512Mi`/`3.2Gi`; other resources as plain numbers. */
export function formatQuantity(resource: string, value: number): string {
  if (!Number.isFinite(value)) return '?';
  if (resource === 'cpu' || resource.endsWith('.cpu'))
    return value < 10 ? `${Math.round(value * 1000)}m` : `${Math.round(value * 10) / 10}`;
  if (resource.includes('memory') || resource.includes('storage')) {
    if (value >= 2 ** 30) return `${Math.round((value / 2 ** 30) * 10) / 10}Gi`;
    if (value >= 2 ** 20) return `${Math.round(value / 2 ** 20)}Mi`;
    return `${Math.round(value / 2 ** 10)}Ki`;
  }
  return `${Math.round(value * 100) / 100}`;
}
