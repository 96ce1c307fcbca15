import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { acquireDataDirectoryLock, LOCK_FILE, LockHeldError, type LockOwner } from '../src/store/lock.ts';
import { spawnServe, startServiceProcess } from './helpers/service-process.ts';

const BIN = fileURLToPath(new URL('../bin/kubewhy.js', import.meta.url));

async function dataDirectory(t: TestContext): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'kubewhy-lock-'));
  t.after(() => rm(directory, { recursive: true, force: true }));
  return directory;
}

/** A process that is alive until the test ends. */
async function liveProcess(t: TestContext): Promise<number> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  t.after(() => void child.kill('SIGKILL'));
  await once(child, 'spawn');
  return child.pid!;
}

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await once(child, 'exit');
  return child.pid!;
}

function writeLock(directory: string, owner: Partial<LockOwner>, touchedSecondsAgo = 0): void {
  const path = join(directory, LOCK_FILE);
  writeFileSync(
    path,
    JSON.stringify({ hostname: hostname(), startedAt: '2026-12-01T08:00:00.000Z', nonce: 'earlier-owner', ...owner }),
  );
  const touched = new Date(Date.now() - touchedSecondsAgo * 1000);
  utimesSync(path, touched, touched);
}

function readOwner(directory: string): LockOwner {
  return JSON.parse(readFileSync(join(directory, LOCK_FILE), 'utf8')) as LockOwner;
}

test('the lock file names its owner: pid, host name and start time; release removes it', async (t) => {
  const directory = await dataDirectory(t);
  const lock = acquireDataDirectoryLock({ directory });
  const owner = readOwner(directory);
  assert.equal(owner.pid, process.pid);
  assert.equal(owner.hostname, hostname());
  assert.ok(!Number.isNaN(Date.parse(owner.startedAt)));
  lock.release();
  assert.equal(existsSync(join(directory, LOCK_FILE)), false);
  lock.release();
});

test('a lock held by a live process on this host is refused, naming the directory and the pid', async (t) => {
  const directory = await dataDirectory(t);
  const holder = await liveProcess(t);
  writeLock(directory, { pid: holder });
  assert.throws(
    () => acquireDataDirectoryLock({ directory }),
    (error: unknown) => {
      assert.ok(error instanceof LockHeldError);
      assert.match(
        error.message,
        new RegExp(`the data directory ${directory} is in use by kubewhy pid ${holder} on ${hostname()}`),
      );
      return true;
    },
  );
  assert.equal(readOwner(directory).pid, holder, 'the holder keeps its lock');
});

test('a lock whose pid is gone from this host is taken over, with the reason', async (t) => {
  const directory = await dataDirectory(t);
  const gone = await deadPid();
  writeLock(directory, { pid: gone });
  const takeovers: string[] = [];
  const lock = acquireDataDirectoryLock({
    directory,
    onTakeover: (previous, reason) => takeovers.push(`${previous?.pid}: ${reason}`),
  });
  t.after(() => lock.release());
  assert.deepEqual(takeovers, [`${gone}: pid ${gone} is no longer running on ${hostname()}`]);
  assert.equal(readOwner(directory).pid, process.pid);
});

test('a lock naming our own pid is left from an earlier start (a restarted container is pid 1 again)', async (t) => {
  const directory = await dataDirectory(t);
  writeLock(directory, { pid: process.pid });
  const takeovers: string[] = [];
  const lock = acquireDataDirectoryLock({ directory, onTakeover: (_previous, reason) => takeovers.push(reason) });
  t.after(() => lock.release());
  assert.match(takeovers[0] ?? '', /which is this process/);
});

test('a lock from another host is held while it is refreshed, and stale once it is not', async (t) => {
  const directory = await dataDirectory(t);
  writeLock(directory, { pid: 1, hostname: 'kubewhy-5f7d8c9b4-old' }, 10);
  assert.throws(
    () => acquireDataDirectoryLock({ directory, staleAfterMs: 60_000 }),
    /in use by kubewhy pid 1 on kubewhy-5f7d8c9b4-old/,
  );

  writeLock(directory, { pid: 1, hostname: 'kubewhy-5f7d8c9b4-old' }, 300);
  const takeovers: string[] = [];
  const lock = acquireDataDirectoryLock({
    directory,
    staleAfterMs: 60_000,
    onTakeover: (_previous, reason) => takeovers.push(reason),
  });
  t.after(() => lock.release());
  assert.match(takeovers[0] ?? '', /pid 1 on kubewhy-5f7d8c9b4-old has not refreshed it for 300 s/);
});

test('the owner refreshes its lock, and notices when another process took it', async (t) => {
  const directory = await dataDirectory(t);
  let lost: LockOwner | undefined;
  const noticed = new Promise<void>((resolve) => {
    const lock = acquireDataDirectoryLock({
      directory,
      refreshMs: 20,
      onLost: (holder) => {
        lost = holder;
        resolve();
      },
    });
    t.after(() => lock.release());
  });
  writeLock(directory, { pid: 4242, hostname: 'elsewhere', nonce: 'the-new-owner' });
  await noticed;
  assert.equal(lost?.nonce, 'the-new-owner');
  assert.equal(readOwner(directory).nonce, 'the-new-owner', 'release leaves a lock that is not ours');
});

/** `kubewhy serve` run to its exit: code and everything it printed. */
async function serveUntilExit(environment: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const { child, output } = spawnServe(environment);
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  return { code, output: output() };
}

test('a second serve on the same data directory stops at start with exit 2, naming the directory and the pid', async (t) => {
  const directory = await dataDirectory(t);
  const first = await startServiceProcess({ KUBEWHY_DATA_DIR: directory });
  t.after(() => first.kill());
  assert.equal(readOwner(directory).pid, first.child.pid);

  const second = await serveUntilExit({ KUBEWHY_DATA_DIR: directory });
  assert.equal(second.code, 2, second.output);
  assert.match(
    second.output,
    new RegExp(
      `kubewhy serve: the data directory ${directory} is in use by kubewhy pid ${first.child.pid} on ${hostname()}`,
    ),
  );
  assert.doesNotMatch(second.output, /\n\s+at /, 'no stack trace');
  assert.doesNotMatch(second.output, /listening on http/, 'it never listened');

  const verify = spawnSync(process.execPath, [BIN, 'audit', 'verify', '--data-dir', directory], { encoding: 'utf8' });
  assert.equal(verify.status, 0, `audit verify needs no lock: ${verify.stdout}${verify.stderr}`);

  const health = await first.request({ path: '/healthz' });
  assert.equal(health.status, 200, 'the first one goes on serving');
  assert.equal(await first.stop(), 0);
  assert.equal(existsSync(join(directory, LOCK_FILE)), false, 'a clean shutdown removes the lock');
});

test('serve takes over a stale lock with a warning, and releases it on shutdown', async (t) => {
  const directory = await dataDirectory(t);
  const gone = await deadPid();
  writeLock(directory, { pid: gone });
  const service = await startServiceProcess({ KUBEWHY_DATA_DIR: directory });
  t.after(() => service.kill());
  assert.match(
    service.output(),
    new RegExp(`took over a stale lock on the data directory ${directory}: pid ${gone} is no longer running`),
  );
  assert.equal(readOwner(directory).pid, service.child.pid);
  assert.equal(await service.stop(), 0);
  assert.equal(existsSync(join(directory, LOCK_FILE)), false);
});
