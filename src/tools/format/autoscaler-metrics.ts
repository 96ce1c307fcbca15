/**
 * A HorizontalPodAutoscaler's metrics as `kubectl get hpa` reads them, one phrase each:
 * `cpu 92% of 70% target`, `memory 1100Mi of 1Gi average target`,
 * `http_requests_per_second <unknown> of 100 average target`.
 */
import type {
  V2HorizontalPodAutoscaler,
  V2MetricSpec,
  V2MetricStatus,
  V2MetricTarget,
  V2MetricValueStatus,
} from '@kubernetes/client-node';

interface MetricKey {
  type: string;
  /** Resource name (`cpu`) or metric name. */
  name: string;
  container?: string;
}

/** Which metric a spec entry or a status entry is about: its type, name and container (the two share these fields). */
function keyOf(metric: V2MetricSpec | V2MetricStatus): MetricKey {
  switch (metric.type) {
    case 'Resource':
      return { type: metric.type, name: metric.resource?.name ?? '?' };
    case 'ContainerResource':
      return {
        type: metric.type,
        name: metric.containerResource?.name ?? '?',
        ...(metric.containerResource?.container ? { container: metric.containerResource.container } : {}),
      };
    case 'Pods':
      return { type: metric.type, name: metric.pods?.metric.name ?? '?' };
    case 'Object':
      return { type: metric.type, name: metric.object?.metric.name ?? '?' };
    case 'External':
      return { type: metric.type, name: metric.external?.metric.name ?? '?' };
    default:
      return { type: metric.type, name: '?' };
  }
}

function targetOf(metric: V2MetricSpec): V2MetricTarget | undefined {
  return (
    metric.resource?.target ??
    metric.containerResource?.target ??
    metric.pods?.target ??
    metric.object?.target ??
    metric.external?.target
  );
}

function currentOf(metric: V2MetricStatus): V2MetricValueStatus | undefined {
  return (
    metric.resource?.current ??
    metric.containerResource?.current ??
    metric.pods?.current ??
    metric.object?.current ??
    metric.external?.current
  );
}

function formatTarget(target: V2MetricTarget | undefined): string {
  if (!target) return '?';
  if (target.type === 'Utilization') return `${target.averageUtilization ?? '?'}%`;
  if (target.type === 'AverageValue') return `${target.averageValue ?? '?'} average`;
  return target.value ?? '?';
}

/** The current value in the target's own terms: a percentage against a utilization target. */
function formatCurrent(current: V2MetricValueStatus | undefined, target: V2MetricTarget | undefined): string {
  if (!current) return '<unknown>';
  if (target?.type === 'Utilization' && current.averageUtilization !== undefined)
    return `${current.averageUtilization}%`;
  if (target?.type === 'AverageValue' && current.averageValue !== undefined) return current.averageValue;
  return (
    current.value ??
    current.averageValue ??
    (current.averageUtilization !== undefined ? `${current.averageUtilization}%` : '<unknown>')
  );
}

function sameKey(left: MetricKey, right: MetricKey): boolean {
  return left.type === right.type && left.name === right.name && left.container === right.container;
}

/** One phrase per metric of the spec, with the current value the status reports for it. */
export function formatAutoscalerMetrics(autoscaler: V2HorizontalPodAutoscaler): string[] {
  const currents = (autoscaler.status?.currentMetrics ?? []).map((metric) => ({
    key: keyOf(metric),
    current: currentOf(metric),
  }));
  return (autoscaler.spec?.metrics ?? []).map((metric) => {
    const key = keyOf(metric);
    const target = targetOf(metric);
    const current = currents.find((entry) => sameKey(entry.key, key))?.current;
    const label = `${key.name}${key.container ? ` (container ${key.container})` : ''}`;
    return `${label} ${formatCurrent(current, target)} of ${formatTarget(target)} target`;
  });
}
