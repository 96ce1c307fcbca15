import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { openDatabase } from './database.ts';
import { createWriteBatcher } from './write-batch.ts';

function twoConnections(t: { after(fn: () => void): void }): { mine: DatabaseSync; other: DatabaseSync } {
  const directory = mkdtempSync(join(tmpdir(), 'kubewhy-write-batch-'));
  const mine = openDatabase(join(directory, 'kubewhy.db'));
  const other = openDatabase(join(directory, 'kubewhy.db'));
  mine.exec('CREATE TABLE notes (text TEXT)');
  t.after(() => {
    other.close();
    mine.close();
    rmSync(directory, { recursive: true, force: true });
  });
  return { mine, other };
}

test("a batch waits for another connection's write lock without standing the event loop still, then commits", async (t) => {
  const { mine, other } = twoConnections(t);
  const writes = createWriteBatcher(mine);
  other.exec('BEGIN IMMEDIATE');
  const stored = writes.run(() => ({ result: mine.prepare("INSERT INTO notes VALUES ('kept')").run().changes }));
  // While the other connection holds the lock, timers still fire: the batch is not blocking in SQLite's busy wait.
  let ticks = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      ticks++;
      if (ticks === 5) {
        clearInterval(timer);
        resolve();
      }
    }, 2);
  });
  assert.equal((other.prepare('SELECT count(*) AS n FROM notes').get() as { n: number }).n, 0);
  other.exec('COMMIT');
  assert.equal(await stored, 1);
  assert.equal((other.prepare('SELECT count(*) AS n FROM notes').get() as { n: number }).n, 1);
  // The connection waits for locks as usual again outside the batch.
  assert.equal((mine.prepare('PRAGMA busy_timeout').get() as { timeout: number }).timeout, 5000);
});
