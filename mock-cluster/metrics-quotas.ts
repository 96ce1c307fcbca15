/**
 * kube-state-metrics' `kube_resourcequota`: for each ResourceQuota, each resource's hard
 * limit and current use, as numbers (Kubernetes quantities parsed: `4Gi`, `500m`, `20`).
 */
import { text, type MetricDefinitions, type MetricSample } from './metrics-format.ts';
import { isRecord, type KubeObject } from './types.ts';

export const QUOTA_METRICS: MetricDefinitions = {
  kube_resourcequota: { help: 'Information about resource quota.', type: 'gauge' },
};

const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};

/** A Kubernetes quantity as a number; undefined when it is not one. */
export function parseQuantity(quantity: string): number | undefined {
  const match = /^([+-]?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?$/.exec(quantity.trim());
  if (!match) return undefined;
  const suffix = match[2] ?? '';
  const factor = BINARY[suffix] ?? DECIMAL[suffix];
  return factor === undefined ? undefined : Number(match[1]) * factor;
}

export function collectQuotaMetrics(quotas: readonly KubeObject[]): MetricSample[] {
  return quotas.flatMap((quota) => {
    const status = isRecord(quota['status']) ? quota['status'] : {};
    const labels = { namespace: text(quota.metadata.namespace), resourcequota: quota.metadata.name };
    const samples: MetricSample[] = [];
    for (const type of ['hard', 'used'] as const) {
      const values = isRecord(status[type]) ? status[type] : {};
      for (const [resource, quantity] of Object.entries(values)) {
        const value = parseQuantity(String(quantity));
        if (value !== undefined)
          samples.push({ name: 'kube_resourcequota', labels: { ...labels, resource, type }, value });
      }
    }
    return samples;
  });
}
