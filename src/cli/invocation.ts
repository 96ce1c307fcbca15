/**
 * How to run kubewhy again from where the person is: `kubewhy` when that name on PATH is
 * this very program (an installed package), else `node <path to the entry>` (a checkout),
 * so a command kubewhy prints for copying works when it is pasted.
 */
import { accessSync, constants, realpathSync } from 'node:fs';
import { delimiter, isAbsolute, join, relative } from 'node:path';
import { commandSearchPath } from '../config.ts';

export function commandForm(
  input: { entry?: string | undefined; path?: string | undefined; cwd?: string } = {},
): string {
  const entry = input.entry ?? process.argv[1];
  if (!entry) return 'kubewhy';
  const self = realpathOr(entry);
  for (const directory of (input.path ?? commandSearchPath()).split(delimiter)) {
    if (!directory) continue;
    const candidate = join(directory, 'kubewhy');
    if (isExecutable(candidate) && realpathOr(candidate) === self) return 'kubewhy';
  }
  const shown = relative(input.cwd ?? process.cwd(), entry);
  return `node ${shown && !shown.startsWith('..') && !isAbsolute(shown) ? shown : entry}`;
}

/** Whether this process may execute the file at `path`. */
export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
