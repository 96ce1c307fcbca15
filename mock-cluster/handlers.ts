/**
 * The verbs on a resource path: list / get / create / update / patch / delete /
 * deletecollection, watch (watch.ts), and the `status`, `scale`, `log` and `eviction`
 * subresources. Everything else about a
 * request (faults, the clock, discovery) is server.ts's.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { badRequest, methodNotAllowed, notFound, notFoundPath, unsupportedMediaType } from './api-error.ts';
import { issueServiceAccountToken } from './authentication.ts';
import { unreachableKubelet } from './kubelet.ts';
import { chooseContainer, readPodLog } from './logs.ts';
import { decodeProtobufObject, ProtobufError } from './protobuf.ts';
import type { PodShape } from './pod-status.ts';
import { listObjects, negotiate, renderList, renderObject } from './reads.ts';
import type { ResourceType } from './resources.ts';
import type { Route } from './router.ts';
import type { ClusterState } from './state.ts';
import type { JsonRecord, KubeObject } from './types.ts';
import { isRecord } from './types.ts';
import { prepareWatch } from './watch.ts';
import {
  createObject,
  decodePatchBody,
  deleteObject,
  patchObject,
  patchTypeOf,
  scaleOf,
  updateObject,
  writeScale,
  type DeleteOptions,
} from './writes.ts';

export interface ApiRequest {
  method: string;
  url: URL;
  accept: string | undefined;
  contentType: string | undefined;
  readBody(): Promise<Buffer>;
}

/** A JSON body, a text body, or a stream the server hands the response to (a watch). */
export type ApiResponse =
  | { status: number; body: JsonRecord }
  | { status: number; text: string }
  | { status: number; stream: (request: IncomingMessage, response: ServerResponse) => void };

type ResourceRoute = Extract<Route, { route: 'resource' }>;

function isTrue(value: string | null): boolean {
  return value === 'true' || value === '1';
}

function isDryRun(url: URL, body?: unknown): boolean {
  if (url.searchParams.getAll('dryRun').includes('All')) return true;
  return isRecord(body) && Array.isArray(body['dryRun']) && body['dryRun'].includes('All');
}

/** The body as JSON (or YAML, or a protobuf the mock can decode); undefined when empty. */
export async function readJsonBody(request: Pick<ApiRequest, 'contentType' | 'readBody'>): Promise<unknown> {
  const body = await request.readBody();
  const mediaType = (request.contentType ?? 'application/json').split(';')[0]?.trim() ?? '';
  if (mediaType === 'application/vnd.kubernetes.protobuf' && body.length > 0) {
    try {
      return decodeProtobufObject(body);
    } catch (error) {
      if (error instanceof ProtobufError) throw unsupportedMediaType(`${mediaType} (${error.message})`);
      throw error;
    }
  }
  const raw = body.toString('utf8');
  if (raw.trim() === '') return undefined;
  if (mediaType.includes('protobuf') || mediaType.includes('cbor')) throw unsupportedMediaType(mediaType);
  try {
    return mediaType.includes('yaml') ? parseYaml(raw) : JSON.parse(raw);
  } catch (error) {
    throw badRequest(`error decoding body: ${(error as Error).message}`);
  }
}

/** A POST to a resource nobody has declared: the object's own apiVersion and kind declare it (as a CRD would). */
function learnType(state: ClusterState, route: ResourceRoute, body: unknown): ResourceType | undefined {
  if (!isRecord(body) || typeof body['kind'] !== 'string' || typeof body['apiVersion'] !== 'string') return undefined;
  const apiVersion = route.group ? `${route.group}/${route.version}` : route.version;
  if (body['apiVersion'] !== apiVersion) return undefined;
  const kind = body['kind'];
  return state.registry.register({
    group: route.group,
    version: route.version,
    kind,
    plural: route.plural,
    singular: kind.toLowerCase(),
    namespaced: route.namespace !== undefined,
    subresources: [],
  });
}

function listQuery(url: URL): Parameters<typeof listObjects>[3] {
  const parameters = url.searchParams;
  return {
    labelSelector: parameters.get('labelSelector'),
    fieldSelector: parameters.get('fieldSelector'),
    limit: parameters.get('limit'),
    continue: parameters.get('continue'),
    includeObject: parameters.get('includeObject'),
  };
}

function numberParameter(url: URL, name: string): number | undefined {
  const value = url.searchParams.get(name);
  if (value === null || value === '') return undefined;
  const number = Number(value);
  if (!Number.isFinite(number)) throw badRequest(`${name}: invalid value "${value}"`);
  return number;
}

async function handleSubresource(
  state: ClusterState,
  type: ResourceType,
  route: ResourceRoute & { name: string; subresource: string },
  request: ApiRequest,
): Promise<ApiResponse> {
  const target = { namespace: route.namespace, name: route.name };
  const { method, url } = request;
  if (!type.subresources?.includes(route.subresource)) throw notFoundPath();
  const existing = (): KubeObject => {
    const object = state.store.get(type, route.namespace, route.name);
    if (!object) throw notFound(type, route.name);
    return object;
  };
  switch (route.subresource) {
    case 'status':
      if (method === 'GET') return { status: 200, body: existing() };
      if (method === 'PUT')
        return {
          status: 200,
          body: updateObject(state, type, { ...target, subresource: 'status' }, await readJsonBody(request), {
            dryRun: isDryRun(url),
          }),
        };
      if (method === 'PATCH') {
        const patchType = patchTypeOf(request.contentType);
        return {
          status: 200,
          body: patchObject(
            state,
            type,
            { ...target, subresource: 'status' },
            patchType,
            decodePatchBody(patchType, (await request.readBody()).toString('utf8')),
            { dryRun: isDryRun(url) },
          ),
        };
      }
      throw methodNotAllowed();
    case 'scale': {
      if (method === 'GET') return { status: 200, body: scaleOf(existing()) };
      if (method === 'PUT')
        return {
          status: 200,
          body: writeScale(state, type, target, { body: await readJsonBody(request) }, { dryRun: isDryRun(url) }),
        };
      if (method === 'PATCH') {
        const patchType = patchTypeOf(request.contentType);
        return {
          status: 200,
          body: writeScale(
            state,
            type,
            target,
            { patchType, body: decodePatchBody(patchType, (await request.readBody()).toString('utf8')) },
            { dryRun: isDryRun(url) },
          ),
        };
      }
      throw methodNotAllowed();
    }
    case 'log': {
      if (method !== 'GET') throw methodNotAllowed();
      const pod = existing() as PodShape;
      const container = chooseContainer(pod, url.searchParams.get('container'));
      const unreachable = unreachableKubelet(
        state,
        pod,
        `containerLogs/${pod.metadata.namespace ?? ''}/${pod.metadata.name}/${container}`,
      );
      if (unreachable) throw unreachable;
      const tailLines = numberParameter(url, 'tailLines');
      const sinceSeconds = numberParameter(url, 'sinceSeconds');
      const limitBytes = numberParameter(url, 'limitBytes');
      const sinceTime = url.searchParams.get('sinceTime');
      const text = readPodLog({
        pod,
        logs: state.logs,
        now: state.now(),
        query: {
          container,
          previous: isTrue(url.searchParams.get('previous')),
          timestamps: isTrue(url.searchParams.get('timestamps')),
          ...(tailLines !== undefined ? { tailLines } : {}),
          ...(sinceSeconds !== undefined ? { sinceSeconds } : {}),
          ...(limitBytes !== undefined ? { limitBytes } : {}),
          ...(sinceTime ? { sinceTime } : {}),
        },
      });
      return { status: 200, text };
    }
    case 'token': {
      if (method !== 'POST') throw methodNotAllowed();
      const serviceAccount = existing();
      return {
        status: 201,
        body: issueServiceAccountToken(
          state,
          {
            namespace: route.namespace ?? '',
            name: route.name,
            ...(serviceAccount.metadata.uid ? { uid: serviceAccount.metadata.uid } : {}),
          },
          await readJsonBody(request),
        ),
      };
    }
    case 'eviction':
      if (method !== 'POST') throw methodNotAllowed();
      deleteObject(state, type, target, { dryRun: isDryRun(url, await readJsonBody(request)) });
      return { status: 201, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 } };
    default:
      throw methodNotAllowed();
  }
}

function deleteOptions(url: URL, body: unknown): DeleteOptions {
  const options = isRecord(body) ? body : {};
  const preconditions = isRecord(options['preconditions']) ? options['preconditions'] : {};
  const propagationPolicy =
    url.searchParams.get('propagationPolicy') ??
    (typeof options['propagationPolicy'] === 'string' ? options['propagationPolicy'] : undefined);
  return {
    dryRun: isDryRun(url, body),
    ...(propagationPolicy ? { propagationPolicy } : {}),
    preconditions: {
      ...(typeof preconditions['uid'] === 'string' ? { uid: preconditions['uid'] } : {}),
      ...(typeof preconditions['resourceVersion'] === 'string'
        ? { resourceVersion: preconditions['resourceVersion'] }
        : {}),
    },
  };
}

export async function handleResource(
  state: ClusterState,
  route: ResourceRoute,
  request: ApiRequest,
): Promise<ApiResponse> {
  const { method, url } = request;
  const watching = route.watchPath || isTrue(url.searchParams.get('watch'));
  let type = state.registry.lookup(route.group, route.version, route.plural);
  let body: unknown;
  if (!type && method === 'POST' && route.name === undefined) {
    body = await readJsonBody(request);
    type = learnType(state, route, body);
  }
  if (!type) throw notFoundPath();
  if (route.namespace !== undefined && !type.namespaced) throw notFoundPath();
  const namespace = type.namespaced ? route.namespace : undefined;
  const representation = negotiate(request.accept);
  if (watching) {
    if (method !== 'GET' || route.subresource !== undefined) throw methodNotAllowed();
    return {
      status: 200,
      stream: prepareWatch({
        state,
        type,
        namespace,
        ...(route.name !== undefined ? { name: route.name } : {}),
        url,
        representation,
      }),
    };
  }

  if (route.name === undefined) {
    switch (method) {
      case 'GET': {
        const query = listQuery(url);
        return {
          status: 200,
          body: renderList(state, type, listObjects(state, type, namespace, query), representation, query),
        };
      }
      case 'POST': {
        body ??= await readJsonBody(request);
        return { status: 201, body: createObject(state, type, namespace, body, { dryRun: isDryRun(url) }) };
      }
      case 'DELETE': {
        body = await readJsonBody(request);
        const options = deleteOptions(url, body);
        const { items, metadata } = listObjects(state, type, namespace, {
          ...listQuery(url),
          limit: null,
          continue: null,
        });
        for (const item of items)
          deleteObject(state, type, { namespace: item.metadata.namespace, name: item.metadata.name }, options);
        return {
          status: 200,
          body: {
            kind: `${type.kind}List`,
            apiVersion: type.group ? `${type.group}/${type.version}` : type.version,
            metadata,
            items,
          },
        };
      }
      default:
        throw methodNotAllowed();
    }
  }

  const target = { namespace, name: route.name };
  if (route.subresource !== undefined)
    return handleSubresource(state, type, { ...route, name: route.name, subresource: route.subresource }, request);
  switch (method) {
    case 'GET': {
      const object = state.store.get(type, namespace, route.name);
      if (!object) throw notFound(type, route.name);
      return {
        status: 200,
        body: renderObject(state, type, object, representation, url.searchParams.get('includeObject')),
      };
    }
    case 'PUT':
      return {
        status: 200,
        body: updateObject(state, type, target, await readJsonBody(request), { dryRun: isDryRun(url) }),
      };
    case 'PATCH': {
      const patchType = patchTypeOf(request.contentType);
      const existed = state.store.get(type, namespace, route.name) !== undefined;
      const result = patchObject(
        state,
        type,
        target,
        patchType,
        decodePatchBody(patchType, (await request.readBody()).toString('utf8')),
        { dryRun: isDryRun(url) },
      );
      return { status: existed ? 200 : 201, body: result };
    }
    case 'DELETE':
      return { status: 200, body: deleteObject(state, type, target, deleteOptions(url, await readJsonBody(request))) };
    default:
      throw methodNotAllowed();
  }
}
