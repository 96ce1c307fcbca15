/**
 * The Kubernetes API calls behind each write of the cluster interface, as RBAC names them
 * (API group, resource, subresource, verb): what `kube-adapter.ts` sends for `patch`,
 * `scale` and `deletePod`. The write tools' table (src/tools/write-api-calls.ts) is built
 * from these, and the chart's ACT Role is tested against that table, so the permissions
 * granted and the requests sent cannot drift apart.
 */
import type { PatchableKind, ScalableKind } from './cluster.ts';

export interface ApiCall {
  /** `core` for the legacy group (RBAC's `""`). */
  group: string;
  /** Plural and lowercase, as in a URL: `deployments`. */
  resource: string;
  subresource?: string;
  verb: 'get' | 'list' | 'patch' | 'update' | 'delete';
}

/** The apps/v1 resource of each workload kind a write takes. */
const WORKLOAD_RESOURCES: Record<PatchableKind | ScalableKind, string> = {
  Deployment: 'deployments',
  StatefulSet: 'statefulsets',
  DaemonSet: 'daemonsets',
  ReplicaSet: 'replicasets',
};

/** `patch`: one PATCH of the workload itself (with `dryRun=All` for the dry run). */
export function patchApiCalls(kind: PatchableKind): ApiCall[] {
  return [{ group: 'apps', resource: WORKLOAD_RESOURCES[kind], verb: 'patch' }];
}

/** `scale`: a GET of the scale subresource (the replicas before), then a PATCH of it. */
export function scaleApiCalls(kind: ScalableKind): ApiCall[] {
  const resource = WORKLOAD_RESOURCES[kind];
  return [
    { group: 'apps', resource, subresource: 'scale', verb: 'get' },
    { group: 'apps', resource, subresource: 'scale', verb: 'patch' },
  ];
}

/** `deletePod`: one DELETE of the pod. */
export function deletePodApiCalls(): ApiCall[] {
  return [{ group: 'core', resource: 'pods', verb: 'delete' }];
}

/** `group/resource[/subresource]:verb`, the form RBAC tests compare. */
export function formatApiCall(call: ApiCall): string {
  return `${call.group}/${call.resource}${call.subresource ? `/${call.subresource}` : ''}:${call.verb}`;
}
