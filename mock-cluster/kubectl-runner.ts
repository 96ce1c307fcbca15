/**
 * Runs the real kubectl against a mock cluster, for tests: to completion (output and exit
 * code, whatever the code), or in the background (a watch) with a way to wait until its
 * output says something and to stop it.
 */
import { execFile, spawn } from 'node:child_process';

export interface KubectlResult {
  stdout: string;
  stderr: string;
  code: number;
}

export interface KubectlRunner {
  run(...args: string[]): Promise<KubectlResult>;
  /** Starts kubectl and returns its growing output, a wait for text in it, and a stop. */
  start(...args: string[]): {
    output(): string;
    waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
    stop(): void;
  };
}

export function kubectlRunner(options: {
  kubectlPath: string;
  kubeconfigPath: string;
  cacheDir: string;
}): KubectlRunner {
  const base = ['--kubeconfig', options.kubeconfigPath, '--cache-dir', options.cacheDir];
  return {
    run: (...args) =>
      new Promise((resolve) => {
        execFile(options.kubectlPath, [...base, ...args], { timeout: 30_000 }, (error, stdout, stderr) => {
          resolve({ stdout, stderr, code: error ? Number((error as { code?: number }).code ?? 1) : 0 });
        });
      }),
    start(...args) {
      const child = spawn(options.kubectlPath, [...base, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      const waiters = new Set<() => void>();
      const collect = (chunk: Buffer): void => {
        output += chunk.toString('utf8');
        for (const check of waiters) check();
      };
      child.stdout.on('data', collect);
      child.stderr.on('data', collect);
      return {
        output: () => output,
        waitFor: (pattern, timeoutMs = 20_000) =>
          new Promise((resolve, reject) => {
            const timer = setTimeout(() => {
              waiters.delete(check);
              reject(new Error(`kubectl ${args.join(' ')} never printed ${String(pattern)}; it printed:\n${output}`));
            }, timeoutMs);
            const check = (): void => {
              if (!pattern.test(output)) return;
              clearTimeout(timer);
              waiters.delete(check);
              resolve(output);
            };
            waiters.add(check);
            check();
          }),
        stop: () => {
          child.kill();
        },
      };
    },
  };
}
