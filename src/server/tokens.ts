/**
 * The configured bearer tokens: `KUBEWHY_TOKEN_<SCOPE>` and, in `KUBEWHY_TOKENS_DIR`, one
 * file per scope (`ingest`, `read`, `approve`, `act`) with one token per line (blank lines
 * and `#` comments skipped), as the Helm chart mounts them from a Secret. A missing file is
 * a scope without file tokens; an unreadable directory or a too-short token is an error.
 *
 * `watchTokens` re-reads them when the files change, so tokens rotate without a restart:
 * it compares the files' identity (inode, size, mtime, following symlinks) every poll
 * interval, because kubelet updates a mounted Secret by swapping a `..data` symlink, which
 * `fs.watch` does not reliably report; `reloadNow` (SIGHUP) reads them at once. A reload
 * that fails keeps the tokens in use and reports the error, which names the file.
 */
import { hash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config.ts';
import { SCOPES, hasTokens, type Scope } from './auth.ts';

/** Shorter tokens are guessable; the env settings enforce the same minimum. */
const MIN_TOKEN_LENGTH = 16;

export class TokenFileError extends Error {
  override name = 'TokenFileError';
}

export type TokenSet = Record<Scope, string[]>;

/** Where tokens come from: the environment's, and the files in `tokensDir`. */
export type TokenSources = Pick<Config['auth'], 'tokensDir' | 'tokens'>;

export async function readTokens(settings: TokenSources): Promise<TokenSet> {
  const tokens: TokenSet = { ingest: [], read: [], approve: [], act: [] };
  for (const scope of SCOPES) {
    const fromEnvironment = settings.tokens[scope];
    if (fromEnvironment) tokens[scope].push(fromEnvironment);
    if (!settings.tokensDir) continue;
    tokens[scope].push(...(await readTokenFile(join(settings.tokensDir, scope), scope)));
  }
  return tokens;
}

async function readTokenFile(path: string, scope: Scope): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new TokenFileError(`cannot read the ${scope} tokens at ${path}: ${(error as Error).message}`);
  }
  const lines = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && !line.startsWith('#'));
  for (const [index, line] of lines.entries()) {
    if (line.length < MIN_TOKEN_LENGTH || /\s/.test(line)) {
      throw new TokenFileError(
        `${path}, token ${index + 1}: a token is at least ${MIN_TOKEN_LENGTH} characters without spaces`,
      );
    }
  }
  return lines;
}

export interface TokenWatcher {
  /** Reads the tokens now, changed or not (SIGHUP). Resolves once the reload is done or has failed. */
  reloadNow(): Promise<void>;
  stop(): void;
}

export interface WatchTokensInput {
  settings: TokenSources;
  /** The token set in use, read at start. */
  initial: TokenSet;
  intervalMs: number;
  /** A new, valid set, different from the one in use. */
  onChange(tokens: TokenSet): void;
  /** A reload failed: the tokens in use stay. */
  onError(error: TokenFileError): void;
}

/** Watches `settings.tokensDir`; without one there is nothing to watch, and `reloadNow` re-reads only the environment's tokens. */
export function watchTokens(input: WatchTokensInput): TokenWatcher {
  const { settings } = input;
  let current = fingerprintTokens(input.initial);
  let lastFiles: string | undefined;
  let queue: Promise<void> = Promise.resolve();
  let busy = false;

  const reload = async (): Promise<void> => {
    let tokens: TokenSet;
    try {
      tokens = await readTokens(settings);
    } catch (error) {
      input.onError(error instanceof TokenFileError ? error : new TokenFileError(String(error)));
      return;
    }
    if (!hasTokens(tokens)) {
      // The service started with tokens: none at all is a half-written Secret, not a wish to lock everyone out.
      input.onError(
        new TokenFileError(`no tokens left in ${settings.tokensDir ?? 'the environment'}: keeping the tokens in use`),
      );
      return;
    }
    const next = fingerprintTokens(tokens);
    if (next === current) return;
    current = next;
    input.onChange(tokens);
  };

  /** One check or reload at a time, in the order asked. */
  const serialise = (work: () => Promise<void>): Promise<void> => {
    const next = queue.then(async () => {
      busy = true;
      try {
        await work();
      } finally {
        busy = false;
      }
    });
    queue = next.catch(() => undefined);
    return next;
  };

  const poll = (): Promise<void> => {
    // A slow disk never stacks polls up: one under way is enough.
    if (busy) return queue;
    return serialise(async () => {
      if (!settings.tokensDir) return;
      const files = await describeFiles(settings.tokensDir);
      if (lastFiles === undefined) {
        lastFiles = files;
        return;
      }
      if (files === lastFiles) return;
      lastFiles = files;
      await reload();
    });
  };

  // The first poll records what the files look like now; the tokens in use were read from them.
  void poll();
  const timer = setInterval(() => void poll(), input.intervalMs);
  timer.unref();
  return {
    reloadNow() {
      return serialise(async () => {
        if (settings.tokensDir) lastFiles = await describeFiles(settings.tokensDir);
        await reload();
      });
    },
    stop() {
      clearInterval(timer);
    },
  };
}

/** What the scope files look like now: a change in any of them changes this text. */
async function describeFiles(directory: string): Promise<string> {
  const parts = await Promise.all(
    SCOPES.map(async (scope) => {
      try {
        const info = await stat(join(directory, scope), { bigint: true });
        return `${scope}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
      } catch (error) {
        return `${scope}:${(error as NodeJS.ErrnoException).code ?? 'error'}`;
      }
    }),
  );
  return parts.join(' ');
}

/** Compares sets without keeping a second copy of the tokens around in plain text. */
function fingerprintTokens(tokens: TokenSet): string {
  return hash('sha256', JSON.stringify(SCOPES.map((scope) => [...tokens[scope]].sort())));
}
