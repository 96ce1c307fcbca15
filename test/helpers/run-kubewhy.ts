/**
 * `node bin/kubewhy.js ARGS` as a person runs it from the checkout, for CLI tests: its exit
 * code and everything it printed, whether it succeeded or not.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runKubewhy(
  args: string[],
  options: { env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['bin/kubewhy.js', ...args], {
      cwd: ROOT,
      env: options.env,
      timeout: options.timeoutMs ?? 120_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof failure.code === 'number' ? failure.code : 1,
      stdout: failure.stdout ?? '',
      stderr: failure.stderr ?? '',
    };
  }
}
