/**
 * Run ids: UUIDs of version 7 (RFC 9562), whose first 48 bits are the creation time in
 * milliseconds. They read like any UUID, and they sort by creation: a new run's id lands
 * at the end of the id index instead of at a random page of it, so a storm of new runs
 * writes (and commits) a few pages of that index rather than one page per run.
 */
import { randomUUID } from 'node:crypto';

export function newRunId(now: Date = new Date()): string {
  const time = now.getTime().toString(16).padStart(12, '0').slice(-12);
  // The random bits come from a version 4 UUID (drawn from Node's pool of random bytes, cheaper than a draw
  // per id): its 12 bits after the version digit, and its last 64 with the variant (binary 10) already set.
  const random = randomUUID();
  return `${time.slice(0, 8)}-${time.slice(8)}-7${random.slice(15, 18)}-${random.slice(19)}`;
}
