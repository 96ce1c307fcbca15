/**
 * The Anthropic SDK's messages in the service's pino log, never on stdout or stderr.
 * The client takes a `logger` (error, warn, info, debug) and a `logLevel`; it prints a
 * deprecated model's warning with `console.warn` instead, at the start of a request,
 * so that one is caught around the request's synchronous start.
 */
import type { ClientOptions } from '@anthropic-ai/sdk';
import type { Logger } from 'pino';

type SdkLogger = NonNullable<ClientOptions['logger']>;
type SdkLogLevel = NonNullable<ClientOptions['logLevel']>;

/** Lines from the SDK carry `component: anthropic-sdk`. */
export function sdkLoggerFor(logger: Logger): SdkLogger {
  const child = logger.child({ component: 'anthropic-sdk' });
  const write =
    (level: 'error' | 'warn' | 'info' | 'debug') =>
    (message: string, ...rest: unknown[]): void => {
      if (rest.length === 0) child[level](message);
      else child[level]({ details: rest.map(describeDetail) }, message);
    };
  return { error: write('error'), warn: write('warn'), info: write('info'), debug: write('debug') };
}

/**
 * The SDK's level for the service's level. The SDK's debug lines hold whole request
 * bodies (cluster data the model read), so it logs at most `info`, even when the
 * service logs debug.
 */
export function sdkLogLevelFor(level: string): SdkLogLevel {
  switch (level) {
    case 'trace':
    case 'debug':
      return 'info';
    case 'info':
    case 'warn':
      return 'warn';
    case 'error':
    case 'fatal':
      return 'error';
    default:
      return 'off';
  }
}

/**
 * Runs `work` (synchronous: the start of an SDK request) with `console.warn` sent to
 * `warn`. Nothing else can run while it does, so no other module's warnings are taken.
 */
export function withConsoleWarningsTo<T>(warn: (message: string) => void, work: () => T): T {
  const original = console.warn;
  console.warn = (...parts: unknown[]): void =>
    warn(parts.map((part) => (typeof part === 'string' ? part : describeDetail(part))).join(' '));
  try {
    return work();
  } finally {
    console.warn = original;
  }
}

function describeDetail(detail: unknown): unknown {
  if (detail instanceof Error) return `${detail.name}: ${detail.message}`;
  return detail;
}
