/**
 * RBAC as the API server's authorizer applies it: a request's attributes (verb, API group,
 * resource and subresource, namespace, name; or a non-resource path) are allowed when a
 * ClusterRoleBinding, or a RoleBinding in the request's namespace, binds a subject that is
 * the user (its name, one of its groups, or its service account) to a role with a matching
 * rule. `system:masters` is allowed everything; discovery, OpenAPI, version and health paths,
 * and the self-reviews, are allowed to every authenticated user (the default
 * `system:discovery`, `system:public-info-viewer` and `system:basic-user` bindings).
 * A refusal is the 403 Forbidden Status a real API server sends.
 */
import { ApiError } from './api-error.ts';
import type { UserInfo } from './authentication.ts';
import { qualifiedResource } from './resources.ts';
import type { Route } from './router.ts';
import type { ClusterState } from './state.ts';
import type { JsonRecord, KubeObject } from './types.ts';
import { isRecord } from './types.ts';

export type RequestAttributes =
  | {
      resourceRequest: true;
      verb: string;
      group: string;
      resource: string;
      subresource?: string;
      namespace?: string;
      name?: string;
    }
  | { resourceRequest: false; verb: string; path: string };

interface PolicyRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  resourceNames: string[];
  nonResourceURLs: string[];
}

const PUBLIC_PATHS = [
  /^\/(api|apis)(\/.*)?$/,
  /^\/openapi(\/.*)?$/,
  /^\/version\/?$/,
  /^\/(healthz|livez|readyz)(\/.*)?$/,
];
const SELF_REVIEWS = new Set([
  'authorization.k8s.io/selfsubjectaccessreviews',
  'authorization.k8s.io/selfsubjectrulesreviews',
  'authentication.k8s.io/selfsubjectreviews',
]);

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function rulesOf(role: KubeObject | undefined): PolicyRule[] {
  const rules = role?.['rules'];
  if (!Array.isArray(rules)) return [];
  return rules.filter(isRecord).map((rule) => ({
    verbs: strings(rule['verbs']),
    apiGroups: strings(rule['apiGroups']),
    resources: strings(rule['resources']),
    resourceNames: strings(rule['resourceNames']),
    nonResourceURLs: strings(rule['nonResourceURLs']),
  }));
}

function bindsUser(binding: KubeObject, user: UserInfo): boolean {
  const subjects = binding['subjects'];
  if (!Array.isArray(subjects)) return false;
  return subjects.filter(isRecord).some((subject) => {
    if (subject['kind'] === 'User') return subject['name'] === user.username;
    if (subject['kind'] === 'Group')
      return typeof subject['name'] === 'string' && user.groups.includes(subject['name']);
    if (subject['kind'] === 'ServiceAccount')
      return (
        user.username ===
        `system:serviceaccount:${String(subject['namespace'] ?? binding.metadata.namespace ?? '')}:${String(subject['name'])}`
      );
    return false;
  });
}

function listKind(state: ClusterState, kind: string, namespace?: string): KubeObject[] {
  const type = state.registry.forKind('rbac.authorization.k8s.io/v1', kind);
  return type ? state.store.list(type, namespace) : [];
}

function roleOf(state: ClusterState, binding: KubeObject): KubeObject | undefined {
  const roleRef = binding['roleRef'];
  if (!isRecord(roleRef) || typeof roleRef['name'] !== 'string') return undefined;
  const kind = roleRef['kind'] === 'Role' ? 'Role' : 'ClusterRole';
  const type = state.registry.forKind('rbac.authorization.k8s.io/v1', kind);
  return type
    ? state.store.get(type, kind === 'Role' ? binding.metadata.namespace : undefined, roleRef['name'])
    : undefined;
}

function matchesRule(rule: PolicyRule, attributes: RequestAttributes): boolean {
  if (!rule.verbs.includes('*') && !rule.verbs.includes(attributes.verb)) return false;
  if (!attributes.resourceRequest)
    return rule.nonResourceURLs.some(
      (url) =>
        url === '*' || url === attributes.path || (url.endsWith('*') && attributes.path.startsWith(url.slice(0, -1))),
    );
  if (!rule.apiGroups.includes('*') && !rule.apiGroups.includes(attributes.group)) return false;
  const resource = attributes.subresource ? `${attributes.resource}/${attributes.subresource}` : attributes.resource;
  const resourceMatches = rule.resources.some(
    (candidate) =>
      candidate === '*' ||
      candidate === resource ||
      (attributes.subresource !== undefined && candidate === `*/${attributes.subresource}`),
  );
  if (!resourceMatches) return false;
  return (
    rule.resourceNames.length === 0 || (attributes.name !== undefined && rule.resourceNames.includes(attributes.name))
  );
}

/** The binding that allows the request, described as the RBAC authorizer does; undefined when none does. */
export function allowedBy(state: ClusterState, user: UserInfo, attributes: RequestAttributes): string | undefined {
  if (user.groups.includes('system:masters')) return 'allowed by group "system:masters"';
  if (!attributes.resourceRequest && PUBLIC_PATHS.some((pattern) => pattern.test(attributes.path)))
    return 'allowed by ClusterRoleBinding "system:discovery"';
  if (
    attributes.resourceRequest &&
    attributes.verb === 'create' &&
    SELF_REVIEWS.has(`${attributes.group}/${attributes.resource}`)
  )
    return 'allowed by ClusterRoleBinding "system:basic-user"';
  const bindings = [
    ...listKind(state, 'ClusterRoleBinding'),
    ...(attributes.resourceRequest && attributes.namespace ? listKind(state, 'RoleBinding', attributes.namespace) : []),
  ];
  for (const binding of bindings) {
    if (!bindsUser(binding, user)) continue;
    if (rulesOf(roleOf(state, binding)).some((rule) => matchesRule(rule, attributes))) {
      const roleRef = binding['roleRef'] as { kind?: string; name?: string };
      return `RBAC: allowed by ${binding.kind} "${binding.metadata.name}${binding.metadata.namespace ? `/${binding.metadata.namespace}` : ''}" of ${roleRef.kind ?? 'ClusterRole'} "${roleRef.name ?? ''}" to ${user.username}`;
    }
  }
  return undefined;
}

/** The 403 the API server answers for a request RBAC does not allow. */
export function forbidden(user: UserInfo, attributes: RequestAttributes): ApiError {
  if (!attributes.resourceRequest) {
    return new ApiError({
      code: 403,
      reason: 'Forbidden',
      message: `forbidden: User "${user.username}" cannot ${attributes.verb} path "${attributes.path}"`,
      details: {},
    });
  }
  const resource = attributes.subresource ? `${attributes.resource}/${attributes.subresource}` : attributes.resource;
  const subject = `${qualifiedResource({ group: attributes.group, plural: attributes.resource })}${attributes.name !== undefined ? ` "${attributes.name}"` : ''}`;
  const scope =
    attributes.namespace !== undefined ? `in the namespace "${attributes.namespace}"` : 'at the cluster scope';
  return new ApiError({
    code: 403,
    reason: 'Forbidden',
    message: `${subject} is forbidden: User "${user.username}" cannot ${attributes.verb} resource "${resource}" in API group "${attributes.group}" ${scope}`,
    details: {
      ...(attributes.name !== undefined ? { name: attributes.name } : {}),
      ...(attributes.group ? { group: attributes.group } : {}),
      kind: attributes.resource,
    },
  });
}

/** Throws the 403 unless RBAC allows the request. */
export function authorize(state: ClusterState, user: UserInfo, attributes: RequestAttributes): void {
  if (!allowedBy(state, user, attributes)) throw forbidden(user, attributes);
}

const VERBS: Record<string, string> = { POST: 'create', PUT: 'update', PATCH: 'patch' };

/** The attributes of an HTTP request, as the API server's request-info resolver derives them. */
export function attributesOf(route: Route, method: string, url: URL): RequestAttributes {
  if (route.route !== 'resource')
    return {
      resourceRequest: false,
      verb: method === 'GET' || method === 'HEAD' ? 'get' : method.toLowerCase(),
      path: url.pathname,
    };
  const watch = route.watchPath || url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1';
  return resourceAttributes({
    method,
    group: route.group,
    plural: route.plural,
    watch,
    ...(route.namespace !== undefined ? { namespace: route.namespace } : {}),
    ...(route.name !== undefined ? { name: route.name } : {}),
    ...(route.subresource !== undefined ? { subresource: route.subresource } : {}),
  });
}

function resourceAttributes(input: {
  method: string;
  group: string;
  plural: string;
  namespace?: string;
  name?: string;
  subresource?: string;
  watch: boolean;
}): RequestAttributes {
  const { method, name } = input;
  let verb: string;
  if (method === 'GET' || method === 'HEAD') verb = input.watch ? 'watch' : name === undefined ? 'list' : 'get';
  else if (method === 'DELETE') verb = name === undefined ? 'deletecollection' : 'delete';
  else verb = VERBS[method] ?? method.toLowerCase();
  return {
    resourceRequest: true,
    verb,
    group: input.group,
    resource: input.plural,
    ...(input.subresource !== undefined ? { subresource: input.subresource } : {}),
    // A Namespace is addressed in itself: `get namespaces/shop` is a request in namespace shop.
    ...(input.namespace !== undefined
      ? { namespace: input.namespace }
      : input.group === '' && input.plural === 'namespaces' && name !== undefined
        ? { namespace: name }
        : {}),
    ...(name !== undefined ? { name } : {}),
  };
}

/** The rules that apply to `user` in `namespace` (cluster-wide ones included), as SelfSubjectRulesReview lists them. */
export function rulesFor(
  state: ClusterState,
  user: UserInfo,
  namespace: string,
): { resourceRules: JsonRecord[]; nonResourceRules: JsonRecord[] } {
  if (user.groups.includes('system:masters'))
    return {
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
    };
  const bindings = [
    ...listKind(state, 'ClusterRoleBinding'),
    ...(namespace ? listKind(state, 'RoleBinding', namespace) : []),
  ].filter((binding) => bindsUser(binding, user));
  const rules = bindings.flatMap((binding) => rulesOf(roleOf(state, binding)));
  const basic = [
    {
      verbs: ['create'],
      apiGroups: ['authorization.k8s.io'],
      resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
    },
    { verbs: ['create'], apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'] },
  ];
  return {
    resourceRules: [
      ...basic,
      ...rules
        .filter((rule) => rule.resources.length > 0)
        .map((rule) => ({
          verbs: rule.verbs,
          apiGroups: rule.apiGroups,
          resources: rule.resources,
          ...(rule.resourceNames.length > 0 ? { resourceNames: rule.resourceNames } : {}),
        })),
    ],
    nonResourceRules: [
      {
        verbs: ['get'],
        nonResourceURLs: [
          '/api',
          '/api/*',
          '/apis',
          '/apis/*',
          '/healthz',
          '/livez',
          '/openapi',
          '/openapi/*',
          '/readyz',
          '/version',
          '/version/',
        ],
      },
      ...rules
        .filter((rule) => rule.nonResourceURLs.length > 0)
        .map((rule) => ({ verbs: rule.verbs, nonResourceURLs: rule.nonResourceURLs })),
    ],
  };
}
