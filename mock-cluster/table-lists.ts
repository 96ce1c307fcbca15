/**
 * The list cells of the API server's printers that read more than one field: an
 * EndpointSlice's ports and endpoints, and a HorizontalPodAutoscaler's targets
 * (`cpu: 31%/65%`, each spec.metrics entry beside the status.currentMetrics entry at the
 * same index). Long lists are cut the printers' way: `a,b,c + 2 more...`.
 */
import { list, text } from './table-cells.ts';
import type { JsonRecord } from './types.ts';
import { isRecord, readPath } from './types.ts';

function listWithMore(items: string[], count: number, max: number, separator: string): string {
  const joined = items.slice(0, max).join(separator);
  if (count > max) return `${joined} + ${count - max} more...`;
  return joined === '' ? '<unset>' : joined;
}

/** PORTS of an EndpointSlice: each port number (its name when unset, `*` when neither). */
export function endpointSlicePorts(slice: unknown): string {
  const ports = list(slice, 'ports').map((port) =>
    port['port'] !== undefined && port['port'] !== null
      ? String(port['port'])
      : typeof port['name'] === 'string'
        ? port['name']
        : '*',
  );
  return listWithMore(ports, ports.length, 3, ',');
}

/** ENDPOINTS of an EndpointSlice: every address of every endpoint. */
export function endpointSliceAddresses(slice: unknown): string {
  const addresses = list(slice, 'endpoints').flatMap((endpoint) =>
    Array.isArray(endpoint['addresses']) ? endpoint['addresses'].map(String) : [],
  );
  return listWithMore(addresses, addresses.length, 3, ',');
}

/** A Kubernetes quantity as it was written (the printers print `Quantity.String()`). */
function quantity(value: unknown): string {
  return value === undefined || value === null ? '<unknown>' : String(value);
}

function percent(value: unknown): string | undefined {
  return typeof value === 'number' ? `${value}%` : undefined;
}

/** One metric's `current/target`, the way `formatHPAMetrics` writes each type. */
function metricTarget(spec: JsonRecord, status: JsonRecord | undefined): string {
  const type = text(spec, 'type');
  const source = type ? type.charAt(0).toLowerCase() + type.slice(1) : '';
  const target = readPath(spec, `${source}.target`);
  const current = status ? readPath(status, `${source}.current`) : undefined;
  const read = (field: string): unknown => (isRecord(current) ? current[field] : undefined);
  switch (type) {
    case 'External':
    case 'Object': {
      if (isRecord(target) && target['averageValue'] !== undefined)
        return `${quantity(read('averageValue'))}/${quantity(target['averageValue'])} (avg)`;
      return `${quantity(read('value'))}/${quantity(isRecord(target) ? target['value'] : undefined)}`;
    }
    case 'Pods':
      return `${quantity(read('averageValue'))}/${quantity(isRecord(target) ? target['averageValue'] : undefined)}`;
    case 'Resource':
    case 'ContainerResource': {
      const name = text(spec, `${source}.name`);
      if (isRecord(target) && target['averageValue'] !== undefined)
        return `${name}: ${quantity(read('averageValue'))}/${quantity(target['averageValue'])}`;
      return `${name}: ${percent(read('averageUtilization')) ?? '<unknown>'}/${percent(isRecord(target) ? target['averageUtilization'] : undefined) ?? '<auto>'}`;
    }
    default:
      return '<unknown type>';
  }
}

/** TARGETS of a HorizontalPodAutoscaler (autoscaling/v2). */
export function autoscalerTargets(autoscaler: unknown): string {
  const specs = list(autoscaler, 'spec.metrics');
  if (specs.length === 0) return '<none>';
  const statuses = list(autoscaler, 'status.currentMetrics');
  const targets = specs.map((spec, index) => metricTarget(spec, statuses[index]));
  return listWithMore(targets, targets.length, 2, ', ');
}
