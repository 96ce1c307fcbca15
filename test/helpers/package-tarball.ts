/**
 * The kubewhy package as `npm pack` makes it, for the tests that install it or build the
 * image from it. npm packs a copy of the checkout (its node_modules linked, not copied), so
 * the real `prepack` build and `files` list run, while the checkout's own dist/ is never
 * rebuilt under another test that runs at the same time. Of the scenarios, only the demo
 * one is copied: it is the only one the package ships.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, readdir, symlink } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { repositoryRoot } from '../fixtures/helm-support/helm.ts';

export { repositoryRoot };

export interface ProgramResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a program in a folder; resolves with its exit code and output, whatever the code. */
export function runProgram(
  file: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<ProgramResult> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      {
        cwd: options.cwd,
        env: options.env ?? process.env,
        timeout: options.timeoutMs ?? 180_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') {
          reject(new Error(`${file} ${args.join(' ')} did not run: ${error.message}\n${stderr}`));
          return;
        }
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      },
    );
  });
}

/** The environment for npm and the installed CLI: this test's Node first on PATH. */
export function environmentWithThisNode(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const nodeDirectory = process.execPath.slice(0, process.execPath.lastIndexOf(sep));
  return {
    ...process.env,
    PATH: `${nodeDirectory}:${process.env.PATH ?? ''}`,
    npm_config_update_notifier: 'false',
    ...extra,
  };
}

/** What the checkout has that no package needs and that is large or never read by the build. */
const NOT_COPIED = new Set(['.git', 'node_modules', 'dist', 'data', '.tools', 'coverage', '.kubewhy']);
const DEMO_SCENARIO = join('mock-cluster', 'scenarios', 'checkout-secret-rotation');
const SCENARIOS = join('mock-cluster', 'scenarios');

function isCopied(path: string): boolean {
  const inside = relative(repositoryRoot, path);
  if (inside === '') return true;
  if (NOT_COPIED.has(inside.split(sep)[0] ?? '')) return false;
  if (inside.startsWith(`${SCENARIOS}${sep}`))
    return inside === DEMO_SCENARIO || inside.startsWith(`${DEMO_SCENARIO}${sep}`);
  return true;
}

/** Packs kubewhy into `directory` (build included) and returns the tarball's path. */
export async function packPackage(directory: string): Promise<string> {
  const source = join(directory, 'source');
  await cp(repositoryRoot, source, { recursive: true, filter: isCopied });
  await symlink(join(repositoryRoot, 'node_modules'), join(source, 'node_modules'), 'dir');
  const destination = join(directory, 'packed');
  await mkdir(destination, { recursive: true });
  const packed = await runProgram('npm', ['pack', '--silent', '--pack-destination', destination], {
    cwd: source,
    env: environmentWithThisNode(),
    timeoutMs: 240_000,
  });
  if (packed.code !== 0) throw new Error(`npm pack failed (${packed.code}):\n${packed.stdout}${packed.stderr}`);
  const [tarball] = (await readdir(destination)).filter((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack wrote no tarball:\n${packed.stdout}${packed.stderr}`);
  return join(destination, tarball);
}

/** The paths inside a tarball, without the leading `package/`. */
export async function listTarball(tarball: string): Promise<string[]> {
  const listed = await runProgram('tar', ['-tzf', tarball], { cwd: repositoryRoot });
  if (listed.code !== 0) throw new Error(`tar -tzf ${tarball} failed: ${listed.stderr}`);
  return listed.stdout
    .split('\n')
    .filter(Boolean)
    .map((path) => path.replace(/^package\//, ''));
}
