/**
 * Bearer tokens per scope (`ingest`, `read`, `approve`). A presented token is compared
 * with every configured one in constant time (both sides hashed to 32 bytes, every
 * comparison made), so neither the token nor how much of it matched leaks through timing.
 * No token: 401. A token of another scope: 403. With auth `off` every request passes
 * (the service then listens on loopback only, unless told otherwise; see cli/serve.ts).
 */
import { hash, timingSafeEqual } from 'node:crypto';

export const SCOPES = ['ingest', 'read', 'approve'] as const;
export type Scope = (typeof SCOPES)[number];

export type AuthSettings = { mode: 'off' } | { mode: 'tokens'; tokens: Record<Scope, readonly string[]> };

export type AuthResult =
  | { ok: true; identity: string }
  | { ok: false; status: 401 | 403; error: 'unauthorized' | 'forbidden'; message: string };

export interface Authenticator {
  readonly mode: 'off' | 'tokens';
  check(authorization: string | undefined, scope: Scope): AuthResult;
}

interface KnownToken {
  scope: Scope;
  digest: Buffer;
  /** Names the token in logs and the audit log without revealing it. */
  identity: string;
}

export function createAuthenticator(settings: AuthSettings): Authenticator {
  if (settings.mode === 'off') return { mode: 'off', check: () => ({ ok: true, identity: 'anonymous' }) };
  const known: KnownToken[] = SCOPES.flatMap((scope) =>
    settings.tokens[scope].map((token) => {
      const digest = sha256(token);
      return { scope, digest, identity: `${scope}#${digest.toString('hex').slice(0, 8)}` };
    }),
  );
  return {
    mode: 'tokens',
    check(authorization, scope) {
      const presented = parseBearer(authorization);
      if (presented === undefined) {
        return { ok: false, status: 401, error: 'unauthorized', message: `this route needs a bearer token of scope "${scope}": send Authorization: Bearer <token>` };
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
      if (elsewhere) return { ok: false, status: 403, error: 'forbidden', message: `this token does not have the "${scope}" scope` };
      return { ok: false, status: 401, error: 'unauthorized', message: 'the bearer token is not valid' };
    },
  };
}

/** True when at least one token is configured. */
export function hasTokens(tokens: Record<Scope, readonly string[]>): boolean {
  return SCOPES.some((scope) => tokens[scope].length > 0);
}

function parseBearer(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match?.[1];
}

function sha256(text: string): Buffer {
  return hash('sha256', text, 'buffer');
}
