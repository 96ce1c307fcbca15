/**
 * The web console, one Fastify plugin: server-rendered pages over the same run service,
 * stores and authenticator as the JSON API, at `/`, `/login`, `/runs/…` and
 * `/console/assets/…`. Its routes stay out of `/openapi.json`; its form parser, security
 * headers and HTML error pages apply to its own routes only (the plugin is encapsulated).
 * It works without JavaScript; console.js only refreshes the runs list.
 */
import type { FastifyError } from 'fastify';
import type { Authenticator } from '../server/auth.ts';
import type { RouteContext, ZodApp } from '../server/route-context.ts';
import { CONSOLE_ASSETS } from './assets.ts';
import { renderErrorPage } from './pages/layout.ts';
import { SECURITY_HEADERS, sendPage } from './respond.ts';
import { registerRunPages } from './run-routes.ts';
import { createSessions } from './session.ts';
import { registerSignInRoutes } from './sign-in-routes.ts';

/** A console form is a token, a reason and a few hidden fields. */
const FORM_BODY_LIMIT_BYTES = 16 * 1024;

export function registerConsole(app: ZodApp, context: RouteContext, options: { authenticator: Authenticator }): void {
  void app.register(async (instance) => {
    const sessions = createSessions(options.authenticator);
    instance.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT_BYTES },
      (_request, body, done) => {
        const fields: Record<string, string> = {};
        // The first value of a repeated field counts.
        for (const [name, value] of new URLSearchParams(body as string))
          if (!Object.hasOwn(fields, name)) fields[name] = value;
        done(null, fields);
      },
    );
    instance.addHook('onRequest', async (_request, reply) => {
      reply.headers(SECURITY_HEADERS);
    });
    instance.setErrorHandler((error: FastifyError, request, reply) => {
      const status =
        error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
      if (status === 500) request.log.error({ err: error }, 'console page failed');
      const message =
        status === 413
          ? 'The form was larger than this console accepts.'
          : status === 415
            ? 'Send the form from the console page.'
            : status === 500
              ? `Something went wrong on our side (request ${request.id}); the service log has the details.`
              : 'The request could not be read.';
      return sendPage(reply, status, renderErrorPage({ title: status === 500 ? 'Error' : 'Bad request', message }));
    });

    instance.get('/console/assets/:name', { schema: { hide: true } }, async (request, reply) => {
      const asset = CONSOLE_ASSETS.get((request.params as { name: string }).name);
      if (!asset)
        return sendPage(reply, 404, renderErrorPage({ title: 'Not found', message: 'There is no such asset.' }));
      if (request.headers['if-none-match'] === asset.etag) return reply.code(304).header('etag', asset.etag).send();
      // Revalidated on each use (ETag): a new version is picked up at once after an upgrade.
      return reply
        .type(asset.contentType)
        .header('etag', asset.etag)
        .header('cache-control', 'no-cache')
        .send(asset.body);
    });
    registerSignInRoutes(instance, sessions);
    registerRunPages(instance, context, sessions);
  });
}
