/**
 * A minimal OpenAPI v3 (`/openapi/v3` and one document per group-version): for each kind,
 * the PATCH operation tagged with its group-version-kind and the `fieldValidation` query
 * parameter. That is what kubectl's and helm's field-validation check reads to decide that
 * the server validates fields itself, so they send objects without client-side schema
 * validation (which would need the full schema). Each kind the Kubernetes client models also
 * gets its schema, with descriptions (openapi-schemas.ts), which is what `kubectl explain`
 * reads.
 */
import { createHash } from 'node:crypto';
import { kindSchemas } from './openapi-schemas.ts';
import type { ResourceRegistry } from './resources.ts';
import type { JsonRecord } from './types.ts';

function groupVersionPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

/** The root document: where each group-version's document is. */
export function openApiRoot(registry: ResourceRegistry): JsonRecord {
  const paths: JsonRecord = {};
  for (const [group, versions] of registry.groups()) {
    for (const version of versions.keys()) {
      const path = groupVersionPath(group, version);
      const hash = createHash('sha256')
        .update(`${path}/${registry.generation}`)
        .digest('hex')
        .slice(0, 32)
        .toUpperCase();
      paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${hash}` };
    }
  }
  return { paths };
}

/** The document of one group-version (path without the `/openapi/v3/` prefix), or undefined. */
export function openApiGroupVersion(registry: ResourceRegistry, path: string): JsonRecord | undefined {
  const parts = path.split('/').filter(Boolean);
  const [group, version] =
    parts[0] === 'api' && parts.length === 2
      ? ['', parts[1] ?? '']
      : parts[0] === 'apis' && parts.length === 3
        ? [parts[1] ?? '', parts[2] ?? '']
        : [undefined, undefined];
  if (group === undefined || version === undefined) return undefined;
  const types = registry.groups().get(group)?.get(version);
  if (!types) return undefined;
  const paths: JsonRecord = {};
  for (const type of types) {
    const prefix = `/${groupVersionPath(group, version)}${type.namespaced ? '/namespaces/{namespace}' : ''}/${type.plural}/{name}`;
    paths[prefix] = {
      patch: {
        operationId: `patch${type.kind}`,
        'x-kubernetes-group-version-kind': { group, version, kind: type.kind },
        'x-kubernetes-action': 'patch',
        parameters: [
          { name: 'dryRun', in: 'query', schema: { type: 'string', uniqueItems: true } },
          { name: 'fieldManager', in: 'query', schema: { type: 'string', uniqueItems: true } },
          { name: 'fieldValidation', in: 'query', schema: { type: 'string', uniqueItems: true } },
          { name: 'force', in: 'query', schema: { type: 'boolean', uniqueItems: true } },
        ],
        responses: { '200': { description: 'OK' } },
      },
    };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.33.0' },
    paths,
    components: { schemas: kindSchemas(types.map((type) => ({ group, version, kind: type.kind }))) },
  };
}
