/**
 * A duration as kubectl's `--since` takes it: `90s`, `30m`, `2h`, `1d`, or several units
 * together (`1h30m`). Answers milliseconds; anything else is a `CaptureError`.
 */
import { CaptureError } from './capture-error.ts';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseDuration(text: string): number {
  const parts = [...text.trim().matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)];
  const consumed = parts.map((part) => part[0]).join('');
  if (parts.length === 0 || consumed !== text.trim())
    throw new CaptureError(`--since expects a duration such as 90s, 30m, 2h or 1d, got "${text}"`);
  return parts.reduce((total, part) => total + Number(part[1]) * (UNITS[part[2] ?? 's'] ?? 0), 0);
}
