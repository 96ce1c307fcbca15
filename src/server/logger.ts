/**
 * The service's pino logger: JSON lines, request ids on every request's lines (Fastify
 * binds them), and secrets redacted wherever they might end up in a logged object:
 * authorization and cookie headers, tokens, API keys, passwords.
 */
import { pino, type DestinationStream, type Logger } from 'pino';

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'request.headers.authorization',
  'headers.authorization',
  'authorization',
  'token',
  'tokens',
  'apiKey',
  'password',
  '*.authorization',
  '*.token',
  '*.tokens',
  '*.apiKey',
  '*.api_key',
  '*.password',
  '*.secret',
  'config.auth',
  'config.model.apiKey',
];

export function createLogger(input: { level: string; destination?: DestinationStream }): Logger {
  const options = {
    level: input.level,
    base: { service: 'kubewhy' },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
  return input.destination ? pino(options, input.destination) : pino(options);
}
