/**
 * The kubeconfig the mock writes for itself: one plain-http cluster, a context named
 * `kubewhy-mock` (namespace `default`), and a user with no credentials (the administrator,
 * authentication.ts), or a bearer token the mock issued (a service account). The cluster entry
 * says `insecure-skip-tls-verify: true` only because @kubernetes/client-node refuses an
 * http server URL without it; there is no TLS to verify.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { stringify } from 'yaml';

export const CONTEXT_NAME = 'kubewhy-mock';

/** The kubeconfig for `server`; with `token`, its user authenticates with that bearer token. */
export function kubeconfigYaml(server: string, token?: string): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: CONTEXT_NAME, cluster: { server, 'insecure-skip-tls-verify': true } }],
    users: [{ name: CONTEXT_NAME, user: token ? { token } : {} }],
    contexts: [{ name: CONTEXT_NAME, context: { cluster: CONTEXT_NAME, user: CONTEXT_NAME, namespace: 'default' } }],
    'current-context': CONTEXT_NAME,
    preferences: {},
  });
}

export async function writeKubeconfig(path: string, server: string, token?: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, kubeconfigYaml(server, token), { mode: 0o600 });
}
