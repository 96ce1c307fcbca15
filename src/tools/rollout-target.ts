/**
 * The workload `rollout_history` and `rollout_undo` act on, and its history: a Deployment's
 * ReplicaSets, or a StatefulSet's or DaemonSet's ControllerRevisions. A name that is not a
 * workload of the asked kind comes back as a not-found failure that says which kind holds
 * that name, when one does, or which list tool shows what exists.
 */
import { z } from 'zod';
import type { ClusterResult, PatchableKind } from '../cluster/cluster.ts';
import { readControllerRevisionHistory, type RevisionedWorkload } from './format/controller-revisions.ts';
import { readRolloutHistory, type RolloutHistory } from './format/rollout.ts';
import { failureFrom } from './tool-results.ts';
import type { ReadToolContext, ToolFailure } from './tool.ts';

export const ROLLOUT_KINDS = ['Deployment', 'StatefulSet', 'DaemonSet'] as const satisfies readonly PatchableKind[];
export type RolloutKind = (typeof ROLLOUT_KINDS)[number];

/** The `kind` input both rollout tools take; omitted means Deployment. */
export const rolloutKindInput = z
  .enum(ROLLOUT_KINDS)
  .optional()
  .describe('Workload kind: Deployment (the default), StatefulSet or DaemonSet');

const LIST_TOOLS: Record<RolloutKind, string> = {
  Deployment: 'list_deployments',
  StatefulSet: 'list_stateful_sets',
  DaemonSet: 'list_daemon_sets',
};

export interface RolloutTargetRequest {
  namespace: string;
  name: string;
  kind: RolloutKind;
  /** The tool asking, named in the hint of a kind mismatch. */
  tool: string;
}

export type RolloutTargetResult = { ok: true; history: RolloutHistory } | { ok: false; failure: ToolFailure };

/** Which other rollout kind, if any, has an object of this name. */
async function findOtherKind(
  request: RolloutTargetRequest,
  context: ReadToolContext,
): Promise<RolloutKind | undefined> {
  for (const kind of ROLLOUT_KINDS) {
    if (kind === request.kind) continue;
    const found = await context.cluster.get(
      kind,
      { namespace: request.namespace, name: request.name },
      { signal: context.signal },
    );
    if (found.ok) return kind;
  }
  return undefined;
}

async function notFoundHint(request: RolloutTargetRequest, context: ReadToolContext): Promise<string> {
  const other = await findOtherKind(request, context);
  if (other)
    return `${request.namespace}/${request.name} is a ${other}, not a ${request.kind}: call ${request.tool} again with kind "${other}".`;
  return `Use ${LIST_TOOLS[request.kind]} in "${request.namespace}" to see which exist; for a StatefulSet or DaemonSet, set kind.`;
}

async function readRevisionedWorkload(
  kind: RevisionedWorkload['kind'],
  reference: { namespace: string; name: string },
  context: ReadToolContext,
): Promise<ClusterResult<RevisionedWorkload>> {
  const options = { signal: context.signal };
  if (kind === 'StatefulSet') {
    const read = await context.cluster.get('StatefulSet', reference, options);
    return read.ok ? { ok: true, value: { kind, object: read.value } } : read;
  }
  const read = await context.cluster.get('DaemonSet', reference, options);
  return read.ok ? { ok: true, value: { kind, object: read.value } } : read;
}

/** Reads the workload and its rollout history. */
export async function readRolloutTarget(
  request: RolloutTargetRequest,
  context: ReadToolContext,
): Promise<RolloutTargetResult> {
  const reference = { namespace: request.namespace, name: request.name };
  const options = { signal: context.signal };
  let history;
  if (request.kind === 'Deployment') {
    const deployment = await context.cluster.get('Deployment', reference, options);
    if (!deployment.ok)
      return {
        ok: false,
        failure: failureFrom(
          deployment.error,
          deployment.error.kind === 'not-found' ? await notFoundHint(request, context) : undefined,
        ),
      };
    history = await readRolloutHistory({
      cluster: context.cluster,
      deployment: deployment.value,
      signal: context.signal,
    });
  } else {
    const workload = await readRevisionedWorkload(request.kind, reference, context);
    if (!workload.ok)
      return {
        ok: false,
        failure: failureFrom(
          workload.error,
          workload.error.kind === 'not-found' ? await notFoundHint(request, context) : undefined,
        ),
      };
    history = await readControllerRevisionHistory({
      cluster: context.cluster,
      workload: workload.value,
      signal: context.signal,
    });
  }
  if (!history.ok) return { ok: false, failure: failureFrom(history.error) };
  return { ok: true, history: history.value };
}
