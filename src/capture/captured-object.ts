/**
 * An object as a capture holds it: the API's own JSON shape with `apiVersion` and `kind`
 * set (list items come without them), as `kubectl get -o yaml` prints it.
 */
export interface CapturedObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [field: string]: unknown };
  [field: string]: unknown;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value at a dotted path (`status.phase`), or undefined. */
export function readPath(object: unknown, path: string): unknown {
  let value: unknown = object;
  for (const part of path.split('.')) value = isRecord(value) ? value[part] : undefined;
  return value;
}

/** `Kind/namespace/name`, or `Kind/name` for a cluster-scoped object. */
export function describeObject(object: CapturedObject): string {
  return object.metadata.namespace
    ? `${object.kind}/${object.metadata.namespace}/${object.metadata.name}`
    : `${object.kind}/${object.metadata.name}`;
}
