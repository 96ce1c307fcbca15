/**
 * RBAC as the API server's authorizer reads it: whether a binding names a service account
 * (directly, or through the groups every service account is in), each rule of a role in one
 * line, and whether a rule allows a request (verb, API group, resource, name).
 */
import type { RbacV1Subject, V1PolicyRule } from '@kubernetes/client-node';

export interface ServiceAccountRef {
  namespace: string;
  name: string;
}

export interface AccessRequest {
  verb: string;
  /** `pods`, `pods/log`, `deployments/scale`... */
  resource: string;
  /** The API group: `""` (core), `apps`, `batch`... */
  apiGroup: string;
  name?: string;
}

/** `system:serviceaccount:shop:checkout`, as the API server names the account in a 403. */
export function serviceAccountUser(account: ServiceAccountRef): string {
  return `system:serviceaccount:${account.namespace}:${account.name}`;
}

/** The groups the API server puts every service account token in. */
function serviceAccountGroups(account: ServiceAccountRef): string[] {
  return ['system:serviceaccounts', `system:serviceaccounts:${account.namespace}`, 'system:authenticated'];
}

/** How a binding's subjects name the account (`ServiceAccount shop/checkout`, `Group system:serviceaccounts:shop`), or undefined. */
export function subjectNaming(
  subjects: readonly RbacV1Subject[] | undefined,
  bindingNamespace: string | undefined,
  account: ServiceAccountRef,
): string | undefined {
  for (const subject of subjects ?? []) {
    if (
      subject.kind === 'ServiceAccount' &&
      subject.name === account.name &&
      (subject.namespace ?? bindingNamespace) === account.namespace
    )
      return `ServiceAccount ${account.namespace}/${account.name}`;
    if (subject.kind === 'User' && subject.name === serviceAccountUser(account)) return `User ${subject.name}`;
    if (subject.kind === 'Group' && serviceAccountGroups(account).includes(subject.name))
      return `Group ${subject.name}`;
  }
  return undefined;
}

/** `ServiceAccount shop/checkout, Group ops`: a binding's subjects in one line, at most `limit` of them. */
export function formatSubjects(
  subjects: readonly RbacV1Subject[] | undefined,
  bindingNamespace: string | undefined,
  limit = 6,
): string {
  const all = (subjects ?? []).map((subject) =>
    subject.kind === 'ServiceAccount'
      ? `ServiceAccount ${subject.namespace ?? bindingNamespace ?? '?'}/${subject.name}`
      : `${subject.kind} ${subject.name}`,
  );
  if (all.length === 0) return 'no subjects';
  return `${all.slice(0, limit).join(', ')}${all.length > limit ? `, +${all.length - limit} more` : ''}`;
}

function list(values: readonly string[] | undefined): string {
  return (values ?? []).join(',') || '-';
}

/** `get,list,watch pods,pods/log [core]`, `get secrets [core] names=db-password`, `get /healthz`. */
export function formatRule(rule: V1PolicyRule): string {
  if (rule.nonResourceURLs?.length && !rule.resources?.length)
    return `${list(rule.verbs)} ${list(rule.nonResourceURLs)}`;
  const groups = (rule.apiGroups ?? []).map((group) => (group === '' ? 'core' : group)).join(',');
  const names = rule.resourceNames?.length ? ` names=${rule.resourceNames.join(',')}` : '';
  return `${list(rule.verbs)} ${list(rule.resources)} [${groups || '-'}]${names}`;
}

/** Whether one rule allows the request, as the RBAC authorizer matches (`*` wildcards, subresources, resourceNames). */
export function ruleAllows(rule: V1PolicyRule, request: AccessRequest): boolean {
  const verbs = rule.verbs ?? [];
  if (!verbs.includes('*') && !verbs.includes(request.verb)) return false;
  const groups = rule.apiGroups ?? [];
  if (!groups.includes('*') && !groups.includes(request.apiGroup)) return false;
  const subresource = request.resource.split('/')[1];
  const resources = rule.resources ?? [];
  const resourceMatches = resources.some(
    (candidate) =>
      candidate === '*' ||
      candidate === request.resource ||
      (subresource !== undefined && candidate === `*/${subresource}`),
  );
  if (!resourceMatches) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || (request.name !== undefined && names.includes(request.name));
}
