/**
 * The primitives the background generator builds clusters from: a clock that turns "3d4h
 * ago" into RFC 3339, stable names and ids derived from a seed, and resource arithmetic for
 * quota usage. Everything is deterministic: the same definition always writes the same YAML.
 */
import { createHash } from 'node:crypto';
import { stableUid } from '../../complete-objects.ts';

const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

export function sha(seed: string): string {
  return createHash('sha256').update(seed).digest('hex');
}

/** `length` characters of the alphabet controllers use for generated names. */
export function safeSuffix(seed: string, length: number): string {
  const digest = sha(seed);
  let text = '';
  for (let index = 0; index < length; index++) text += SAFE_ALPHABET[parseInt(digest.slice(index * 2, index * 2 + 2), 16) % SAFE_ALPHABET.length];
  return text;
}

export function uidFor(seed: string): string {
  return stableUid(seed);
}

/** `3d4h`, `25m`, `90s`, `2h30m` in milliseconds. */
export function parseAgo(spec: string): number {
  const units: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 };
  let total = 0;
  for (const [, amount, unit] of spec.matchAll(/(\d+)([dhms])/g)) total += Number(amount) * (units[unit ?? 's'] ?? 0);
  return total;
}

export class Clock {
  readonly now: number;

  constructor(now: string) {
    this.now = Date.parse(now);
  }

  /** The time `spec` before now, with second precision. */
  ago(spec: string): string {
    return new Date(Math.floor((this.now - parseAgo(spec)) / 1000) * 1000).toISOString().replace('.000Z', 'Z');
  }

  /** The time `spec` before now, with millisecond precision, for log lines. */
  logAgo(spec: string, extraMs = 0): string {
    return new Date(this.now - parseAgo(spec) + extraMs).toISOString();
  }
}

/** A quantity of cpu in millicores or of memory in MiB (the units the generator writes). */
export function parseResource(resource: 'cpu' | 'memory', value: string): number {
  if (resource === 'cpu') return value.endsWith('m') ? Number(value.slice(0, -1)) : Number(value) * 1000;
  const match = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi)?$/.exec(value);
  const amount = Number(match?.[1] ?? 0);
  return match?.[2] === 'Gi' ? amount * 1024 : match?.[2] === 'Ki' ? amount / 1024 : amount;
}

/** As the API server prints a quota's `used`: `1250m`, `3`, `1536Mi`, `2Gi`. */
export function formatResource(resource: 'cpu' | 'memory', amount: number): string {
  if (resource === 'cpu') return amount % 1000 === 0 ? String(amount / 1000) : `${Math.round(amount)}m`;
  return amount % 1024 === 0 && amount > 0 ? `${amount / 1024}Gi` : `${Math.round(amount)}Mi`;
}

export function imageRepository(image: string): string {
  const at = image.indexOf('@');
  if (at >= 0) return image.slice(0, at);
  const colon = image.lastIndexOf(':');
  return colon > image.lastIndexOf('/') ? image.slice(0, colon) : image;
}

/** The image ID the kubelet reports: the image's repository at a digest. */
export function imageId(image: string): string {
  const repository = imageRepository(image);
  const qualified = repository.includes('.') && repository.includes('/') ? repository : `docker.io/${repository.includes('/') ? repository : `library/${repository}`}`;
  return `${qualified}@sha256:${sha(`digest/${image}`)}`;
}
