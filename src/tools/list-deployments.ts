/** `list_deployments`: Deployments with ready/desired replicas and failing conditions, trouble first. */
import { createWorkloadListTool } from './workload-list.ts';

export const listDeploymentsTool = createWorkloadListTool({
  kind: 'Deployment',
  name: 'list_deployments',
  description:
    'Lists Deployments with ready/desired, updated and available replicas, current revision, images, and conditions that fail ' +
    '(ProgressDeadlineExceeded, ReplicaFailure with the reason pods cannot be created, e.g. an exceeded quota). Not-ready ones first. ' +
    'Use describe_deployment and rollout_history for one Deployment.',
});
