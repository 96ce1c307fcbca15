/**
 * Which of its namespace's Services select a pod, and the near misses: a Service whose
 * selector shares a label with the pod, or whose name resembles the pod's workload, yet does
 * not match it, with each selector entry the pod's labels fail (`version=v2 (pod has v1)`).
 */
import type { V1Service } from '@kubernetes/client-node';
import { formatLabelMap, matchesLabelMap } from './selectors.ts';

export interface ServiceNearMissData {
  service: string;
  selector: Record<string, string>;
  /** Each selector entry the pod fails, e.g. `app=payment-gateway (pod has payments-gateway)`. */
  unmet: string[];
}

export interface PodServicesData {
  /** Services whose selector matches the pod's labels. */
  selecting: string[];
  nearMisses: ServiceNearMissData[];
}

const NEAR_MISS_LIMIT = 3;

function resembles(service: string, workload: string): boolean {
  return service.length >= 3 && workload.length >= 3 && (service.startsWith(workload) || workload.startsWith(service));
}

export function matchPodServices(input: {
  labels: Record<string, string>;
  services: readonly V1Service[];
  workload: string;
}): PodServicesData {
  const selecting: string[] = [];
  const nearMisses: ServiceNearMissData[] = [];
  for (const service of input.services) {
    const name = service.metadata?.name ?? '';
    const selector = service.spec?.selector ?? {};
    if (Object.keys(selector).length === 0) continue;
    if (matchesLabelMap(selector, input.labels)) {
      selecting.push(name);
      continue;
    }
    const shared = Object.entries(selector).some(([key, value]) => input.labels[key] === value);
    if (!shared && !resembles(name, input.workload)) continue;
    const unmet = Object.entries(selector)
      .filter(([key, value]) => input.labels[key] !== value)
      .map(
        ([key, value]) =>
          `${key}=${value} (${input.labels[key] === undefined ? 'pod lacks the label' : `pod has ${input.labels[key]}`})`,
      );
    nearMisses.push({ service: name, selector, unmet });
  }
  return { selecting: selecting.sort(), nearMisses: nearMisses.slice(0, NEAR_MISS_LIMIT) };
}

/**
 * One line: the Services selecting the pod (and near misses), or that none does with the pod's
 * labels and the near misses; empty when no Service selects the pod or nearly does (a worker behind none).
 */
export function formatPodServices(data: PodServicesData, labels: readonly string[]): string {
  const misses = data.nearMisses.map(
    (miss) => `Service ${miss.service} selector ${formatLabelMap(miss.selector)} misses ${miss.unmet.join(', ')}`,
  );
  if (data.selecting.length)
    return `Service selectors match it: ${data.selecting.join(', ')}${misses.length ? `; not matching: ${misses.join('; ')}` : ''}`;
  if (!misses.length) return '';
  return `no Service selector matches it; labels ${labels.join(',') || 'none'}; near misses: ${misses.join('; ')}`;
}
