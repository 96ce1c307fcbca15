/**
 * `kubewhy serve` as a child process, the way an operator runs it: settings through the
 * environment, the URL read from what it prints. For end-to-end tests (Alertmanager,
 * crash and restart).
 */
import { spawn, type ChildProcess, type ChildProcessByStdio } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/kubewhy.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** An HTTP call with a bearer token, answered as JSON. */
  request(input: {
    method?: 'GET' | 'POST';
    path: string;
    token?: string;
    body?: unknown;
  }): Promise<{ status: number; body: unknown; text: string }>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL: no chance to clean up. */
  kill(): Promise<void>;
}

/** Writes a tokens directory as `KUBEWHY_TOKENS_DIR` reads it (one file per scope, a token per line); returns its path. */
export async function writeTokensDir(
  directory: string,
  tokens: Partial<Record<'ingest' | 'read' | 'approve' | 'act', string>>,
): Promise<string> {
  const path = join(directory, 'tokens');
  await mkdir(path, { recursive: true });
  for (const [scope, token] of Object.entries(tokens)) await writeFile(join(path, scope), `${token}\n`);
  return path;
}

/** `kubewhy serve` started with `environment` (port 0, warn logs, the mock cluster unless it says otherwise), everything it prints collected. */
export function spawnServe(environment: Record<string, string>): {
  child: ChildProcessByStdio<null, Readable, Readable>;
  output: () => string;
} {
  const child = spawn(process.execPath, [BIN, 'serve'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      KUBEWHY_PORT: '0',
      KUBEWHY_LOG_LEVEL: 'warn',
      KUBEWHY_CLUSTER: 'mock',
      ...environment,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  return { child, output: () => output };
}

export async function startServiceProcess(environment: Record<string, string>): Promise<ServiceProcess> {
  const { child, output: collected } = spawnServe(environment);
  const exited = once(child, 'exit');

  const url = await new Promise<string>((resolve, reject) => {
    const check = (): void => {
      const match = /listening on (http:\/\/\S+)/.exec(collected());
      if (match?.[1]) {
        child.stdout.off('data', check);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', check);
    void exited.then(([code]) =>
      reject(new Error(`kubewhy serve exited with ${String(code)} before listening:\n${collected()}`)),
    );
  });

  const request: ServiceProcess['request'] = async ({ method = 'GET', path, token, body }) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not JSON (metrics, NDJSON): the text is the body.
    }
    return { status: response.status, body: parsed, text };
  };

  return {
    url,
    child,
    output: collected,
    request,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const [code] = await exited;
      return code as number | null;
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Calls `probe` until it returns a value, yielding between calls; fails after `timeoutMs`. */
export async function pollUntil<T>(
  probe: () => Promise<T | undefined>,
  options: { timeoutMs: number; what: string; intervalMs?: number },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${options.what}`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
  }
}

export interface Daemon {
  child: ChildProcess;
  /** Everything it printed on stdout and stderr so far. */
  output(): string;
  /** SIGTERM, then wait for it to exit; a no-op once it has exited. */
  stop(): Promise<void>;
}

/**
 * Starts a long-running binary (Prometheus, Alertmanager) with its output captured. Should
 * the test process end without stop() (a crash, process.exit), the daemon ends with it.
 */
export function spawnDaemon(binary: string, args: string[]): Daemon {
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = once(child, 'exit');
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  return {
    child,
    output: () => output,
    async stop() {
      process.off('exit', killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}
