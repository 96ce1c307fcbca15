/**
 * How the adapter sends one logical request through client-node: a per-attempt timeout
 * joined to the caller's signal, retries by policy, the cluster clock read from every
 * answer's `Date` header, list pages followed through `continue`, and every failure
 * returned as a `ClusterError` value.
 */
import {
  Observable,
  type ConfigurationOptions,
  type ObservableMiddleware,
  type RequestContext,
  type ResponseContext,
} from '@kubernetes/client-node';
import type { ClusterResult, ListOptions, ListResult } from './cluster.ts';
import { isRetryableError, readRetryAfterMs, toClusterError } from './errors.ts';
import type { Page } from './kube-operations.ts';
import { withRetries, type RetryPolicy } from './retry.ts';

const DEFAULT_MAX_ITEMS = 5000;

export interface CallRequest<T> {
  /** What was asked, for error messages: `get Pod shop/cart-1`. */
  operation: string;
  /** `options` carry the attempt's signal and the clock middleware for a generated call; a plain request takes `signal` and reports its headers through `recordHeaders`. */
  invoke: (options: ConfigurationOptions, signal: AbortSignal) => Promise<T>;
  signal: AbortSignal | undefined;
  policy: RetryPolicy;
  /** Overrides the generated client's Content-Type (patch flavours). */
  contentType?: string;
}

export interface RequestRunner {
  /** The cluster's clock: the local clock shifted by the last answer's `Date`. */
  now(): Date;
  /** Reads the cluster's clock from an answer's headers (for requests made without the generated client). */
  recordHeaders(headers: Record<string, string>): void;
  call<T>(request: CallRequest<T>): Promise<ClusterResult<T>>;
  /** Pages through a list until it ends or `maxItems`; a failing later page keeps what was read. */
  listPages<T>(
    operation: string,
    fetchPage: (
      limit: number,
      continueToken: string | undefined,
      options: ConfigurationOptions,
      signal: AbortSignal,
    ) => Promise<Page<T>>,
    listOptions: ListOptions,
  ): Promise<ClusterResult<ListResult<T>>>;
  readPolicy: RetryPolicy;
  /** Writes are sent once: a retried patch or delete could apply twice. */
  writePolicy: RetryPolicy;
}

export function createRequestRunner(settings: {
  timeoutMs: number;
  pageSize: number;
  readPolicy: RetryPolicy;
}): RequestRunner {
  const { timeoutMs, pageSize, readPolicy } = settings;
  const writePolicy: RetryPolicy = { retries: 0, baseDelayMs: 0, maxDelayMs: 0 };
  let clockOffsetMs = 0;

  function recordHeaders(headers: Record<string, string>): void {
    const header = headers['date'];
    const serverMs = header === undefined ? Number.NaN : Date.parse(header);
    if (!Number.isNaN(serverMs)) clockOffsetMs = serverMs - Date.now();
  }

  function requestOptions(signal: AbortSignal, contentType?: string): ConfigurationOptions {
    const middleware: ObservableMiddleware = {
      pre: (request: RequestContext) => {
        request.setSignal(signal);
        if (contentType) request.setHeaderParam('Content-Type', contentType);
        return new Observable(Promise.resolve(request));
      },
      post: (response: ResponseContext) => {
        recordHeaders(response.headers);
        return new Observable(Promise.resolve(response));
      },
    };
    return { middleware: [middleware], middlewareMergeStrategy: 'append' };
  }

  /** One logical call: per-attempt timeout, retries per policy, every failure as a value. */
  async function call<T>(request: CallRequest<T>): Promise<ClusterResult<T>> {
    let timedOut = false;
    try {
      const value = await withRetries({
        policy: request.policy,
        signal: request.signal,
        isRetryable: isRetryableError,
        readRetryAfterMs: (error) => readRetryAfterMs(error, Date.now()),
        attempt: async () => {
          timedOut = false;
          const timeout = AbortSignal.timeout(timeoutMs);
          const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
          try {
            return await request.invoke(requestOptions(signal, request.contentType), signal);
          } catch (error) {
            timedOut = timeout.aborted && !request.signal?.aborted;
            throw error;
          }
        },
      });
      return { ok: true, value };
    } catch (error) {
      const cancelled = request.signal?.aborted ?? false;
      return {
        ok: false,
        error: toClusterError(error, { operation: request.operation, timedOut, cancelled, timeoutMs }),
      };
    }
  }

  async function listPages<T>(
    operation: string,
    fetchPage: (
      limit: number,
      continueToken: string | undefined,
      options: ConfigurationOptions,
      signal: AbortSignal,
    ) => Promise<Page<T>>,
    listOptions: ListOptions,
  ): Promise<ClusterResult<ListResult<T>>> {
    const maxItems = listOptions.maxItems ?? DEFAULT_MAX_ITEMS;
    const items: T[] = [];
    let continueToken: string | undefined;
    for (;;) {
      const limit = Math.max(1, Math.min(pageSize, maxItems - items.length));
      const token = continueToken;
      const page = await call({
        operation,
        invoke: (options, signal) => fetchPage(limit, token, options, signal),
        signal: listOptions.signal,
        policy: readPolicy,
      });
      if (!page.ok) {
        if (items.length === 0) return page;
        return { ok: true, value: { items, incomplete: true, partialError: page.error } };
      }
      items.push(...page.value.items);
      continueToken = page.value.metadata?._continue || undefined;
      const remaining = page.value.metadata?.remainingItemCount;
      if (!continueToken) return { ok: true, value: { items, incomplete: false } };
      if (items.length >= maxItems) {
        return {
          ok: true,
          value: { items, incomplete: true, ...(remaining !== undefined ? { remainingItemCount: remaining } : {}) },
        };
      }
    }
  }

  return { now: () => new Date(Date.now() + clockOffsetMs), recordHeaders, call, listPages, readPolicy, writePolicy };
}
