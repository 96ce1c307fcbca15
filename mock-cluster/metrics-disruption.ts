/**
 * kube-state-metrics' PodDisruptionBudget family: how many healthy pods each budget wants,
 * has and expects, and how many disruptions it allows now (from its status, 0 when unset).
 */
import { numberOr, text, type MetricDefinitions, type MetricSample } from './metrics-format.ts';
import { isRecord, type KubeObject } from './types.ts';

export const DISRUPTION_METRICS: MetricDefinitions = {
  kube_poddisruptionbudget_status_current_healthy: { help: 'Current number of healthy pods', type: 'gauge' },
  kube_poddisruptionbudget_status_desired_healthy: { help: 'Minimum desired number of healthy pods', type: 'gauge' },
  kube_poddisruptionbudget_status_expected_pods: {
    help: 'Total number of pods counted by this disruption budget',
    type: 'gauge',
  },
  kube_poddisruptionbudget_status_pod_disruptions_allowed: {
    help: 'Number of pod disruptions that are currently allowed',
    type: 'gauge',
  },
};

export function collectDisruptionMetrics(budgets: readonly KubeObject[]): MetricSample[] {
  return budgets.flatMap((budget) => {
    const status = isRecord(budget['status']) ? budget['status'] : {};
    const labels = { namespace: text(budget.metadata.namespace), poddisruptionbudget: budget.metadata.name };
    return [
      { name: 'kube_poddisruptionbudget_status_current_healthy', labels, value: numberOr(status['currentHealthy'], 0) },
      { name: 'kube_poddisruptionbudget_status_desired_healthy', labels, value: numberOr(status['desiredHealthy'], 0) },
      { name: 'kube_poddisruptionbudget_status_expected_pods', labels, value: numberOr(status['expectedPods'], 0) },
      {
        name: 'kube_poddisruptionbudget_status_pod_disruptions_allowed',
        labels,
        value: numberOr(status['disruptionsAllowed'], 0),
      },
    ];
  });
}
