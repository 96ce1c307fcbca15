/**
 * The service's pino logger: JSON lines, request ids on every request's lines (Fastify
 * binds them), and secrets kept out of every line: authorization and cookie headers,
 * tokens, API keys and passwords by their path, and, everywhere else, log messages and
 * logged objects' strings (errors included) through the redactor. Most lines hold nothing
 * that could be a secret; a cheap pre-check lets them through untouched.
 */
import { pino, stdSerializers, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { isWeakSecretName } from './redact/names.ts';
import { isSensitiveName, mayHoldSecret, redactNamedValue, redactText, redactValue } from './redact/redactor.ts';

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

function redactLogString(text: string): string {
  return mayHoldSecret(text) ? redactText(text) : text;
}

/** Whether each logged key names a credential, remembered: a service logs the same few dozen keys all day. */
const SECRET_KEYS = new Map<string, boolean>();

function namesSecret(key: string): boolean {
  let known = SECRET_KEYS.get(key);
  if (known === undefined) {
    known = isSensitiveName(key) || isWeakSecretName(key);
    if (SECRET_KEYS.size >= 2000) SECRET_KEYS.clear();
    SECRET_KEYS.set(key, known);
  }
  return known;
}

/** A string under a key: masked whole when the key names a credential, else read as text. */
function redactLogField(key: string, value: string): string {
  return namesSecret(key) ? redactNamedValue(key, value) : redactLogString(value);
}

/** An error with its message, stack and own fields redacted, still an error to pino's serializer. */
function redactError(error: Error): Error {
  const serialized = redactValue(stdSerializers.err(error)) as unknown as Record<string, unknown>;
  const copy = Object.create(Object.getPrototypeOf(error) as object) as Error;
  for (const [key, value] of Object.entries(serialized)) {
    if (key !== 'type')
      Object.defineProperty(copy, key, {
        value,
        enumerable: key !== 'message' && key !== 'stack',
        writable: true,
        configurable: true,
      });
  }
  return copy;
}

/** A logged value with its strings redacted; errors keep their type. Depth is bounded: a log line is not a place for deep data. */
function redactLogValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactLogString(value);
  if (value instanceof Error) return redactError(value);
  if (value === null || typeof value !== 'object' || depth > 6) return value;
  if (Array.isArray(value)) return value.map((item) => redactLogValue(item, depth + 1));
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value))
    copy[key] = typeof entry === 'string' ? redactLogField(key, entry) : redactLogValue(entry, depth + 1);
  return copy;
}

interface LoggedRequest {
  method?: string;
  url?: string;
  headers?: Record<string, unknown>;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/** Fastify's request serializer, with the URL redacted (`?token=`, `?sig=` in a query string). */
function serializeRequest(request: LoggedRequest): Record<string, unknown> {
  return {
    method: request.method,
    url: typeof request.url === 'string' ? redactLogString(request.url) : request.url,
    version: request.headers?.['accept-version'],
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

export function createLogger(input: { level: string; destination?: DestinationStream }): Logger {
  const options: LoggerOptions = {
    level: input.level,
    base: { service: 'kubewhy' },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: {
      req: serializeRequest,
      err: (error: Error) => redactValue(stdSerializers.err(error)),
    },
    formatters: {
      log: (object) => redactLogValue(object, 0) as Record<string, unknown>,
    },
    hooks: {
      logMethod(args, method) {
        const [first, ...rest] = args as unknown[];
        // `log.error(error)` alone makes the error's message the line's message: redact that one too.
        if (first instanceof Error && typeof rest[0] !== 'string')
          return method.apply(this, [first, redactLogString(first.message)] as never);
        const redacted = [first, ...rest].map((argument) =>
          typeof argument === 'string' ? redactLogString(argument) : argument,
        );
        return method.apply(this, redacted as never);
      },
    },
  };
  return input.destination ? pino(options, input.destination) : pino(options);
}
