/**
 * Who may call the service, decided once at start from the settings and the tokens:
 * tokens when there are any; without tokens, loopback only and unauthenticated (with a
 * warning); a non-loopback address without tokens is refused unless KUBEWHY_AUTH=off.
 */
import type { Config } from '../config.ts';
import { hasTokens, type AuthSettings, type Scope } from './auth.ts';

/** Who may call: tokens when there are any; otherwise loopback only, or nobody. */
export function decideAuth(
  config: Config,
  tokens: Record<Scope, string[]>,
): { settings: AuthSettings; warning?: string } | { refusal: string } {
  const host = config.server.host;
  if (config.auth.mode === 'off') {
    return {
      settings: { mode: 'off' },
      warning: `authentication is off (KUBEWHY_AUTH=off): anyone who reaches ${host}:${config.server.port} can start runs, read them and approve actions`,
    };
  }
  if (hasTokens(tokens)) return { settings: { mode: 'tokens', tokens } };
  if (isLoopback(host)) {
    return {
      settings: { mode: 'off' },
      warning: `no tokens configured: listening on loopback (${host}) only, without authentication. Set KUBEWHY_TOKENS_DIR or KUBEWHY_TOKEN_INGEST/READ/APPROVE/ACT to serve other addresses`,
    };
  }
  return {
    refusal: `refusing to listen on ${host} without tokens: set KUBEWHY_TOKENS_DIR (files ingest, read, approve, act) or KUBEWHY_TOKEN_INGEST/READ/APPROVE/ACT, listen on 127.0.0.1, or set KUBEWHY_AUTH=off to serve without authentication`,
  };
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}
