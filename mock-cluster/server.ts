/**
 * The mock cluster: a `node:http` server speaking the Kubernetes API over a loaded
 * scenario's objects (DESIGN.md, "The mock cluster"). The scenario is served moved to the
 * real now (served-clock.ts), and every response carries that clock as its `Date` header.
 * Each request is authenticated (authentication.ts: no credentials is the administrator, a
 * token the mock issued is its service account, `--as` impersonates) and authorized by RBAC
 * (authorization.ts) before it is routed. Faults are
 * applied before routing; `/_mock/faults` (GET, PUT, DELETE) changes them at run time and is
 * itself never faulted nor logged.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError, notFoundPath } from './api-error.ts';
import { stableUid } from './complete-objects.ts';
import {
  acceptedAggregatedVersion,
  aggregatedDiscovery,
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  KUBERNETES_VERSION,
} from './discovery.ts';
import { faultRuleSchema, FaultInjector, type FaultRule } from './faults.ts';
import { generateWorkloads } from './generate.ts';
import { authenticate, impersonated, type UserInfo } from './authentication.ts';
import { attributesOf, authorize } from './authorization.ts';
import { handleResource, readJsonBody, type ApiResponse } from './handlers.ts';
import { writeKubeconfig } from './kubeconfig.ts';
import { loadScenario, type LoadedScenario } from './loader.ts';
import { serveMetrics } from './metrics.ts';
import { openApiGroupVersion, openApiRoot } from './openapi.ts';
import { ResourceRegistry } from './resources.ts';
import { answerSelfReview, isSelfReview } from './reviews.ts';
import { resolveRoute } from './router.ts';
import { servedClock, shiftScenario } from './served-clock.ts';
import { save, type ClusterState } from './state.ts';
import { ObjectStore } from './store.ts';
import type { KubeObject } from './types.ts';

export interface MockClusterOptions {
  scenario: LoadedScenario | string;
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Where to write the kubeconfig; default: a file in a fresh temporary directory. */
  kubeconfigPath?: string;
  generatedPods?: { namespace: string; count: number }[];
  faults?: FaultRule[];
}

export interface MockCluster {
  url: string;
  kubeconfigPath: string;
  scenario: LoadedScenario;
  /** The cluster's clock: the real clock (served-clock.ts). */
  now(): Date;
  /** What was added to every time of the scenario to serve it at the real now. */
  clockShiftMs: number;
  faults: { set(rules: FaultRule[]): void; clear(): void };
  /** Read-only views of the current objects, for tests. */
  get(kind: string, namespace: string | undefined, name: string): KubeObject | undefined;
  list(kind: string, namespace?: string): KubeObject[];
  /** Every API request served, in order (path without the query; the query apart). */
  requestLog: { method: string; path: string; query: string }[];
  /** The body bytes of every API answer, in the order answered, beside the request it answers: what a client had to read. */
  responseLog: { method: string; path: string; query: string; status: number; bytes: number }[];
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 16 * 1024 * 1024;

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES)
        reject(new ApiError({ code: 413, reason: 'RequestEntityTooLarge', message: 'the request body is too large' }));
      else chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/** Writes the answer (or hands the response to its stream); returns the body's size in bytes (0 for a stream). */
function send(
  request: IncomingMessage,
  response: ServerResponse,
  result: ApiResponse,
  headers: Record<string, string> = {},
): number {
  for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
  response.setHeader('Cache-Control', 'no-cache, private');
  if ('stream' in result) {
    result.stream(request, response);
    return 0;
  }
  if ('text' in result) {
    response.writeHead(result.status, { 'Content-Type': 'text/plain' });
    response.end(result.text);
    return Buffer.byteLength(result.text);
  }
  const contentType =
    typeof result.body['apiVersion'] === 'string' &&
    String(result.body['apiVersion']).startsWith('apidiscovery.k8s.io/')
      ? `application/json;g=apidiscovery.k8s.io;v=${String(result.body['apiVersion']).split('/')[1]};as=APIGroupDiscoveryList`
      : 'application/json';
  response.writeHead(result.status, { 'Content-Type': contentType });
  const body = JSON.stringify(result.body);
  response.end(body);
  return Buffer.byteLength(body);
}

function sendError(request: IncomingMessage, response: ServerResponse, error: ApiError): number {
  return send(request, response, { status: error.code, body: error.toStatus() }, error.headers);
}

function buildState(scenario: LoadedScenario, generatedPods: { namespace: string; count: number }[]): ClusterState {
  const registry = new ResourceRegistry();
  const clock = servedClock(Date.parse(scenario.meta.now));
  const { objects, logs } = shiftScenario({
    objects: scenario.objects,
    logs: scenario.logs,
    scenarioNow: Date.parse(scenario.meta.now),
    shiftMs: clock.shiftMs,
  });
  for (const object of objects) if (object.kind === 'CustomResourceDefinition') registry.registerDefinition(object);
  const store = new ObjectStore(registry, objects);
  const scenarioNow = Date.parse(scenario.meta.now) + clock.shiftMs;
  const state: ClusterState = { registry, store, logs, now: clock.now, clockShiftMs: clock.shiftMs };
  const namespaceType = registry.forKind('v1', 'Namespace');
  const nodeType = registry.forKind('v1', 'Node');
  for (const { namespace, count } of generatedPods) {
    if (namespaceType && !store.get(namespaceType, undefined, namespace)) {
      save(state, namespaceType, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: {
          name: namespace,
          uid: stableUid(`generated/Namespace/${namespace}`),
          creationTimestamp: new Date(scenarioNow - 86_400_000).toISOString(),
          labels: { 'kubernetes.io/metadata.name': namespace },
        },
        status: { phase: 'Active' },
      });
    }
    const nodes = nodeType ? store.list(nodeType).map((node) => node.metadata.name) : [];
    for (const object of generateWorkloads({ namespace, count, now: scenarioNow, nodes }))
      save(state, registry.forObject(object), object);
  }
  return state;
}

export async function startMockCluster(options: MockClusterOptions): Promise<MockCluster> {
  const scenario = typeof options.scenario === 'string' ? await loadScenario(options.scenario) : options.scenario;
  const state = buildState(scenario, options.generatedPods ?? []);
  const faults = new FaultInjector();
  faults.set(options.faults ?? []);
  const requestLog: MockCluster['requestLog'] = [];
  const responseLog: MockCluster['responseLog'] = [];
  let serverAddress = '';

  async function route(request: IncomingMessage, url: URL, user: UserInfo): Promise<ApiResponse> {
    const method = request.method ?? 'GET';
    const target = resolveRoute(state.registry, url.pathname);
    authorize(state, user, attributesOf(target, method, url));
    const accept = request.headers.accept;
    const discoveryVersion = acceptedAggregatedVersion(accept);
    switch (target.route) {
      case 'resource':
        if (method === 'POST' && isSelfReview(target.group, target.plural)) {
          return {
            status: 201,
            body: answerSelfReview(state, user, {
              group: target.group,
              version: target.version,
              plural: target.plural,
              body: await readJsonBody({
                contentType: request.headers['content-type'],
                readBody: () => readBody(request),
              }),
            }),
          };
        }
        return handleResource(state, target, {
          method,
          url,
          accept,
          contentType: request.headers['content-type'],
          readBody: () => readBody(request),
        });
      case 'version':
        return { status: 200, body: KUBERNETES_VERSION };
      case 'health':
        return { status: 200, text: 'ok' };
      case 'root':
        return {
          status: 200,
          body: { paths: ['/api', '/api/v1', '/apis', '/healthz', '/livez', '/readyz', '/version'] },
        };
      case 'api-versions':
        return {
          status: 200,
          body: discoveryVersion
            ? aggregatedDiscovery(state.registry, 'api', discoveryVersion)
            : apiVersions(serverAddress),
        };
      case 'group-list':
        return {
          status: 200,
          body: discoveryVersion
            ? aggregatedDiscovery(state.registry, 'apis', discoveryVersion)
            : apiGroupList(state.registry),
        };
      case 'group': {
        const body = apiGroup(state.registry, target.group);
        if (!body) throw notFoundPath();
        return { status: 200, body };
      }
      case 'openapi': {
        const body =
          target.path === 'v3'
            ? openApiRoot(state.registry)
            : target.path.startsWith('v3/')
              ? openApiGroupVersion(state.registry, target.path.slice(3))
              : undefined;
        if (!body) throw notFoundPath();
        return { status: 200, body };
      }
      case 'resource-list': {
        const body = apiResourceList(state.registry, target.group, target.version);
        if (!body) throw notFoundPath();
        return { status: 200, body };
      }
      default:
        throw notFoundPath();
    }
  }

  async function control(request: IncomingMessage, path: string): Promise<ApiResponse> {
    if (path !== 'faults') throw notFoundPath();
    if (request.method === 'GET') return { status: 200, body: { rules: faults.rules() } };
    if (request.method === 'DELETE') {
      faults.clear();
      return { status: 200, body: { rules: [] } };
    }
    if (request.method === 'PUT') {
      let parsed: unknown;
      try {
        parsed = JSON.parse((await readBody(request)).toString('utf8'));
      } catch {
        throw new ApiError({
          code: 400,
          reason: 'BadRequest',
          message: 'expected JSON: an array of fault rules, or {"rules": [...]}',
        });
      }
      const rules = faultRuleSchema
        .array()
        .safeParse(Array.isArray(parsed) ? parsed : (parsed as { rules?: unknown } | null)?.rules);
      if (!rules.success)
        throw new ApiError({
          code: 400,
          reason: 'BadRequest',
          message: rules.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '),
        });
      faults.set(rules.data);
      return { status: 200, body: { rules: faults.rules() } };
    }
    throw new ApiError({ code: 405, reason: 'MethodNotAllowed', message: 'use GET, PUT or DELETE' });
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    response.sendDate = false;
    response.setHeader('Date', new Date(state.now()).toUTCString());
    const url = new URL(request.url ?? '/', 'http://mock');
    // Set once the request is logged as an API request: the control path and /metrics are not.
    let entry: MockCluster['requestLog'][number] | undefined;
    const answered = (status: number, bytes: number): void => {
      if (entry) responseLog.push({ ...entry, status, bytes });
    };
    try {
      if (url.pathname.startsWith('/_mock/')) {
        send(request, response, await control(request, url.pathname.slice('/_mock/'.length)));
        return;
      }
      if (url.pathname === '/metrics') return serveMetrics({ state, method: request.method, response });
      entry = { method: request.method ?? 'GET', path: url.pathname, query: url.search };
      requestLog.push(entry);
      const decision = faults.decide(request.method ?? 'GET', url.pathname);
      if (decision.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, decision.latencyMs));
      const action = decision.action;
      if (action?.fault === 'drop') {
        request.socket.destroy();
        return;
      }
      if (action) {
        const failures: Record<string, ApiError> = {
          throttle: new ApiError({
            code: 429,
            reason: 'TooManyRequests',
            message: 'Too many requests, please try again later.',
            details: { retryAfterSeconds: action.retryAfterSeconds },
            headers: { 'Retry-After': String(action.retryAfterSeconds) },
          }),
          forbidden: new ApiError({
            code: 403,
            reason: 'Forbidden',
            message: `forbidden: User "system:serviceaccount:kubewhy:kubewhy" cannot ${(request.method ?? 'get').toLowerCase()} path "${url.pathname}" (injected fault)`,
            details: {},
          }),
          error: new ApiError({
            code: action.status,
            reason: action.status === 503 ? 'ServiceUnavailable' : 'InternalError',
            message: `Internal error occurred: injected fault (${action.status})`,
            details: { causes: [{ message: 'injected fault' }] },
          }),
        };
        const failure = failures[action.fault];
        if (failure) {
          answered(failure.code, sendError(request, response, failure));
          return;
        }
      }
      const authenticated = authenticate(state, request.headers.authorization);
      const user = impersonated(
        authenticated,
        { user: request.headers['impersonate-user'], groups: request.headers['impersonate-group'] },
        (target) =>
          authorize(state, authenticated, { resourceRequest: true, verb: 'impersonate', group: '', ...target }),
      );
      const result = await route(request, url, user);
      answered(result.status, send(request, response, result));
    } catch (error) {
      const failure =
        error instanceof ApiError
          ? error
          : new ApiError({
              code: 500,
              reason: 'InternalError',
              message: `Internal error occurred: ${(error as Error).message}`,
            });
      answered(failure.code, sendError(request, response, failure));
    }
  }

  const server: Server = createServer((request, response) => {
    void handle(request, response);
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  serverAddress = `${urlHost}:${port}`;
  const url = `http://${serverAddress}`;
  const temporaryDirectory = options.kubeconfigPath ? undefined : await mkdtemp(join(tmpdir(), 'kubewhy-mock-'));
  const kubeconfigPath = options.kubeconfigPath ?? join(temporaryDirectory ?? '', 'kubeconfig');
  await writeKubeconfig(kubeconfigPath, url);

  const typeOfKind = (kind: string) => state.registry.all().find((type) => type.kind === kind);
  return {
    url,
    kubeconfigPath,
    scenario,
    now: () => new Date(state.now()),
    clockShiftMs: state.clockShiftMs,
    faults: { set: (rules) => faults.set(rules), clear: () => faults.clear() },
    get(kind, namespace, name) {
      const type = typeOfKind(kind);
      return type ? state.store.get(type, namespace, name) : undefined;
    },
    list(kind, namespace) {
      const type = typeOfKind(kind);
      return type ? state.store.list(type, namespace) : [];
    },
    requestLog,
    responseLog,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      if (temporaryDirectory) await rm(temporaryDirectory, { recursive: true, force: true });
    },
  };
}
