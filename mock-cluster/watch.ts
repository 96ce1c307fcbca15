/**
 * `watch=true` (and the `/watch/` path prefix): a stream of JSON watch events, one object per
 * line, as the API server sends them. Without a resourceVersion (or with "0") the stream
 * starts with an ADDED event per matching object; with one, it replays the changes after it
 * (the store keeps the last ones) or answers 410 Expired when they are gone. With
 * `sendInitialEvents=true` the initial events end with a BOOKMARK annotated
 * `k8s.io/initial-events-end`. The stream then follows every change until `timeoutSeconds`
 * passes or the client goes away. Events are in the representation the client asked for: a
 * Table (column definitions in the first event only), PartialObjectMetadata or the object.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, badRequest } from './api-error.ts';
import type { Representation } from './reads.ts';
import { apiVersionOf, storageKey, type ResourceType } from './resources.ts';
import { parseFieldSelector, parseLabelSelector, SelectorError } from './selectors.ts';
import type { ClusterState } from './state.ts';
import type { StoreChange, WatchEventType } from './store.ts';
import { buildTable, partialObjectMetadata } from './table.ts';
import type { JsonRecord, KubeObject } from './types.ts';

export interface WatchRequest {
  state: ClusterState;
  type: ResourceType;
  namespace: string | undefined;
  /** Only this object (a watch on a named path). */
  name?: string;
  url: URL;
  representation: Representation;
}

function matcher(request: WatchRequest): (object: KubeObject) => boolean {
  const parameters = request.url.searchParams;
  try {
    const labels = parseLabelSelector(parameters.get('labelSelector'));
    const fields = parseFieldSelector(parameters.get('fieldSelector'), request.type.kind);
    return (object) =>
      (request.namespace === undefined || object.metadata.namespace === request.namespace) &&
      (request.name === undefined || object.metadata.name === request.name) &&
      labels(object.metadata.labels) &&
      fields(object);
  } catch (error) {
    if (error instanceof SelectorError) throw badRequest(error.message);
    throw error;
  }
}

function expired(resourceVersion: string): ApiError {
  return new ApiError({ code: 410, reason: 'Expired', message: `too old resource version: ${resourceVersion}` });
}

/** Checks the request and returns what streams it; throws ApiError for a bad selector or an expired resourceVersion. */
export function prepareWatch(request: WatchRequest): (incoming: IncomingMessage, response: ServerResponse) => void {
  const { state, type, url, representation } = request;
  const matches = matcher(request);
  const resource = storageKey(type);
  const parameters = url.searchParams;
  const requestedVersion = parameters.get('resourceVersion') ?? '';
  const sendInitial = parameters.get('sendInitialEvents') === 'true';
  let initial: { type: WatchEventType; object: KubeObject }[];
  if (requestedVersion === '' || requestedVersion === '0' || sendInitial) {
    initial = state.store
      .list(type, request.namespace)
      .filter(matches)
      .map((object) => ({ type: 'ADDED', object }));
  } else {
    const changes = state.store.changesSince(Number(requestedVersion));
    if (!changes || !/^\d+$/.test(requestedVersion)) throw expired(requestedVersion);
    initial = changes.filter((change) => change.resource === resource && matches(change.object));
  }
  const timeoutSeconds = Number(parameters.get('timeoutSeconds') ?? '0');
  const includeParameter = parameters.get('includeObject');
  const includeObject = includeParameter === 'None' || includeParameter === 'Object' ? includeParameter : 'Metadata';
  let columnsSent = false;

  const render = (object: KubeObject): JsonRecord => {
    if (representation.as === 'table') {
      const table = buildTable({
        kind: type.kind,
        objects: [object],
        now: state.now(),
        includeObject,
        apiVersion: representation.apiVersion,
        listMeta: { resourceVersion: object.metadata.resourceVersion },
      });
      if (columnsSent) delete table['columnDefinitions'];
      columnsSent = true;
      return table;
    }
    if (representation.as === 'metadata')
      return { ...partialObjectMetadata(object), apiVersion: representation.apiVersion };
    return object;
  };

  return (incoming, response) => {
    response.writeHead(200, {
      'Content-Type': 'application/json',
      'Transfer-Encoding': 'chunked',
      'Cache-Control': 'no-cache, private',
    });
    // The client waits for the headers before it reads events: send them now, even with nothing to say yet.
    response.flushHeaders();
    const write = (eventType: string, object: JsonRecord): void => {
      response.write(`${JSON.stringify({ type: eventType, object })}\n`);
    };
    for (const event of initial) write(event.type, render(event.object));
    if (sendInitial) {
      write('BOOKMARK', {
        kind: type.kind,
        apiVersion: apiVersionOf(type),
        metadata: {
          resourceVersion: state.store.currentResourceVersion(),
          annotations: { 'k8s.io/initial-events-end': 'true' },
        },
      });
    }
    const stop = state.store.watch((change: StoreChange) => {
      if (change.resource === resource && matches(change.object)) write(change.type, render(change.object));
    });
    const timer = timeoutSeconds > 0 ? setTimeout(() => response.end(), timeoutSeconds * 1000) : undefined;
    const finish = (): void => {
      stop();
      if (timer) clearTimeout(timer);
    };
    response.on('close', finish);
    incoming.on('close', finish);
  };
}
