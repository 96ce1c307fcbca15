/**
 * Whether the API server can reach a pod's kubelet. Logs are not kept by the API server: it
 * dials the kubelet of the pod's node on port 10250. A node whose kubelet stopped posting
 * status (Ready condition `Unknown`, what `kubectl get nodes` shows as NotReady after a node
 * is lost) does not answer, and the API server passes the dial error on as a 500 Status
 * without a reason, which kubectl prints as `Error from server: Get "https://…": dial tcp
 * …: i/o timeout`. A node that reports itself not ready (`False`) still has a kubelet that
 * answers, so its pods' logs are served.
 */
import { ApiError } from './api-error.ts';
import type { ClusterState } from './state.ts';
import type { KubeObject } from './types.ts';
import { isRecord, readPath } from './types.ts';

const KUBELET_PORT = 10250;

function readyStatus(node: KubeObject): string | undefined {
  const conditions = readPath(node, 'status.conditions');
  if (!Array.isArray(conditions)) return undefined;
  const ready = conditions.find((condition) => isRecord(condition) && condition['type'] === 'Ready');
  return isRecord(ready) && typeof ready['status'] === 'string' ? ready['status'] : undefined;
}

function internalAddress(node: KubeObject, pod: KubeObject): string {
  const addresses = readPath(node, 'status.addresses');
  const internal = Array.isArray(addresses)
    ? addresses.find((address) => isRecord(address) && address['type'] === 'InternalIP')
    : undefined;
  if (isRecord(internal) && typeof internal['address'] === 'string') return internal['address'];
  const hostIp = readPath(pod, 'status.hostIP');
  return typeof hostIp === 'string' && hostIp ? hostIp : node.metadata.name;
}

/** The error the API server answers for a kubelet request (`containerLogs/…`) to the pod's node when that kubelet is unreachable; undefined when it answers. */
export function unreachableKubelet(state: ClusterState, pod: KubeObject, kubeletPath: string): ApiError | undefined {
  const nodeName = readPath(pod, 'spec.nodeName');
  const nodeType = state.registry.forKind('v1', 'Node');
  if (typeof nodeName !== 'string' || !nodeName || !nodeType) return undefined;
  const node = state.store.get(nodeType, undefined, nodeName);
  if (!node || readyStatus(node) !== 'Unknown') return undefined;
  const address = internalAddress(node, pod);
  return new ApiError({
    code: 500,
    reason: '',
    message: `Get "https://${address}:${KUBELET_PORT}/${kubeletPath}": dial tcp ${address}:${KUBELET_PORT}: i/o timeout`,
  });
}
