/**
 * A StatefulSet's or DaemonSet's rollout history, from rollout_history, in the shape a
 * Deployment's comes in (the templates left out).
 */
import type { RolloutHistoryData } from '../../../tools/rollout-history.ts';
import type { WorkloadHistory } from '../case.ts';

export function historyFrom(
  rollout: RolloutHistoryData,
  kind: 'StatefulSet' | 'DaemonSet',
  desired: number,
): WorkloadHistory {
  return {
    kind,
    namespace: rollout.namespace,
    name: rollout.name,
    desired,
    ...(rollout.currentRevision !== undefined ? { currentRevision: rollout.currentRevision } : {}),
    revisions: rollout.revisions.map(({ template: _template, ...revision }) => revision),
    changes: rollout.changes,
  };
}
