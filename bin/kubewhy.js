#!/usr/bin/env node
// kubewhy runs from its TypeScript sources: Node strips the types itself
// (on by default from 22.18; 22.12 to 22.17 need the flag, so re-run with it).
import { spawnSync } from 'node:child_process';

if (process.features.typescript) {
  await import('../src/main.ts');
} else {
  const result = spawnSync(process.execPath, ['--experimental-strip-types', '--disable-warning=ExperimentalWarning', ...process.execArgv, new URL(import.meta.url).pathname, ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
