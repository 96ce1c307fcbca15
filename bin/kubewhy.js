#!/usr/bin/env node
// kubewhy's entry. Which code runs:
// - a source checkout (src/ beside bin/): the TypeScript sources, whose types Node strips
//   itself (on by default from 22.18; 22.12 to 22.17 need the flag, so re-run with it).
//   A checkout never runs dist/: a build there may be older than the sources beside it.
// - an installed package (no src/ beside bin/): the JavaScript `npm run build` emitted
//   into dist/, so no start pays for stripping types.
// Either way, V8's compiled code is kept on disk between starts (NODE_COMPILE_CACHE, else
// the OS's temporary folder). The cache is an optimisation only: where it cannot be
// written, enableCompileCache reports so instead of throwing, and kubewhy runs without it.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { enableCompileCache } from 'node:module';

enableCompileCache();

if (!existsSync(new URL('../src/', import.meta.url))) {
  await import('../dist/src/main.js');
} else if (process.features.typescript) {
  await import('../src/main.ts');
} else {
  const result = spawnSync(process.execPath, ['--experimental-strip-types', '--disable-warning=ExperimentalWarning', ...process.execArgv, new URL(import.meta.url).pathname, ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
