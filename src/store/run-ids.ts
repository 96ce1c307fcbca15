/**
 * Run ids: UUIDs of version 7 (RFC 9562), whose first 48 bits are the creation time in
 * milliseconds. They read like any UUID, and they sort by creation: a new run's id lands
 * at the end of the id index instead of at a random page of it, so a storm of new runs
 * writes (and commits) a few pages of that index rather than one page per run.
 */
import { randomFillSync } from 'node:crypto';

const random = Buffer.alloc(10);

export function newRunId(now: Date = new Date()): string {
  randomFillSync(random);
  const time = now.getTime().toString(16).padStart(12, '0').slice(-12);
  const hex = random.toString('hex');
  // Version 7 in the 13th digit; the variant (binary 10) in the top bits of the 17th.
  const variant = ((random[2]! & 0x3f) | 0x80).toString(16).padStart(2, '0');
  return `${time.slice(0, 8)}-${time.slice(8)}-7${hex.slice(0, 3)}-${variant}${hex.slice(6, 8)}-${hex.slice(8, 20)}`;
}
