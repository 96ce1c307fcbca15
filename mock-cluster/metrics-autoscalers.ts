/**
 * kube-state-metrics' HorizontalPodAutoscaler families, from autoscaling/v2 objects the
 * way its store reads them: every series carries `namespace` and
 * `horizontalpodautoscaler`; an unset `minReplicas` is the API server's default of 1; an
 * unset status count is 0; each condition has one series per status (true, false,
 * unknown). Target metrics are exported as kube-state-metrics exports them: one series per
 * target type a metric sets, only for quantities that are whole numbers (it converts with
 * `AsInt64`, which refuses `500m`).
 */
import {
  conditionSamples,
  numberOr,
  text,
  type Labels,
  type MetricDefinitions,
  type MetricSample,
} from './metrics-format.ts';
import { parseQuantity } from './metrics-quotas.ts';
import { isRecord, type JsonRecord, type KubeObject } from './types.ts';

export const AUTOSCALER_METRICS: MetricDefinitions = {
  kube_horizontalpodautoscaler_info: { help: 'Information about this autoscaler.', type: 'gauge' },
  kube_horizontalpodautoscaler_metadata_generation: {
    help: 'The generation observed by the HorizontalPodAutoscaler controller.',
    type: 'gauge',
  },
  kube_horizontalpodautoscaler_spec_max_replicas: {
    help: 'Upper limit for the number of pods that can be set by the autoscaler; cannot be smaller than MinReplicas.',
    type: 'gauge',
  },
  kube_horizontalpodautoscaler_spec_min_replicas: {
    help: 'Lower limit for the number of pods that can be set by the autoscaler, default 1.',
    type: 'gauge',
  },
  kube_horizontalpodautoscaler_spec_target_metric: {
    help: 'The metric specifications used by this autoscaler when calculating the desired replica count.',
    type: 'gauge',
  },
  kube_horizontalpodautoscaler_status_current_replicas: {
    help: 'Current number of replicas of pods managed by this autoscaler.',
    type: 'gauge',
  },
  kube_horizontalpodautoscaler_status_desired_replicas: {
    help: 'Desired number of replicas of pods managed by this autoscaler.',
    type: 'gauge',
  },
  kube_horizontalpodautoscaler_status_condition: { help: 'The condition of this autoscaler.', type: 'gauge' },
};

/** Samples for every HorizontalPodAutoscaler. */
export function collectAutoscalerMetrics(autoscalers: readonly KubeObject[]): MetricSample[] {
  return autoscalers.flatMap(autoscalerSamples);
}

function recordOf(value: unknown): JsonRecord {
  return isRecord(value) ? value : {};
}

function autoscalerSamples(autoscaler: KubeObject): MetricSample[] {
  const spec = recordOf(autoscaler['spec']);
  const status = recordOf(autoscaler['status']);
  const target = recordOf(spec['scaleTargetRef']);
  const labels: Labels = {
    namespace: text(autoscaler.metadata.namespace),
    horizontalpodautoscaler: autoscaler.metadata.name,
  };
  const apiVersion = text(target['apiVersion']);
  const samples: MetricSample[] = [
    {
      name: 'kube_horizontalpodautoscaler_info',
      labels: {
        ...labels,
        ...(apiVersion ? { scaletargetref_api_version: apiVersion } : {}),
        scaletargetref_kind: text(target['kind']),
        scaletargetref_name: text(target['name']),
      },
      value: 1,
    },
    {
      name: 'kube_horizontalpodautoscaler_metadata_generation',
      labels,
      value: numberOr(autoscaler.metadata.generation, 0),
    },
    { name: 'kube_horizontalpodautoscaler_spec_max_replicas', labels, value: numberOr(spec['maxReplicas'], 0) },
    { name: 'kube_horizontalpodautoscaler_spec_min_replicas', labels, value: numberOr(spec['minReplicas'], 1) },
    ...targetMetricSamples({ labels, metrics: spec['metrics'] }),
    {
      name: 'kube_horizontalpodautoscaler_status_current_replicas',
      labels,
      value: numberOr(status['currentReplicas'], 0),
    },
    {
      name: 'kube_horizontalpodautoscaler_status_desired_replicas',
      labels,
      value: numberOr(status['desiredReplicas'], 0),
    },
  ];
  const conditions = Array.isArray(status['conditions']) ? status['conditions'].filter(isRecord) : [];
  for (const condition of conditions) {
    samples.push(
      ...conditionSamples({
        name: 'kube_horizontalpodautoscaler_status_condition',
        labels: { ...labels, condition: text(condition['type']) },
        statusLabel: 'status',
        status: condition['status'],
      }),
    );
  }
  return samples;
}

/**
 * Where each metric source type keeps its metric's name and its target (autoscaling/v2).
 * kube-state-metrics skips the types it does not know, ContainerResource among them.
 */
const SOURCE_FIELDS: Record<string, string> = {
  Resource: 'resource',
  Pods: 'pods',
  Object: 'object',
  External: 'external',
};

/** A whole-number quantity, as `Quantity.AsInt64` converts it; undefined otherwise. */
function wholeQuantity(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const parsed = parseQuantity(value);
  return parsed !== undefined && Number.isInteger(parsed) ? parsed : undefined;
}

function targetMetricSamples(input: { labels: Labels; metrics: unknown }): MetricSample[] {
  const metrics = Array.isArray(input.metrics) ? input.metrics.filter(isRecord) : [];
  const samples: MetricSample[] = [];
  for (const metric of metrics) {
    const field = SOURCE_FIELDS[text(metric['type'])];
    if (!field) continue;
    const source = recordOf(metric[field]);
    const name = field === 'resource' ? text(source['name']) : text(recordOf(source['metric'])['name']);
    const target = recordOf(source['target']);
    // The order kube-state-metrics writes them in: value, utilization, average.
    const values: [string, number | undefined][] = [
      ['value', field === 'object' || field === 'external' ? wholeQuantity(target['value']) : undefined],
      [
        'utilization',
        field === 'resource' && typeof target['averageUtilization'] === 'number'
          ? target['averageUtilization']
          : undefined,
      ],
      ['average', wholeQuantity(target['averageValue'])],
    ];
    for (const [targetType, value] of values) {
      if (value !== undefined)
        samples.push({
          name: 'kube_horizontalpodautoscaler_spec_target_metric',
          labels: { ...input.labels, metric_name: name, metric_target_type: targetType },
          value,
        });
    }
  }
  return samples;
}
