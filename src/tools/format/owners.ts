/**
 * The controller chain above an object, resolved through the API: pod → ReplicaSet
 * (with its rollout revision) → Deployment, pod → Job → CronJob, pod → StatefulSet...
 * The top of the chain is the workload a diagnosis names as culprit.
 */
import type { V1ObjectMeta, V1OwnerReference } from '@kubernetes/client-node';
import type { ReadCluster, ReadableKind } from '../../cluster/cluster.ts';

export interface OwnerData {
  kind: string;
  name: string;
  /** `deployment.kubernetes.io/revision` of a ReplicaSet. */
  revision?: number;
  /** The reference exists but the object could not be read (deleted, or no permission). */
  unresolved?: string;
}

const RESOLVABLE: ReadonlySet<string> = new Set([
  'ReplicaSet',
  'Deployment',
  'StatefulSet',
  'DaemonSet',
  'Job',
  'CronJob',
]);

function controllerOf(metadata: V1ObjectMeta | undefined): V1OwnerReference | undefined {
  return metadata?.ownerReferences?.find((reference) => reference.controller) ?? metadata?.ownerReferences?.[0];
}

export function readRevision(metadata: V1ObjectMeta | undefined): number | undefined {
  const value = metadata?.annotations?.['deployment.kubernetes.io/revision'];
  const revision = value === undefined ? Number.NaN : Number(value);
  return Number.isInteger(revision) ? revision : undefined;
}

/** Follows controller references upward, at most four steps; never fails, unresolved links are marked. */
export async function resolveOwnerChain(input: {
  cluster: ReadCluster;
  namespace: string;
  metadata: V1ObjectMeta | undefined;
  signal: AbortSignal;
}): Promise<OwnerData[]> {
  const chain: OwnerData[] = [];
  let reference = controllerOf(input.metadata);
  for (let depth = 0; reference && depth < 4; depth += 1) {
    if (!RESOLVABLE.has(reference.kind)) {
      chain.push({ kind: reference.kind, name: reference.name });
      break;
    }
    const owner = await input.cluster.get(
      reference.kind as ReadableKind,
      { namespace: input.namespace, name: reference.name },
      { signal: input.signal },
    );
    if (!owner.ok) {
      chain.push({ kind: reference.kind, name: reference.name, unresolved: owner.error.kind });
      break;
    }
    const metadata = (owner.value as { metadata?: V1ObjectMeta }).metadata;
    const revision = reference.kind === 'ReplicaSet' ? readRevision(metadata) : undefined;
    chain.push({ kind: reference.kind, name: reference.name, ...(revision !== undefined ? { revision } : {}) });
    reference = controllerOf(metadata);
  }
  return chain;
}

/** `ReplicaSet checkout-api-7d9f8c6b5 (revision 4) <- Deployment checkout-api`. */
export function formatOwnerChain(chain: readonly OwnerData[]): string {
  return chain
    .map(
      (owner) =>
        `${owner.kind} ${owner.name}${owner.revision !== undefined ? ` (revision ${owner.revision})` : ''}${owner.unresolved ? ` (${owner.unresolved})` : ''}`,
    )
    .join(' <- ');
}
