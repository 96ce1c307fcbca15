/**
 * Turns whatever the Kubernetes client throws into a `ClusterError` value, and says which
 * failures are worth another attempt. Only the adapter calls these.
 */
import type { ClusterError, ClusterErrorKind } from './cluster.ts';

/** The parts of client-node's `ApiException` this module reads. */
interface HttpFailure {
  code: number;
  body?: unknown;
  headers?: Record<string, string>;
}

function isHttpFailure(error: unknown): error is HttpFailure {
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'number';
}

/** The Status `message` the API server sent, or a short form of the body. */
function readStatusMessage(body: unknown): string | undefined {
  let value = body;
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body);
    } catch {
      return body.trim().slice(0, 300) || undefined;
    }
  }
  if (typeof value === 'object' && value !== null) {
    const message = (value as { message?: unknown }).message;
    if (typeof message === 'string' && message.length > 0) return message;
  }
  return undefined;
}

function kindOfStatus(status: number, message: string): ClusterErrorKind {
  if (status === 404 || status === 410) return status === 404 ? 'not-found' : 'unavailable';
  if (status === 401 || status === 403) return 'forbidden';
  if (status === 409) return 'conflict';
  if (status === 408 || status === 504) return 'timeout';
  // pods/log answers 400 for a previous container that never terminated: that is absence, not a bad request.
  if (status === 400 && /not found/i.test(message)) return 'not-found';
  if (status === 400 || status === 422) return 'invalid-input';
  return 'unavailable';
}

/** The root cause's code for transport errors (`fetch failed` wraps the socket error). */
function readCauseCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

export interface ErrorContext {
  /** What was asked, for the message: e.g. `get Pod staging/checkout-api-…`. */
  operation: string;
  /** The per-request timeout fired. */
  timedOut: boolean;
  /** The caller's signal fired (run deadline or cancellation). */
  cancelled: boolean;
  timeoutMs: number;
}

/** Maps a thrown client error to a value; never throws. */
export function toClusterError(error: unknown, context: ErrorContext): ClusterError {
  if (context.cancelled) {
    return {
      kind: 'timeout',
      message: `${context.operation}: cancelled (the run's deadline passed or it was stopped)`,
    };
  }
  if (context.timedOut) {
    return {
      kind: 'timeout',
      message: `${context.operation}: no answer from the API server within ${context.timeoutMs} ms`,
    };
  }
  if (isHttpFailure(error) && error.code >= 100 && error.code < 600) {
    const message = readStatusMessage(error.body) ?? `HTTP ${error.code}`;
    return { kind: kindOfStatus(error.code, message), status: error.code, message: `${context.operation}: ${message}` };
  }
  const name = error instanceof Error ? error.name : '';
  if (name === 'AbortError' || name === 'TimeoutError') {
    return { kind: 'timeout', message: `${context.operation}: request aborted` };
  }
  if (name === 'RequiredError') {
    return { kind: 'invalid-input', message: `${context.operation}: ${(error as Error).message}` };
  }
  const code = readCauseCode(error);
  const detail = error instanceof Error ? error.message : String(error);
  return { kind: 'unavailable', message: `${context.operation}: API server unreachable (${code ?? detail})` };
}

/** The API server could not dial a node's kubelet (port 10250): the node is lost, and another attempt meets the same dead node. */
function isKubeletUnreachable(message: string): boolean {
  return /dial tcp \S+:10250: /.test(message);
}

/** 429, 5xx and dropped connections are worth retrying for idempotent reads; a kubelet that cannot be dialed is not. */
export function isRetryableError(error: unknown): boolean {
  if (isHttpFailure(error) && error.code >= 100 && error.code < 600) {
    if (isKubeletUnreachable(readStatusMessage(error.body) ?? '')) return false;
    return error.code === 429 || (error.code >= 500 && error.code !== 501);
  }
  const name = error instanceof Error ? error.name : '';
  if (name === 'AbortError' || name === 'TimeoutError' || name === 'RequiredError') return false;
  return true;
}

/** `Retry-After` in milliseconds (seconds or an HTTP date), when the server sent one. */
export function readRetryAfterMs(error: unknown, nowMs: number): number | undefined {
  if (!isHttpFailure(error) || !error.headers) return undefined;
  const value = error.headers['retry-after'];
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}
