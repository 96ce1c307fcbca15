/**
 * Failures as the API server reports them: a `Status` object with `reason`, `code` and
 * `details`, so clients (kubectl, client-node, helm) recognise NotFound, Conflict, ... .
 */
import { qualifiedResource, type ResourceType } from './resources.ts';
import type { JsonRecord } from './types.ts';

export class ApiError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly details: JsonRecord | undefined;
  readonly headers: Record<string, string>;

  constructor(options: {
    code: number;
    reason: string;
    message: string;
    details?: JsonRecord;
    headers?: Record<string, string>;
  }) {
    super(options.message);
    this.code = options.code;
    this.reason = options.reason;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }

  toStatus(): JsonRecord {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      ...(this.reason ? { reason: this.reason } : {}),
      ...(this.details ? { details: this.details } : {}),
      code: this.code,
    };
  }
}

type Resource = Pick<ResourceType, 'group' | 'plural'>;

function details(type: Resource, name?: string): JsonRecord {
  return { ...(name !== undefined ? { name } : {}), ...(type.group ? { group: type.group } : {}), kind: type.plural };
}

export function notFound(type: Resource, name: string): ApiError {
  return new ApiError({
    code: 404,
    reason: 'NotFound',
    message: `${qualifiedResource(type)} "${name}" not found`,
    details: details(type, name),
  });
}

export function alreadyExists(type: Resource, name: string): ApiError {
  return new ApiError({
    code: 409,
    reason: 'AlreadyExists',
    message: `${qualifiedResource(type)} "${name}" already exists`,
    details: details(type, name),
  });
}

export function conflict(type: Resource, name: string): ApiError {
  return new ApiError({
    code: 409,
    reason: 'Conflict',
    message: `Operation cannot be fulfilled on ${qualifiedResource(type)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    details: details(type, name),
  });
}

export interface InvalidCause {
  field: string;
  message: string;
}

export function invalid(type: Pick<ResourceType, 'group' | 'kind'>, name: string, causes: InvalidCause[]): ApiError {
  const qualifiedKind = type.group ? `${type.kind}.${type.group}` : type.kind;
  const summary = causes.map((cause) => `${cause.field}: ${cause.message}`).join(', ');
  return new ApiError({
    code: 422,
    reason: 'Invalid',
    message: `${qualifiedKind} "${name}" is invalid: ${causes.length > 1 ? `[${summary}]` : summary}`,
    details: {
      name,
      ...(type.group ? { group: type.group } : {}),
      kind: type.kind,
      causes: causes.map((cause) => ({ reason: 'FieldValueInvalid', message: cause.message, field: cause.field })),
    },
  });
}

export function badRequest(message: string): ApiError {
  return new ApiError({ code: 400, reason: 'BadRequest', message });
}

export function notFoundPath(): ApiError {
  return new ApiError({
    code: 404,
    reason: 'NotFound',
    message: 'the server could not find the requested resource',
    details: {},
  });
}

export function methodNotAllowed(): ApiError {
  return new ApiError({
    code: 405,
    reason: 'MethodNotAllowed',
    message: 'the server does not allow this method on the requested resource',
    details: {},
  });
}

export function unsupportedMediaType(contentType: string): ApiError {
  return new ApiError({
    code: 415,
    reason: 'UnsupportedMediaType',
    message: `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json (got ${contentType || 'none'})`,
  });
}
