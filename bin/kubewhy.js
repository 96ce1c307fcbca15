#!/usr/bin/env node
// kubewhy's entry. It first checks the Node version, with nothing but what every Node has:
// below 22.12 it says which Node it found and what to do, in one line, and exits 1.
// Which code runs then:
// - a source checkout (src/ beside bin/): the TypeScript sources, whose types Node strips
//   itself (on by default from 22.18; 22.12 to 22.17 need the flag, so re-run with it).
//   A checkout never runs dist/: a build there may be older than the sources beside it.
// - an installed package (no src/ beside bin/): the JavaScript `npm run build` emitted
//   into dist/, so no start pays for stripping types.
// Either way, V8's compiled code is kept on disk between starts (NODE_COMPILE_CACHE, else
// the OS's temporary folder). The cache is an optimisation only: where it cannot be
// written, enableCompileCache reports so instead of throwing, and kubewhy runs without it.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

const REQUIRED = [22, 12];
const isCheckout = existsSync(new URL('../src/', import.meta.url));
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < REQUIRED[0] || (major === REQUIRED[0] && minor < REQUIRED[1])) {
  const advice = isCheckout
    ? 'in this checkout run `source scripts/use-node24.sh` (it puts Node 24 on PATH), or install Node 24 LTS'
    : 'install Node 24 LTS (or any Node >= 22.12) and run kubewhy with it';
  process.stderr.write(
    `kubewhy needs Node >= ${REQUIRED.join('.')} but found ${process.version} (${process.execPath}): ${advice}.\n`,
  );
  process.exit(1);
}

// Imported only now: node:module has no enableCompileCache before Node 22.1.
const { enableCompileCache } = await import('node:module');
enableCompileCache();

if (!isCheckout) {
  await import('../dist/src/main.js');
} else if (process.features.typescript) {
  await import('../src/main.ts');
} else {
  // The child does the work; signals sent to this process (a service manager's SIGTERM,
  // npm's) are passed on, so that stopping kubewhy never leaves the child running.
  const child = spawn(
    process.execPath,
    [
      '--experimental-strip-types',
      '--disable-warning=ExperimentalWarning',
      ...process.execArgv,
      new URL(import.meta.url).pathname,
      ...process.argv.slice(2),
    ],
    { stdio: 'inherit' },
  );
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) =>
    process.exit(code ?? (signal ? 128 + (signal === 'SIGINT' ? 2 : signal === 'SIGHUP' ? 1 : 15) : 1)),
  );
}
