/**
 * What each write tool may ask the API server to change, as RBAC names it: the table the
 * chart's ACT Role must grant exactly (test/helm-rbac.test.ts), and that the write tools'
 * requests are checked against (test/tools-writes.test.ts). It is built from the kinds each
 * tool's schema accepts and the calls each cluster write sends, so a kind added to a tool
 * shows up here, and in the Role's test, by itself.
 *
 * Only the write side is listed: what a write tool reads first (the workload, its
 * ReplicaSets or ControllerRevisions, the pod and its owners) goes through the read-only
 * cluster and is granted by the read roles.
 */
import { deletePodApiCalls, patchApiCalls, scaleApiCalls, type ApiCall } from '../cluster/write-api-calls.ts';
import type { WriteToolName } from './registry.ts';
import { ROLLOUT_KINDS } from './rollout-target.ts';
import { SCALE_KINDS } from './scale.ts';

export const WRITE_TOOL_API_CALLS: Readonly<Record<WriteToolName, readonly ApiCall[]>> = {
  rollout_restart: ROLLOUT_KINDS.flatMap(patchApiCalls),
  rollout_undo: ROLLOUT_KINDS.flatMap(patchApiCalls),
  scale: SCALE_KINDS.flatMap(scaleApiCalls),
  delete_pod: deletePodApiCalls(),
};
