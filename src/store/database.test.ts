import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const OPEN_AND_WRITE = `
  const { openDatabase } = await import(${JSON.stringify(new URL('./database.ts', import.meta.url).href)});
  const database = openDatabase(process.argv[1]);
  database.exec('CREATE TABLE IF NOT EXISTS probe (id INTEGER PRIMARY KEY)');
  database.prepare('INSERT INTO probe DEFAULT VALUES').run();
  database.close();
`;

test('several processes can open a new database at the same moment (two diagnose runs sharing a data folder)', async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'kubewhy-open-')), 'kubewhy.db');
  const children = Array.from({ length: 10 }, () =>
    spawn(process.execPath, ['--input-type=module', '-e', OPEN_AND_WRITE, path], {
      stdio: ['ignore', 'ignore', 'pipe'],
    }),
  );
  const results = await Promise.all(
    children.map(async (child) => {
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const [code] = (await once(child, 'exit')) as [number | null];
      return { code, stderr };
    }),
  );
  for (const result of results) assert.equal(result.code, 0, result.stderr);
});
