/** `list_stateful_sets`: StatefulSets with ready/desired replicas; with name, template, pods and events. */
import { createWorkloadListTool } from './workload-list.ts';

export const listStatefulSetsTool = createWorkloadListTool({
  kind: 'StatefulSet',
  name: 'list_stateful_sets',
  description:
    'Lists StatefulSets with ready/desired and updated replicas and images, not-ready ones first. With name (and namespace): also its pod ' +
    'template (env references, volumes and volume claims, probes, resources), its pods by status and its events (e.g. FailedCreate for PVCs).',
});
