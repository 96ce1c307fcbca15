/**
 * The self reviews, which are never stored: SelfSubjectAccessReview (`kubectl auth can-i`)
 * answers whether RBAC allows the requesting user the given attributes;
 * SelfSubjectRulesReview (`kubectl auth can-i --list`) lists the rules that apply to the user
 * in a namespace; SelfSubjectReview (`kubectl auth whoami`) returns who the user is.
 */
import { badRequest } from './api-error.ts';
import type { UserInfo } from './authentication.ts';
import { allowedBy, rulesFor, type RequestAttributes } from './authorization.ts';
import type { ClusterState } from './state.ts';
import type { JsonRecord } from './types.ts';
import { isRecord } from './types.ts';

const REVIEWS: Record<string, string> = {
  'authorization.k8s.io/selfsubjectaccessreviews': 'SelfSubjectAccessReview',
  'authorization.k8s.io/selfsubjectrulesreviews': 'SelfSubjectRulesReview',
  'authentication.k8s.io/selfsubjectreviews': 'SelfSubjectReview',
};

export function isSelfReview(group: string, plural: string): boolean {
  return `${group}/${plural}` in REVIEWS;
}

function text(record: JsonRecord, field: string): string | undefined {
  const value = record[field];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function attributesOf(spec: JsonRecord): RequestAttributes {
  const resource = isRecord(spec['resourceAttributes']) ? spec['resourceAttributes'] : undefined;
  if (resource) {
    const namespace = text(resource, 'namespace');
    const name = text(resource, 'name');
    const subresource = text(resource, 'subresource');
    return {
      resourceRequest: true,
      verb: text(resource, 'verb') ?? '',
      group: text(resource, 'group') ?? '',
      resource: text(resource, 'resource') ?? '',
      ...(subresource ? { subresource } : {}),
      ...(namespace ? { namespace } : {}),
      ...(name ? { name } : {}),
    };
  }
  const nonResource = isRecord(spec['nonResourceAttributes']) ? spec['nonResourceAttributes'] : undefined;
  if (nonResource)
    return { resourceRequest: false, verb: text(nonResource, 'verb') ?? '', path: text(nonResource, 'path') ?? '' };
  throw badRequest(
    'SelfSubjectAccessReview.authorization.k8s.io is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
  );
}

/** Answers a POST of a self review (already authorized: every user may ask about itself). */
export function answerSelfReview(
  state: ClusterState,
  user: UserInfo,
  input: { group: string; version: string; plural: string; body: unknown },
): JsonRecord {
  const kind = REVIEWS[`${input.group}/${input.plural}`] ?? '';
  const body = isRecord(input.body) ? input.body : {};
  const spec = isRecord(body['spec']) ? body['spec'] : {};
  const base = { kind, apiVersion: `${input.group}/${input.version}`, metadata: { creationTimestamp: null } };
  switch (kind) {
    case 'SelfSubjectReview':
      return {
        ...base,
        status: { userInfo: { username: user.username, ...(user.uid ? { uid: user.uid } : {}), groups: user.groups } },
      };
    case 'SelfSubjectRulesReview': {
      const namespace = typeof spec['namespace'] === 'string' ? spec['namespace'] : '';
      return { ...base, spec, status: { ...rulesFor(state, user, namespace), incomplete: false } };
    }
    default: {
      const reason = allowedBy(state, user, attributesOf(spec));
      return { ...base, spec, status: reason ? { allowed: true, reason } : { allowed: false } };
    }
  }
}
