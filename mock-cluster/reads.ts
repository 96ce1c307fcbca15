/**
 * Get and list as the API server answers them: label and field selectors, `limit` and
 * `continue` paging in etcd order, and the representation the client asked for in Accept:
 * a Table (`as=Table`), PartialObjectMetadata, or the object / `<Kind>List` itself.
 */
import { parseAccept } from './accept.ts';
import { badRequest } from './api-error.ts';
import { apiVersionOf, type ResourceType } from './resources.ts';
import { parseFieldSelector, parseLabelSelector, SelectorError } from './selectors.ts';
import type { ClusterState } from './state.ts';
import { positionOf } from './store.ts';
import { buildTable, partialObjectMetadata, type IncludeObject } from './table.ts';
import type { JsonRecord, KubeObject } from './types.ts';

export type Representation =
  { as: 'object' } | { as: 'table'; apiVersion: string } | { as: 'metadata'; apiVersion: string };

/** The first representation in Accept that the mock can produce; JSON objects otherwise. */
export function negotiate(accept: string | undefined): Representation {
  for (const { mediaType, parameters } of parseAccept(accept)) {
    if (mediaType !== 'application/json' && mediaType !== '*/*') continue;
    const as = parameters.get('as');
    const group = parameters.get('g');
    const version = parameters.get('v') ?? 'v1';
    if (as === 'Table' && group === 'meta.k8s.io') return { as: 'table', apiVersion: `meta.k8s.io/${version}` };
    if ((as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') && group === 'meta.k8s.io')
      return { as: 'metadata', apiVersion: `meta.k8s.io/${version}` };
    if (!as) return { as: 'object' };
  }
  return { as: 'object' };
}

export interface ListQuery {
  labelSelector?: string | null;
  fieldSelector?: string | null;
  limit?: string | null;
  continue?: string | null;
  includeObject?: string | null;
}

interface ContinueToken {
  rv: string;
  start: string;
}

function decodeContinue(token: string): ContinueToken {
  try {
    const decoded = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown;
    if (typeof decoded === 'object' && decoded !== null && typeof (decoded as ContinueToken).start === 'string')
      return decoded as ContinueToken;
  } catch {
    // falls through to the error below
  }
  throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
}

function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify(token), 'utf8').toString('base64url');
}

export interface ListResult {
  items: KubeObject[];
  metadata: JsonRecord;
}

export function listObjects(
  state: ClusterState,
  type: ResourceType,
  namespace: string | undefined,
  query: ListQuery,
): ListResult {
  let labels;
  let fields;
  try {
    labels = parseLabelSelector(query.labelSelector);
    fields = parseFieldSelector(query.fieldSelector, type.kind);
  } catch (error) {
    if (error instanceof SelectorError) throw badRequest(error.message);
    throw error;
  }
  const limit = query.limit ? Number(query.limit) : 0;
  if (!Number.isInteger(limit) || limit < 0) throw badRequest(`invalid limit: ${query.limit}`);
  const token = query.continue ? decodeContinue(query.continue) : undefined;
  const resourceVersion = token?.rv ?? state.store.currentResourceVersion();
  const candidates = state.store.listAfter(type, namespace, token?.start);
  const matching = candidates.filter((object) => labels(object.metadata.labels) && fields(object));
  const metadata: JsonRecord = { resourceVersion };
  if (limit > 0 && matching.length > limit) {
    const page = matching.slice(0, limit);
    const last = page[page.length - 1];
    if (last) metadata['continue'] = encodeContinue({ rv: resourceVersion, start: positionOf(last) });
    if (!query.labelSelector && !query.fieldSelector) metadata['remainingItemCount'] = matching.length - limit;
    return { items: page, metadata };
  }
  return { items: matching, metadata };
}

function includeObjectOf(value: string | null | undefined): IncludeObject {
  return value === 'None' || value === 'Object' ? value : 'Metadata';
}

/** The body of a list response in the negotiated representation. */
export function renderList(
  state: ClusterState,
  type: ResourceType,
  result: ListResult,
  representation: Representation,
  query: ListQuery,
): JsonRecord {
  if (representation.as === 'table') {
    return buildTable({
      kind: type.kind,
      objects: result.items,
      now: state.now(),
      includeObject: includeObjectOf(query.includeObject),
      apiVersion: representation.apiVersion,
      listMeta: result.metadata,
    });
  }
  if (representation.as === 'metadata') {
    return {
      kind: 'PartialObjectMetadataList',
      apiVersion: representation.apiVersion,
      metadata: result.metadata,
      items: result.items.map(partialObjectMetadata),
    };
  }
  return { kind: `${type.kind}List`, apiVersion: apiVersionOf(type), metadata: result.metadata, items: result.items };
}

/** The body of a single-object response in the negotiated representation. */
export function renderObject(
  state: ClusterState,
  type: ResourceType,
  object: KubeObject,
  representation: Representation,
  includeObject?: string | null,
): JsonRecord {
  if (representation.as === 'table') {
    return buildTable({
      kind: type.kind,
      objects: [object],
      now: state.now(),
      includeObject: includeObjectOf(includeObject),
      apiVersion: representation.apiVersion,
      listMeta: { resourceVersion: object.metadata.resourceVersion },
    });
  }
  if (representation.as === 'metadata')
    return { ...partialObjectMetadata(object), apiVersion: representation.apiVersion };
  return object;
}
