/**
 * The namespace's Secrets as a capture writes them: name, type, creation time and key
 * names. The cluster client hands out no value (ReadCluster.listSecrets), so none can be
 * written; each key holds the base64 of `REDACTED`, as the public scenarios do, so that
 * the tools still see which keys exist.
 */
import type { ReadCluster } from '../cluster/cluster.ts';
import type { CapturedObject } from './captured-object.ts';

/** base64("REDACTED"): the value every captured Secret key holds. */
export const REDACTED_SECRET_VALUE = Buffer.from('REDACTED').toString('base64');

export async function readSecrets(
  cluster: ReadCluster,
  namespace: string,
): Promise<{ objects: CapturedObject[]; warnings: string[] }> {
  const result = await cluster.listSecrets({ namespace });
  if (!result.ok)
    return { objects: [], warnings: [`Secret: not captured (${result.error.kind}: ${result.error.message})`] };
  const objects = result.value.map((secret): CapturedObject => {
    const created =
      secret.creationTimestamp instanceof Date ? secret.creationTimestamp.toISOString() : secret.creationTimestamp;
    return {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: secret.name,
        namespace: secret.namespace || namespace,
        ...(created ? { creationTimestamp: created } : {}),
      },
      type: secret.type,
      ...(secret.keys.length > 0
        ? { data: Object.fromEntries(secret.keys.map((key) => [key, REDACTED_SECRET_VALUE])) }
        : {}),
    };
  });
  return { objects, warnings: [] };
}
