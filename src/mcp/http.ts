/**
 * The MCP endpoint of `kubewhy serve`: `POST /mcp`, the SDK's Streamable HTTP transport,
 * stateless (no `mcp-session-id`): each POST gets its own server and transport, answered as
 * JSON. Stateless because every request carries its bearer token and is authorised on its
 * own, any replica can answer it, and nothing is kept between requests that a restart would
 * lose (a held write lives in the run store, not in an MCP session). `GET` and `DELETE /mcp`
 * (a server-sent stream, ending a session) have nothing to serve then: 405, after the token.
 *
 * A bearer token of any scope opens the endpoint (none, or an unknown one: 401 with
 * `www-authenticate`); each call then needs its own scope, and a token without it gets a
 * tool result with `isError` naming the scope: `read` for read tools, `ingest` for
 * `diagnose` (it starts a run), `act` for write tools (a hold where ACT is allowed, else a
 * proposal). Every call is audited under the token's identity: on the chain
 * `mcp-<scope>-<hash>` for reads and proposals, in its own run for a hold or a diagnosis.
 * The route is hidden from /openapi.json: it speaks JSON-RPC, not the REST API.
 */
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyReply } from 'fastify';
import { createMetricsObserver } from '../metrics.ts';
import type { AgentDependencies } from '../runs/execute-run.ts';
import { SCOPES, type Authenticator } from '../server/auth.ts';
import { sendError } from '../server/errors.ts';
import type { RouteContext, ZodApp } from '../server/route-context.ts';
import { holdInRun } from './hold-run.ts';
import type { RunEvents } from '../runs/run-events.ts';
import { createMcpServer, DIAGNOSE_WAIT_MS, type DiagnoseAnswer } from './server.ts';
import { createMcpSession } from './session.ts';

export interface McpRouteOptions {
  authenticator: Authenticator;
  agent: AgentDependencies;
  version?: string;
  /** Tells the notifications that a held write waits for a person, as a run parked by the queue does. */
  /** Where a parked run is told (the notifier listens there). */
  events?: RunEvents;
}

export function registerMcpRoutes(app: ZodApp, context: RouteContext, options: McpRouteOptions): void {
  const { authenticator, agent } = options;
  const metricsObserver = createMetricsObserver(
    context.metrics,
    new Set(agent.registry.list().map((tool) => tool.name)),
  );

  /** The token's identity, whatever its scope; undefined for no token or an unknown one. */
  const identify = (authorization: string | undefined): string | undefined => {
    for (const scope of SCOPES) {
      const result = authenticator.check(authorization, scope);
      if (result.ok) return result.identity;
    }
    return undefined;
  };

  const unauthorized = (reply: FastifyReply): FastifyReply => {
    reply.header('www-authenticate', 'Bearer realm="kubewhy"');
    return sendError(reply, 401, {
      error: 'unauthorized',
      message:
        'the MCP endpoint needs a bearer token (read for read tools, ingest for diagnose, act to hold writes): send Authorization: Bearer <token>',
    });
  };

  const diagnose = async (input: { text: string; namespace?: string }): Promise<DiagnoseAnswer> => {
    const submitted = await context.runs.submit({
      trigger: { kind: 'incident', ...input },
      rung: 'OBSERVE',
      source: 'api',
    });
    if (!submitted.ok)
      return {
        runId: '',
        status: 'failed',
        reason: `the run queue is full; try again in ${context.runs.retryAfterSeconds()} s`,
      };
    const run = (await context.runs.waitForEnd(submitted.run.id, DIAGNOSE_WAIT_MS)) ?? submitted.run;
    return {
      runId: run.id,
      status: run.status,
      ...(run.diagnosis ? { diagnosis: run.diagnosis } : {}),
      ...(run.reason ? { reason: run.reason } : {}),
    };
  };

  app.post('/mcp', { schema: { hide: true } }, async (request, reply) => {
    const authorization = request.headers.authorization;
    const identity = identify(authorization);
    if (!identity) return unauthorized(reply);
    request.identity = identity;
    const session = createMcpSession({
      runId: `mcp-${identity.replace('#', '-')}`,
      audit: context.audit,
      registry: agent.registry,
      cluster: agent.cluster,
      policy: agent.policy,
      toolOutputBytes: agent.limits.toolOutputBytes,
      transport: 'http',
      observer: metricsObserver,
    });
    const server = createMcpServer({
      registry: agent.registry,
      session,
      version: options.version ?? 'unknown',
      identity,
      authorize: (scope) =>
        authenticator.check(authorization, scope).ok
          ? undefined
          : `this call needs a token with the "${scope}" scope; this one (${identity}) does not have it. Nothing was run.`,
      diagnose,
      hold: async (held) => {
        const outcome = await holdInRun(
          { store: context.store, audit: context.audit, agent, ...(context.lease ? { lease: context.lease } : {}) },
          held,
        );
        // The run was parked outside the queue: its action's deadline joins the expiry timer.
        if (outcome.held) {
          await context.runs.expireDue();
          const parked = await context.store.get(outcome.runId);
          if (parked) options.events?.emit('parked', { run: parked });
        }
        return outcome;
      },
      whereIsRun: (runId) => `GET /v1/runs/${runId} (its audit: GET /v1/runs/${runId}/audit)`,
      whereIsAudit: (runId) => `GET /v1/runs/${runId}/audit`,
    });
    const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    } catch (error) {
      request.log.error({ err: error }, 'the MCP request failed');
      if (!reply.raw.headersSent) {
        reply.raw
          .writeHead(500, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'internal error' }, id: null }));
      }
    }
    return reply;
  });

  const notAllowed = async (
    request: { headers: { authorization?: string | undefined } },
    reply: FastifyReply,
  ): Promise<FastifyReply> => {
    if (!identify(request.headers.authorization)) return unauthorized(reply);
    return reply
      .code(405)
      .header('allow', 'POST')
      .send({
        jsonrpc: '2.0',
        error: {
          code: -32000,
          message: 'Method not allowed: kubewhy serves MCP statelessly; send each request as a POST to /mcp',
        },
        id: null,
      });
  };
  app.get('/mcp', { schema: { hide: true } }, notAllowed);
  app.delete('/mcp', { schema: { hide: true } }, notAllowed);
}
