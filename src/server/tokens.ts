/**
 * The configured bearer tokens: `KUBEWHY_TOKEN_<SCOPE>` and, in `KUBEWHY_TOKENS_DIR`, one
 * file per scope (`ingest`, `read`, `approve`) with one token per line (blank lines and
 * `#` comments skipped), as the Helm chart mounts them from a Secret. A missing file is a
 * scope without file tokens; an unreadable directory or a too-short token is an error.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config.ts';
import { SCOPES, type Scope } from './auth.ts';

/** Shorter tokens are guessable; the env settings enforce the same minimum. */
const MIN_TOKEN_LENGTH = 16;

export class TokenFileError extends Error {
  override name = 'TokenFileError';
}

export async function readTokens(settings: Config['auth']): Promise<Record<Scope, string[]>> {
  const tokens: Record<Scope, string[]> = { ingest: [], read: [], approve: [] };
  for (const scope of SCOPES) {
    const fromEnvironment = settings.tokens[scope];
    if (fromEnvironment) tokens[scope].push(fromEnvironment);
    if (!settings.tokensDir) continue;
    const path = join(settings.tokensDir, scope);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw new TokenFileError(`cannot read the ${scope} tokens at ${path}: ${(error as Error).message}`);
    }
    const lines = text.split(/\r?\n/).map((line) => line.trim()).filter((line) => line.length > 0 && !line.startsWith('#'));
    for (const [index, line] of lines.entries()) {
      if (line.length < MIN_TOKEN_LENGTH || /\s/.test(line)) {
        throw new TokenFileError(`${path}, token ${index + 1}: a token is at least ${MIN_TOKEN_LENGTH} characters without spaces`);
      }
      tokens[scope].push(line);
    }
  }
  return tokens;
}
