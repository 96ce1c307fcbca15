/**
 * The data directory's lock: one `kubewhy serve` per directory. Two services on one
 * SQLite file would each recover and resume the other's runs. The lock is a file,
 * `kubewhy.lock`, created with O_EXCL and holding the owner's pid, host name and start
 * time; the owner touches it every `refreshMs` and removes it when it stops.
 *
 * A lock left by a process that is gone is stale and taken over (the caller warns):
 * - on this host, when its pid is no longer alive, or is our own pid (a container that
 *   restarted in the same pod runs as the same pid 1);
 * - from any host, when it has not been touched for `staleAfterMs` (a pod that was killed
 *   leaves its lock on the volume, and its host name is never seen again).
 * Read-only commands (`audit verify`, `audit show`) do not take it.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, utimesSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

export const LOCK_FILE = 'kubewhy.lock';

/** What the lock file holds. */
export interface LockOwner {
  pid: number;
  hostname: string;
  startedAt: string;
  /** Tells this owner from an earlier one with the same pid and host. */
  nonce: string;
}

export interface DataDirectoryLock {
  path: string;
  owner: LockOwner;
  /** Removes the lock if it is still ours; safe to call twice. */
  release(): void;
}

export interface AcquireLockInput {
  directory: string;
  /** How often the owner touches the lock; default 15 s. */
  refreshMs?: number;
  /** A lock not touched for this long is stale, from any host; default 2 minutes. */
  staleAfterMs?: number;
  /** A stale lock was taken over: say so. */
  onTakeover?(previous: LockOwner | undefined, reason: string): void;
  /** Another process took the lock while we held it (we were frozen longer than staleAfterMs). */
  onLost?(holder: LockOwner | undefined): void;
  now?: () => Date;
}

export class LockHeldError extends Error {
  override name = 'LockHeldError';
  readonly directory: string;
  readonly holder: LockOwner | undefined;
  constructor(directory: string, holder: LockOwner | undefined) {
    super(describeHeld(directory, holder));
    this.directory = directory;
    this.holder = holder;
  }
}

const DEFAULT_REFRESH_MS = 15_000;
const DEFAULT_STALE_AFTER_MS = 120_000;

export function acquireDataDirectoryLock(input: AcquireLockInput): DataDirectoryLock {
  const now = input.now ?? (() => new Date());
  const refreshMs = input.refreshMs ?? DEFAULT_REFRESH_MS;
  const staleAfterMs = input.staleAfterMs ?? Math.max(DEFAULT_STALE_AFTER_MS, refreshMs * 4);
  mkdirSync(input.directory, { recursive: true });
  const path = join(input.directory, LOCK_FILE);
  const owner: LockOwner = {
    pid: process.pid,
    hostname: hostname(),
    startedAt: now().toISOString(),
    nonce: randomUUID(),
  };

  if (!tryCreate(path, owner)) {
    const existing = readLock(path);
    const staleness = existing && judgeStaleness({ lock: existing, staleAfterMs, now: now() });
    if (!existing || !staleness) throw new LockHeldError(input.directory, existing?.owner);
    // Another starter may have judged it stale too: remove only the very file we judged.
    const again = readLock(path);
    if (again?.identity !== existing.identity) throw new LockHeldError(input.directory, again?.owner);
    unlinkSync(path);
    if (!tryCreate(path, owner)) throw new LockHeldError(input.directory, readLock(path)?.owner);
    input.onTakeover?.(existing.owner, staleness);
  }

  const refresh = (): void => {
    try {
      const current = readLock(path);
      if (current?.owner?.nonce !== owner.nonce) {
        clearInterval(timer);
        input.onLost?.(current?.owner);
        return;
      }
      const time = now();
      utimesSync(path, time, time);
    } catch {
      // A passing I/O error: the next refresh tries again, long before the lock looks stale.
    }
  };
  const timer = setInterval(refresh, refreshMs);
  timer.unref();

  let released = false;
  return {
    path,
    owner,
    release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      if (readLock(path)?.owner?.nonce === owner.nonce) unlinkSync(path);
    },
  };
}

/** The reason a lock is stale, or undefined while its owner may be alive. */
export function judgeStaleness(input: { lock: ExistingLock; staleAfterMs: number; now: Date }): string | undefined {
  const { lock, staleAfterMs, now } = input;
  const owner = lock.owner;
  const age = now.getTime() - lock.touchedAt.getTime();
  if (!owner) {
    // Unreadable: a starter between create and write, or a crash there. Give it time.
    return age > staleAfterMs ? `its content is unreadable and it was last touched ${seconds(age)} ago` : undefined;
  }
  if (owner.hostname === hostname()) {
    if (owner.pid === process.pid) return `it names pid ${owner.pid}, which is this process: left by an earlier start`;
    if (!isAlive(owner.pid)) return `pid ${owner.pid} is no longer running on ${owner.hostname}`;
  }
  if (age > staleAfterMs) return `pid ${owner.pid} on ${owner.hostname} has not refreshed it for ${seconds(age)}`;
  return undefined;
}

export interface ExistingLock {
  owner: LockOwner | undefined;
  touchedAt: Date;
  /** Tells one lock file from another (inode, and the content). */
  identity: string;
}

function readLock(path: string): ExistingLock | undefined {
  let text: string;
  let touchedAt: Date;
  let inode: number;
  try {
    text = readFileSync(path, 'utf8');
    const info = statSync(path);
    touchedAt = info.mtime;
    inode = info.ino;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return { owner: parseOwner(text), touchedAt, identity: `${inode}:${text}` };
}

function parseOwner(text: string): LockOwner | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockOwner>;
    if (
      typeof value.pid !== 'number' ||
      typeof value.hostname !== 'string' ||
      typeof value.startedAt !== 'string' ||
      typeof value.nonce !== 'string'
    )
      return undefined;
    return { pid: value.pid, hostname: value.hostname, startedAt: value.startedAt, nonce: value.nonce };
  } catch {
    return undefined;
  }
}

/** O_CREAT | O_EXCL: false when the file exists. */
function tryCreate(path: string, owner: LockOwner): boolean {
  let descriptor: number;
  try {
    descriptor = openSync(path, 'wx', 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(descriptor, `${JSON.stringify(owner)}\n`);
  } finally {
    closeSync(descriptor);
  }
  return true;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function describeHeld(directory: string, holder: LockOwner | undefined): string {
  const who = holder
    ? `kubewhy pid ${holder.pid} on ${holder.hostname} (since ${holder.startedAt})`
    : 'another kubewhy (its lock file is being written)';
  return `the data directory ${directory} is in use by ${who}: stop it first, or give this one another KUBEWHY_DATA_DIR (lock file ${join(directory, LOCK_FILE)})`;
}

function seconds(milliseconds: number): string {
  return `${Math.round(milliseconds / 1000)} s`;
}
