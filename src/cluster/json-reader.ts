/**
 * GETs an API path and answers the body as plain JSON, without client-node's model
 * deserializer (which walks every field of every object, and turns each timestamp into a
 * `Date`: most of the client's time on a list of thousands of pods). Authentication,
 * TLS, proxies and the HTTP library are client-node's own: the request goes through
 * `KubeConfig.applySecurityAuthentication` (tokens, client certificates, exec and auth
 * provider plugins, the in-cluster service account) and the library's fetch, as every
 * generated call does. A non-2xx answer is thrown as client-node's `ApiException`, so
 * errors map and retry exactly as the generated calls' do.
 *
 * client-node makes a new connection pool (undici Agent) for every request of a cluster
 * with TLS settings, so no connection, and no TLS handshake, is ever reused. The reader
 * keeps the pool it was handed for `DISPATCHER_REUSE_MS` and sends through it, then takes
 * the fresh one (closing the old when its requests are done): credentials and certificates
 * that rotate are picked up within that window, as every header still is on each request.
 */
import {
  ApiException,
  HttpMethod,
  IsomorphicFetchHttpLibrary,
  RequestContext,
  type KubeConfig,
} from '@kubernetes/client-node';

export interface JsonRequest {
  path: string;
  query?: Record<string, string>;
  signal: AbortSignal;
  /** Every answer's headers, whatever its status (the adapter reads the cluster's clock from `date`). */
  onHeaders?: (headers: Record<string, string>) => void;
}

export type JsonReader = (request: JsonRequest) => Promise<unknown>;

/** How long one connection pool serves reads before the one client-node made last replaces it. */
const DISPATCHER_REUSE_MS = 30_000;

type Dispatcher = NonNullable<ReturnType<RequestContext['getDispatcher']>>;

export function createJsonReader(config: KubeConfig): JsonReader {
  const http = new IsomorphicFetchHttpLibrary();
  const server = (config.getCurrentCluster()?.server ?? '').replace(/\/+$/, '');
  let pool: { dispatcher: Dispatcher; since: number } | undefined;

  /** The pool to send through: the kept one while it is young, else the fresh one client-node just made. */
  function choosePool(fresh: Dispatcher | undefined): Dispatcher | undefined {
    if (fresh === undefined) return undefined;
    const now = Date.now();
    if (pool && now - pool.since < DISPATCHER_REUSE_MS) {
      // Made for this request only and never used: nothing to close but its object.
      void fresh.close().catch(() => undefined);
      return pool.dispatcher;
    }
    const replaced = pool?.dispatcher;
    pool = { dispatcher: fresh, since: now };
    // close() lets requests already sent through it finish.
    if (replaced) void replaced.close().catch(() => undefined);
    return fresh;
  }

  return async (request) => {
    const context = new RequestContext(`${server}${request.path}`, HttpMethod.GET);
    for (const [name, value] of Object.entries(request.query ?? {})) context.setQueryParam(name, value);
    context.setHeaderParam('Accept', 'application/json');
    await config.applySecurityAuthentication(context);
    const dispatcher = choosePool(context.getDispatcher());
    if (dispatcher) context.setDispatcher(dispatcher);
    context.setSignal(request.signal);
    const response = await http.send(context).toPromise();
    request.onHeaders?.(response.headers);
    const text = await response.body.text();
    if (response.httpStatusCode < 200 || response.httpStatusCode >= 300) {
      throw new ApiException(
        response.httpStatusCode,
        `HTTP ${response.httpStatusCode} from GET ${request.path}`,
        text,
        response.headers,
      );
    }
    return JSON.parse(text) as unknown;
  };
}
