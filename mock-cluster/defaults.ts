/**
 * What the API server fills in on write, where a client would notice its absence: a
 * Secret's `stringData` folded into base64 `data`, a Service's cluster IP, a new
 * Namespace's phase and a new Pod's Pending status.
 */
import { createHash } from 'node:crypto';
import type { ResourceType } from './resources.ts';
import type { KubeObject } from './types.ts';
import { isRecord } from './types.ts';

function clusterIpFor(object: KubeObject): string {
  const digest = createHash('sha1')
    .update(`${object.metadata.namespace ?? ''}/${object.metadata.name}`)
    .digest();
  return `10.96.${digest[0] ?? 0}.${((digest[1] ?? 0) % 253) + 2}`;
}

/** Applies the server-side defaults to an object about to be stored (mutates it). */
export function applyDefaults(type: ResourceType, object: KubeObject, isCreate: boolean): void {
  if (type.group !== '') return;
  if (type.kind === 'Secret' && isRecord(object['stringData'])) {
    const data = isRecord(object['data']) ? { ...object['data'] } : {};
    for (const [key, value] of Object.entries(object['stringData']))
      data[key] = Buffer.from(String(value), 'utf8').toString('base64');
    object['data'] = data;
    delete object['stringData'];
  }
  if (type.kind === 'Service' && isRecord(object['spec'])) {
    const spec = object['spec'];
    spec['type'] ??= 'ClusterIP';
    if (spec['type'] !== 'ExternalName' && !spec['clusterIP']) {
      spec['clusterIP'] = clusterIpFor(object);
      spec['clusterIPs'] = [spec['clusterIP']];
    }
    if (Array.isArray(spec['ports'])) for (const port of spec['ports']) if (isRecord(port)) port['protocol'] ??= 'TCP';
  }
  if (!isCreate) return;
  if (type.kind === 'Namespace') object['status'] = { phase: 'Active' };
  if (type.kind === 'Pod' && !isRecord(object['status']))
    object['status'] = { phase: 'Pending', qosClass: 'BestEffort' };
}
