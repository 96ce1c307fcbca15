/** `list_daemon_sets`: DaemonSets with scheduled/ready pods; with name, template, pods and events. */
import { createWorkloadListTool } from './workload-list.ts';

export const listDaemonSetsTool = createWorkloadListTool({
  kind: 'DaemonSet',
  name: 'list_daemon_sets',
  description:
    'Lists DaemonSets with desired (nodes that should run one), ready, updated and available pods and images, not-ready ones first. ' +
    'With name (and namespace): also its pod template, its pods by status and its events.',
});
