/**
 * Who a request comes from. The kubeconfig the mock writes carries no credentials, and a
 * request without any is the cluster's administrator (`kubernetes-admin` in
 * `system:masters`, what a kubeadm admin.conf is), so every existing client keeps full
 * access. A bearer token the mock issued through the TokenRequest API
 * (`kubectl create token SA`, `POST …/serviceaccounts/SA/token`) is that service account,
 * `system:serviceaccount:<namespace>:<name>`, whose requests RBAC then decides
 * (authorization.ts). Any other token is 401 Unauthorized.
 */
import { randomBytes } from 'node:crypto';
import { ApiError } from './api-error.ts';
import { timestamp, type ClusterState } from './state.ts';
import type { JsonRecord } from './types.ts';
import { isRecord } from './types.ts';

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export const ADMIN: UserInfo = {
  username: 'kubernetes-admin',
  groups: ['kubeadm:cluster-admins', 'system:masters', 'system:authenticated'],
};

/** Tokens the mock issued, per cluster state. */
const issuedTokens = new WeakMap<ClusterState, Map<string, UserInfo>>();

function tokensOf(state: ClusterState): Map<string, UserInfo> {
  let tokens = issuedTokens.get(state);
  if (!tokens) issuedTokens.set(state, (tokens = new Map()));
  return tokens;
}

export function serviceAccountUser(namespace: string, name: string, uid?: string): UserInfo {
  return {
    username: `system:serviceaccount:${namespace}:${name}`,
    ...(uid ? { uid } : {}),
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
  };
}

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

/** Issues a token for a service account and answers the TokenRequest as the API server does. */
export function issueServiceAccountToken(
  state: ClusterState,
  serviceAccount: { namespace: string; name: string; uid?: string },
  request: unknown,
): JsonRecord {
  const spec = isRecord(request) && isRecord(request['spec']) ? request['spec'] : {};
  const expirationSeconds = typeof spec['expirationSeconds'] === 'number' ? spec['expirationSeconds'] : 3600;
  const audiences =
    Array.isArray(spec['audiences']) && spec['audiences'].length > 0
      ? spec['audiences']
      : ['https://kubernetes.default.svc.cluster.local'];
  const issuedAt = Math.floor(state.now() / 1000);
  const user = serviceAccountUser(serviceAccount.namespace, serviceAccount.name, serviceAccount.uid);
  // Shaped like a projected service account JWT; only the mock's own list of issued tokens makes it valid.
  const token = [
    base64url({ alg: 'RS256', kid: 'kubewhy-mock' }),
    base64url({
      aud: audiences,
      exp: issuedAt + expirationSeconds,
      iat: issuedAt,
      iss: 'https://kubernetes.default.svc.cluster.local',
      sub: user.username,
    }),
    randomBytes(32).toString('base64url'),
  ].join('.');
  tokensOf(state).set(token, user);
  return {
    kind: 'TokenRequest',
    apiVersion: 'authentication.k8s.io/v1',
    metadata: { name: serviceAccount.name, namespace: serviceAccount.namespace, creationTimestamp: null },
    spec: { audiences, expirationSeconds, boundObjectRef: null },
    status: { token, expirationTimestamp: timestamp((issuedAt + expirationSeconds) * 1000) },
  };
}

/** The user behind a request's Authorization header; throws 401 for a token the mock never issued. */
export function authenticate(state: ClusterState, authorization: string | undefined): UserInfo {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match?.[1]) return ADMIN;
  const user = tokensOf(state).get(match[1]);
  if (!user) throw new ApiError({ code: 401, reason: 'Unauthorized', message: 'Unauthorized' });
  return user;
}

/**
 * The user a request acts as: `Impersonate-User` (and `Impersonate-Group`) when the
 * authenticated user may impersonate (kubectl `--as`, `--as-group`), else the user itself.
 * A service account name (`system:serviceaccount:NS:NAME`) gets that account's groups.
 */
export function impersonated(
  user: UserInfo,
  headers: { user?: string | string[] | undefined; groups?: string | string[] | undefined },
  mayImpersonate: (attributes: { resource: string; namespace?: string; name: string }) => void,
): UserInfo {
  const name = Array.isArray(headers.user) ? headers.user[0] : headers.user;
  if (!name) return user;
  const serviceAccount = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(name);
  if (serviceAccount?.[1] && serviceAccount[2])
    mayImpersonate({ resource: 'serviceaccounts', namespace: serviceAccount[1], name: serviceAccount[2] });
  else mayImpersonate({ resource: 'users', name });
  const groups = (Array.isArray(headers.groups) ? headers.groups : headers.groups ? headers.groups.split(',') : [])
    .map((group) => group.trim())
    .filter(Boolean);
  for (const group of groups) mayImpersonate({ resource: 'groups', name: group });
  if (serviceAccount?.[1] && serviceAccount[2]) {
    const base = serviceAccountUser(serviceAccount[1], serviceAccount[2]);
    return { ...base, groups: [...new Set([...groups, ...base.groups])] };
  }
  return { username: name, groups: [...new Set([...groups, 'system:authenticated'])] };
}
