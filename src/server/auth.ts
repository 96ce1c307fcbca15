/**
 * Bearer tokens per scope (`ingest`, `read`, `approve`, `act`). A presented token is compared
 * with every configured one in constant time (both sides hashed to 32 bytes, every
 * comparison made), so neither the token nor how much of it matched leaks through timing.
 * No token: 401. A token of another scope: 403. With auth `off` every request passes
 * (the service then listens on loopback only, unless told otherwise; see cli/serve.ts).
 * The token set can be replaced while the service runs (rotation, tokens.ts watches the
 * files): a check sees either the whole old set or the whole new one, never a mix.
 */
import { hash, timingSafeEqual } from 'node:crypto';

/** `act`: starting a run at rung ACT, whose write actions may run once approved. */
export const SCOPES = ['ingest', 'read', 'approve', 'act'] as const;
export type Scope = (typeof SCOPES)[number];

/** Tokens per scope; a scope left out has none. */
export type ScopeTokens = Partial<Record<Scope, readonly string[]>>;

export type AuthSettings = { mode: 'off' } | { mode: 'tokens'; tokens: ScopeTokens };

export type AuthResult =
  | { ok: true; identity: string }
  | { ok: false; status: 401 | 403; error: 'unauthorized' | 'forbidden'; message: string };

export interface Authenticator {
  readonly mode: 'off' | 'tokens';
  check(authorization: string | undefined, scope: Scope): AuthResult;
  /** Swaps the whole token set at once (rotation). With auth `off` it changes nothing: the mode is decided at start. */
  replaceTokens(tokens: ScopeTokens): void;
}

interface KnownToken {
  scope: Scope;
  digest: Buffer;
  /** Names the token in logs and the audit log without revealing it. */
  identity: string;
}

export function createAuthenticator(settings: AuthSettings): Authenticator {
  if (settings.mode === 'off')
    return { mode: 'off', check: () => ({ ok: true, identity: 'anonymous' }), replaceTokens: () => undefined };
  // One array, replaced whole: a check that started on the old set finishes on it.
  let known = digestTokens(settings.tokens);
  return {
    mode: 'tokens',
    check(authorization, scope) {
      const presented = parseBearer(authorization);
      if (presented === undefined) {
        return {
          ok: false,
          status: 401,
          error: 'unauthorized',
          message: `this route needs a bearer token of scope "${scope}": send Authorization: Bearer <token>`,
        };
      }
      const digest = sha256(presented);
      let inScope: KnownToken | undefined;
      let elsewhere = false;
      for (const token of known) {
        const equal = timingSafeEqual(digest, token.digest);
        if (equal && token.scope === scope) inScope = token;
        else if (equal) elsewhere = true;
      }
      if (inScope) return { ok: true, identity: inScope.identity };
      if (elsewhere)
        return { ok: false, status: 403, error: 'forbidden', message: `this token does not have the "${scope}" scope` };
      return { ok: false, status: 401, error: 'unauthorized', message: 'the bearer token is not valid' };
    },
    replaceTokens(tokens) {
      known = digestTokens(tokens);
    },
  };
}

function digestTokens(tokens: ScopeTokens): KnownToken[] {
  return SCOPES.flatMap((scope) =>
    (tokens[scope] ?? []).map((token) => {
      const digest = sha256(token);
      return { scope, digest, identity: `${scope}#${digest.toString('hex').slice(0, 8)}` };
    }),
  );
}

/** True when at least one token is configured. */
export function hasTokens(tokens: ScopeTokens): boolean {
  return SCOPES.some((scope) => (tokens[scope]?.length ?? 0) > 0);
}

function parseBearer(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match?.[1];
}

function sha256(text: string): Buffer {
  return hash('sha256', text, 'buffer');
}
