/**
 * The kubeconfig the mock writes for itself: one plain-http cluster, a context named
 * `kubewhy-mock` (namespace `default`), and a user with no credentials. The cluster entry
 * says `insecure-skip-tls-verify: true` only because @kubernetes/client-node refuses an
 * http server URL without it; there is no TLS to verify.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { stringify } from 'yaml';

export const CONTEXT_NAME = 'kubewhy-mock';

export function kubeconfigYaml(server: string): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: CONTEXT_NAME, cluster: { server, 'insecure-skip-tls-verify': true } }],
    users: [{ name: CONTEXT_NAME, user: {} }],
    contexts: [{ name: CONTEXT_NAME, context: { cluster: CONTEXT_NAME, user: CONTEXT_NAME, namespace: 'default' } }],
    'current-context': CONTEXT_NAME,
    preferences: {},
  });
}

export async function writeKubeconfig(path: string, server: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, kubeconfigYaml(server), { mode: 0o600 });
}
