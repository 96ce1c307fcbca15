/** `list_replica_sets`: ReplicaSets with their revision, owner and ReplicaFailure conditions. */
import { createWorkloadListTool } from './workload-list.ts';

export const listReplicaSetsTool = createWorkloadListTool({
  kind: 'ReplicaSet',
  name: 'list_replica_sets',
  description:
    'Lists ReplicaSets with ready/desired replicas, rollout revision, images and failing conditions (ReplicaFailure: FailedCreate with the ' +
    'API server\'s reason, e.g. "exceeded quota" or "forbidden"). Use it when a Deployment\'s pods are missing rather than failing.',
});
