import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { pollUntil } from './helpers/service-process.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** `npm start` as a newcomer runs it (a process group of its own, as a terminal gives it), stopped the way `signal` says. */
async function startAndStop(stop: (npm: { pid: number }) => void): Promise<{ url: string; output: string }> {
  const home = mkdtempSync(join(tmpdir(), 'kubewhy-npm-start-'));
  const npm = spawn('npm', ['start'], {
    cwd: ROOT,
    detached: true,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: home,
      KUBEWHY_PORT: '0',
      KUBEWHY_DATA_DIR: join(home, 'data'),
      KUBEWHY_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  npm.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  npm.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = once(npm, 'exit');
  try {
    const url = await pollUntil(async () => /listening on (http:\/\/\S+)/.exec(output)?.[1], {
      timeoutMs: 60_000,
      what: `npm start to listen:\n${output}`,
    });
    assert.match(output, /cluster: mock cluster, scenario checkout-secret-rotation/);
    stop({ pid: npm.pid ?? 0 });
    await exited;
    // Nothing of it may keep serving once npm is gone.
    await pollUntil(
      async () =>
        await fetch(`${url}/healthz`).then(
          () => undefined,
          () => true,
        ),
      { timeoutMs: 30_000, what: `the server at ${url} to stop` },
    );
    return { url, output };
  } finally {
    try {
      process.kill(-(npm.pid ?? 0), 'SIGKILL');
    } catch {
      // Already gone, as it should be.
    }
  }
}

test('npm start serves the demo, and SIGTERM to npm stops the server too', async () => {
  const { output } = await startAndStop((npm) => process.kill(npm.pid, 'SIGTERM'));
  assert.doesNotMatch(output, /\n\s+at /);
});

test('npm start stops on Ctrl-C (SIGINT to its process group)', async () => {
  await startAndStop((npm) => process.kill(-npm.pid, 'SIGINT'));
});
