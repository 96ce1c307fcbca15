/**
 * What every route module receives: the app typed for the zod provider, and the
 * service's parts it may use. Route modules never build their own dependencies.
 */
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AuditStore } from '../audit/audit-store.ts';
import type { Metrics } from '../metrics.ts';
import type { RunService } from '../runs/run-service.ts';
import type { RunStore } from '../store/ports.ts';
import type { Scope } from './auth.ts';

export type ZodApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;

export interface RouteContext {
  runs: RunService;
  store: RunStore;
  audit: AuditStore;
  metrics: Metrics;
  /** Whether the request's credentials also carry `scope` (always true with auth off). */
  hasScope(authorization: string | undefined, scope: Scope): boolean;
  /** Readiness of the cluster, cached briefly by the caller. */
  checkCluster(): Promise<{ ok: boolean; message?: string }>;
  /** Replicas sharing a database: the lease a run claimed outside the queue takes (an MCP client's held write). */
  lease?: { owner: string; ms: number };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The token scope a route needs; routes without one are open (health, metrics, the OpenAPI document). */
    scope?: Scope;
  }
  interface FastifyRequest {
    /** Who the request's token names (`<scope>#<first 8 hex of its sha256>`; no `token:` in it, which the audit redactor would mask), or `anonymous` without auth. */
    identity: string;
    /** What the route did, logged on the request's one `request completed` line (app.ts). */
    logSummary: Record<string, unknown> | undefined;
  }
}

/** The `security` entry of a route's OpenAPI operation. */
export const BEARER = [{ bearer: [] }];
