/**
 * The one error handler and the 404 handler. Every error answer is `{error, message,
 * details?}`: a short code, a message that says what is wrong, and for invalid input the
 * list of problems. Client mistakes get their 4xx; a failing store gets 503 with
 * Retry-After (Alertmanager retries 5xx); anything else is a defect, logged whole with
 * the request id and answered with a short 500. Messages and details can quote the input
 * (a validation error names an unknown key, a 404 its path), so they pass the redactor
 * before they leave.
 */
import type { FastifyError, FastifyReply } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { redactText, redactValue } from '../redact/redactor.ts';
import type { ZodApp } from './route-context.ts';

export interface ErrorBody {
  error: string;
  message: string;
  details?: unknown;
}

/** Sends an error answer in the API's shape, with anything credential-like in it masked. */
export function sendError(reply: FastifyReply, status: number, body: ErrorBody): FastifyReply {
  const safe: ErrorBody = {
    error: body.error,
    message: redactText(body.message),
    ...(body.details !== undefined ? { details: redactValue(body.details) } : {}),
  };
  return reply.code(status).type('application/json; charset=utf-8').send(safe);
}

const CODES_BY_STATUS: Record<number, string> = {
  400: 'bad-request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not-found',
  405: 'method-not-allowed',
  406: 'not-acceptable',
  409: 'conflict',
  411: 'length-required',
  413: 'payload-too-large',
  414: 'uri-too-long',
  415: 'unsupported-media-type',
  431: 'headers-too-large',
};

const MESSAGES_BY_CODE: Record<string, (error: FastifyError, limit: number) => string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: (_error, limit) => `the request body is larger than the limit of ${limit} bytes`,
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => 'unsupported content type: send application/json',
  FST_ERR_CTP_EMPTY_JSON_BODY: () => 'the body is empty but the content type says JSON: send a JSON document',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => 'the Content-Length header does not match the body',
};

export function installErrorHandlers(app: ZodApp, options: { bodyLimitBytes: number }): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (hasZodFastifySchemaValidationErrors(error)) {
      const where = error.validationContext ?? 'request';
      const problems = error.validation.map((issue) => ({
        path: `${where}${issue.instancePath === '/' ? '' : issue.instancePath.replaceAll('/', '.')}`,
        message: issue.message,
      }));
      return sendError(reply, 400, {
        error: 'invalid-request',
        message: `invalid ${where}: ${problems
          .slice(0, 5)
          .map((problem) => `${problem.path}: ${problem.message}`)
          .join('; ')}${problems.length > 5 ? `; and ${problems.length - 5} more` : ''}`,
        details: { problems: problems.slice(0, 100) },
      });
    }
    if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
      return sendError(reply, 400, {
        error: 'malformed-json',
        message: `the body is not valid JSON: ${error.message}`,
      });
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const describe = error.code ? MESSAGES_BY_CODE[error.code] : undefined;
      return sendError(reply, status, {
        error: CODES_BY_STATUS[status] ?? 'bad-request',
        message: describe ? describe(error, request.routeOptions.bodyLimit ?? options.bodyLimitBytes) : error.message,
      });
    }
    if (isStoreError(error)) {
      request.log.error({ err: error }, 'store unavailable');
      reply.header('retry-after', '5');
      return sendError(reply, 503, { error: 'unavailable', message: 'the run store is unavailable; retry shortly' });
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendError(reply, 500, {
      error: 'internal',
      message: `internal error (request ${request.id}); the service log has the details`,
    });
  });

  app.setNotFoundHandler((request, reply) => {
    return sendError(reply, 404, {
      error: 'not-found',
      message: `no route ${request.method} ${request.url.split('?')[0]}`,
    });
  });
}

/** node:sqlite failures (busy, locked, disk full, I/O) carry an `ERR_SQLITE_ERROR` code. */
function isStoreError(error: FastifyError): boolean {
  return error.code === 'ERR_SQLITE_ERROR' || /^SQLITE_|database is locked|disk I\/O/i.test(error.message);
}
