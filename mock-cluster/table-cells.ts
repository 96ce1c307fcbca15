/**
 * The cell formatters behind table.ts: the same strings the API server's printers build
 * (ages, container lists, service IPs and ports, node status and roles, job status and
 * completions, quota usage).
 */
import { humanDuration } from './duration.ts';
import type { JsonRecord, KubeObject } from './types.ts';
import { isRecord, readPath } from './types.ts';

export const text = (object: unknown, path: string, fallback = ''): string => {
  const value = readPath(object, path);
  return value === undefined || value === null || value === '' ? fallback : String(value);
};
export const number = (object: unknown, path: string): number => {
  const value = Number(readPath(object, path) ?? 0);
  return Number.isFinite(value) ? value : 0;
};
export const list = (object: unknown, path: string): JsonRecord[] => {
  const value = readPath(object, path);
  return Array.isArray(value) ? value.filter(isRecord) : [];
};
export const map = (object: unknown, path: string): Record<string, unknown> => {
  const value = readPath(object, path);
  return isRecord(value) ? value : {};
};

export function age(timestamp: unknown, now: number): string {
  const time = typeof timestamp === 'string' ? Date.parse(timestamp) : NaN;
  return Number.isNaN(time) ? '<unknown>' : humanDuration(now - time);
}

export function containerCells(object: unknown, templatePath: string): [string, string] {
  const containers = list(object, `${templatePath}.containers`);
  return [
    containers.map((container) => String(container['name'] ?? '')).join(','),
    containers.map((container) => String(container['image'] ?? '')).join(','),
  ];
}

export function formatLabels(labels: Record<string, unknown>): string {
  const entries = Object.entries(labels);
  return entries.length === 0 ? '<none>' : entries.map(([key, value]) => `${key}=${String(value)}`).join(',');
}

export function accessModes(modes: unknown): string {
  const short: Record<string, string> = {
    ReadWriteOnce: 'RWO',
    ReadOnlyMany: 'ROX',
    ReadWriteMany: 'RWX',
    ReadWriteOncePod: 'RWOP',
  };
  return Array.isArray(modes) ? [...new Set(modes.map((mode) => short[String(mode)] ?? String(mode)))].join(',') : '';
}

export function storageClassOf(object: KubeObject): string {
  return (
    text(object, 'spec.storageClassName') ||
    String(object.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'] ?? '')
  );
}

export function endpointsText(object: KubeObject): string {
  const addresses: string[] = [];
  let count = 0;
  for (const subset of list(object, 'subsets')) {
    const ports = list(subset, 'ports');
    const ready = list(subset, 'addresses').map((address) => String(address['ip'] ?? ''));
    for (const port of ports.length > 0 ? ports : [undefined]) {
      for (const ip of ready) {
        count++;
        if (addresses.length < 3)
          addresses.push(port ? `${ip.includes(':') ? `[${ip}]` : ip}:${String(port['port'])}` : ip);
      }
    }
  }
  if (count === 0) return '<none>';
  return count > 3 ? `${addresses.join(',')} + ${count - 3} more...` : addresses.join(',');
}

export function serviceExternalIp(object: KubeObject): string {
  const externalIps = (readPath(object, 'spec.externalIPs') as string[] | undefined) ?? [];
  switch (text(object, 'spec.type', 'ClusterIP')) {
    case 'ClusterIP':
    case 'NodePort':
      return externalIps.length > 0 ? externalIps.join(',') : '<none>';
    case 'LoadBalancer': {
      const ingress = list(object, 'status.loadBalancer.ingress').map((entry) =>
        String(entry['ip'] ?? entry['hostname'] ?? ''),
      );
      const all = [...ingress, ...externalIps].filter(Boolean);
      return all.length > 0 ? all.join(',') : '<pending>';
    }
    case 'ExternalName':
      return text(object, 'spec.externalName');
    default:
      return '<unknown>';
  }
}

export function nodeStatus(object: KubeObject): string {
  const ready = list(object, 'status.conditions').find((condition) => condition['type'] === 'Ready');
  const status = [ready ? (ready['status'] === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (readPath(object, 'spec.unschedulable') === true) status.push('SchedulingDisabled');
  return status.join(',');
}

export function nodeRoles(object: KubeObject): string {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(object.metadata.labels ?? {})) {
    if (key.startsWith('node-role.kubernetes.io/') && key.length > 'node-role.kubernetes.io/'.length)
      roles.add(key.slice('node-role.kubernetes.io/'.length));
    else if (key === 'kubernetes.io/role' && value) roles.add(value);
  }
  return roles.size === 0 ? '<none>' : [...roles].sort().join(',');
}

export function nodeAddress(object: KubeObject, type: string): string {
  return String(list(object, 'status.addresses').find((address) => address['type'] === type)?.['address'] ?? '<none>');
}

export function jobStatus(object: KubeObject): string {
  const conditionTrue = (type: string): boolean =>
    list(object, 'status.conditions').find((condition) => condition['type'] === type)?.['status'] === 'True';
  if (conditionTrue('Complete')) return 'Complete';
  if (conditionTrue('Failed')) return 'Failed';
  if (object.metadata.deletionTimestamp) return 'Terminating';
  if (conditionTrue('Suspended')) return 'Suspended';
  if (conditionTrue('FailureTarget')) return 'FailureTarget';
  return 'Running';
}

export function jobCompletions(object: KubeObject): string {
  const succeeded = number(object, 'status.succeeded');
  const completions = readPath(object, 'spec.completions');
  if (completions !== undefined && completions !== null) return `${succeeded}/${String(completions)}`;
  const parallelism = number(object, 'spec.parallelism');
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

export function jobDuration(object: KubeObject, now: number): string {
  const start = Date.parse(text(object, 'status.startTime'));
  if (Number.isNaN(start)) return '';
  const end = Date.parse(text(object, 'status.completionTime'));
  return humanDuration((Number.isNaN(end) ? now : end) - start);
}

export function quotaColumns(object: KubeObject): [string, string] {
  const hard = map(object, 'status.hard');
  const used = map(object, 'status.used');
  const source = Object.keys(hard).length > 0 ? hard : map(object, 'spec.hard');
  const request: string[] = [];
  const limit: string[] = [];
  for (const resource of Object.keys(source).sort()) {
    const entry = `${resource}: ${String(used[resource] ?? '0')}/${String(source[resource])}`;
    (resource.startsWith('limits.') ? limit : request).push(entry);
  }
  return [request.join(', '), limit.join(', ')];
}
